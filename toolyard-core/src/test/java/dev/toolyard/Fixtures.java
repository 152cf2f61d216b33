package dev.toolyard;

import dev.toolyard.spi.ToolCallStore;
import java.nio.file.Path;
import java.util.Set;

/** Small builders shared by the core tests. */
final class Fixtures {
    private Fixtures() {}

    static final String ECHO_SCHEMA = """
            {"type":"object","properties":{"text":{"type":"string","maxLength":100}},
             "required":["text"],"additionalProperties":false}""";

    static ToolSpec.Builder spec(String name) {
        return ToolSpec.builder(name)
                .description("A tool for tests.")
                .argsSchema(ECHO_SCHEMA)
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE);
    }

    static ToolHandler echo() {
        return (args, ctx) -> ToolOutput.of(args.string("text"));
    }

    static ToolExecutor executor(ToolRegistry registry, ToolCallStore store, String... allowlisted) {
        return ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of(allowlisted)).store(store).build();
    }

    static ToolContext context(Path root) {
        return ToolContext.of("inv-test", SandboxPaths.of(root));
    }
}
