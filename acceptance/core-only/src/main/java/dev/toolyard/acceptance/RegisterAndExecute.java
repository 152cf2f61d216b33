package dev.toolyard.acceptance;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathAccess;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Acceptance check (a): a custom tool registered and executed with only toolyard-core and its declared
 * runtime dependencies on the class path. Exits non-zero when a claim fails.
 */
public final class RegisterAndExecute {
    private RegisterAndExecute() {}

    public static void main(String[] args) throws Exception {
        Checks checks = new Checks("core-only");
        for (String other : List.of("dev.toolyard.sandbox.TieredSandbox", "dev.toolyard.builtins.BuiltinTools",
                "dev.toolyard.store.jdbc.JdbcToolCallStore", "org.junit.jupiter.api.Test")) {
            checks.that(!loadable(other), "the class path holds core's dependencies only (" + other + " absent)");
        }
        Path root = Checks.tempDirectory("toolyard-acceptance-core");
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
        registry.register(spec, (a, ctx) -> ToolOutput.of(Files.readString(a.path("path"))));
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_notes")).store(store).build();
        ToolContext context = ToolContext.of("inv-1", SandboxPaths.of(root));

        ToolResult ok = executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), context);
        checks.that(ok.status() == ToolStatus.OK && ok.content().equals("buy milk"), "the custom tool ran: " + ok);
        ToolResult escape = executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"../x\"}"), context);
        checks.that(escape.reason().orElse(null) == Reason.PATH_ESCAPE, "../ is refused as path_escape: " + escape);
        ToolResult ghost = executor.execute(ToolCallRequest.of("rm_rf", "{}"), context);
        checks.that(ghost.reason().orElse(null) == Reason.UNKNOWN_TOOL, "an unknown tool is refused: " + ghost);
        List<ToolCallRecord> records = store.records();
        checks.that(records.size() == 3, "every call is recorded (" + records.size() + " records)");
        checks.that(records.get(1).reason().orElse(null) == Reason.PATH_ESCAPE, "the record carries the refusal's reason");
        checks.exit();
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, RegisterAndExecute.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
