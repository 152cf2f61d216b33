package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.spi.ApprovalDecision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The issues' "must compile" blocks, verbatim, with their comments turned into assertions. */
class ContractExampleTest {
    @TempDir
    Path root;

    @Test
    void theIssueExampleCompilesAndBehavesAsCommented() throws Exception {
        Files.writeString(root.resolve("today.md"), "buy milk");
        ToolSpec spec = ToolSpec.builder("read_notes")
                .description("Read one note from the workspace.")
                .argsSchema("""
                    {"type":"object","properties":{"path":{"type":"string"}},
                     "required":["path"],"additionalProperties":false}""")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .pathArg("path", PathAccess.READ)
                .build();
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec, (args, ctx) -> ToolOutput.of(Files.readString(args.path("path"))));
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_notes"))
                .store(store)
                .build();
        ToolContext context = ToolContext.of("inv-1", SandboxPaths.of(root));
        ToolResult ok = executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), context);
        assertThat(ok.status()).isEqualTo(ToolStatus.OK);
        assertThat(ok.content()).isEqualTo("buy milk");
        assertThat(ok.reason()).isEmpty();
        ToolResult escape = executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"../x\"}"), context);
        assertThat(escape.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(escape.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(Reason.PATH_ESCAPE.wireName()).isEqualTo("path_escape");
        ToolResult ghost = executor.execute(ToolCallRequest.of("rm_rf", "{}"), context);
        assertThat(ghost.reason()).contains(Reason.UNKNOWN_TOOL);
        assertThat(store.records()).hasSize(3);
        ToolResult[] results = {ok, escape, ghost};
        for (int i = 0; i < 3; i++) {
            ToolCallRecord r = store.records().get(i);
            assertThat(r.callId()).isEqualTo(results[i].callId());
            assertThat(r.status()).isEqualTo(results[i].status());
            assertThat(r.reason()).isEqualTo(results[i].reason());
        }
    }

    @Test
    void theRoundsIssueExampleCompilesAndTheGateDeniesTheDeleteButLetsTheReadRun() throws Exception {
        Files.writeString(root.resolve("a.md"), "keep me");
        String schema = """
                {"type":"object","properties":{"path":{"type":"string"}},
                 "required":["path"],"additionalProperties":false}""";
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("read_file").description("Read one file.").argsSchema(schema)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).pathArg("path", PathAccess.READ).build(),
                (args, ctx) -> ToolOutput.of(Files.readString(args.path("path"))));
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        ToolContext context = ToolContext.of("inv-1", SandboxPaths.of(root));
        // --- the contract, as written ---
        ToolSpec deleteSpec = ToolSpec.builder("delete_file").description("Delete one file.")
                .argsSchema(schema).riskClass(RiskClass.WRITE).egress(EgressClass.NONE)
                .pathArg("path", PathAccess.WRITE)
                .requiresApproval(true)
                .build();
        registry.register(deleteSpec, (args, ctx) -> {
            Files.delete(args.path("path"));
            return ToolOutput.of("deleted");
        });
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("delete_file", "read_file"))
                .store(store)
                .maxCallsPerRound(32)
                .approvalGate(request -> CompletableFuture.completedFuture(
                        request.toolName().equals("delete_file")
                                ? ApprovalDecision.deny("reviewer-1", "not today")
                                : ApprovalDecision.approve("reviewer-1")))
                .approvalTimeout(Duration.ofSeconds(30))
                .build();
        List<ToolResult> round = executor.executeRound(
                List.of(ToolCallRequest.of("read_file", "{\"path\":\"a.md\"}"),
                        ToolCallRequest.of("delete_file", "{\"path\":\"a.md\"}")),
                context);
        // --- end of the contract ---
        assertThat(round).hasSize(2);
        assertThat(round.get(0).content()).isEqualTo("keep me");
        assertThat(round.get(1).reason()).contains(Reason.APPROVAL_DENIED);
        assertThat(round.get(1).reasonDetail()).isEqualTo("denied: not today");
        assertThat(root.resolve("a.md")).exists();
        assertThat(store.records()).hasSize(2);
        assertThat(store.records()).filteredOn(r -> r.toolName().equals("delete_file"))
                .singleElement().extracting(ToolCallRecord::approver).isEqualTo("reviewer-1");
    }
}
