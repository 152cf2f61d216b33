package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The core issue's "must compile" block, verbatim, with its comments turned into assertions. */
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
            assertThat(r.reasonOptional()).isEqualTo(results[i].reason());
        }
    }
}
