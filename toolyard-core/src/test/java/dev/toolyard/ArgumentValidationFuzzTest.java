package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Whatever a model sends as a tool name and arguments, {@code execute} returns a result (never
 * throws), records it, and a handler only ever sees arguments its schema admits. Runs its seed corpus
 * in every build; fuzz longer on demand with {@code JAZZER_FUZZ=1}.
 */
class ArgumentValidationFuzzTest {
    private static final String SCHEMA = """
            {"type":"object","additionalProperties":false,"required":["path","count"],
             "properties":{"path":{"type":"string","maxLength":200},
                           "count":{"type":"integer","minimum":0,"maximum":10},
                           "tags":{"type":"array","maxItems":5,"items":{"type":"string","pattern":"^[a-z]+$"}},
                           "opts":{"type":"object","additionalProperties":false,
                                   "properties":{"deep":{"type":"boolean"}}}}}""";
    private static final ToolRegistry REGISTRY = new ToolRegistry();
    private static final InMemoryToolCallStore STORE = new InMemoryToolCallStore();
    private static final ToolExecutor EXECUTOR;
    private static final ToolContext CONTEXT;

    static {
        REGISTRY.register(ToolSpec.builder("probe").description("fuzz target").argsSchema(SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).pathArg("path", PathAccess.READ).build(),
                (args, ctx) -> {
                    long count = args.integer("count");
                    if (count < 0 || count > 10) {
                        throw new AssertionError("the schema let " + count + " through");
                    }
                    if (!args.path("path").startsWith(ctx.workspace().realWriteRoot())) {
                        throw new AssertionError("an uncontained path reached the handler");
                    }
                    return ToolOutput.of("ok");
                });
        EXECUTOR = ToolExecutor.builder(REGISTRY, new PathContainment()).allowlist(Set.of("probe")).store(STORE)
                .handlerMode(HandlerMode.CALLER_THREAD).build();
        try {
            Path root = Files.createTempDirectory("toolyard-args-fuzz");
            CONTEXT = ToolContext.of("fuzz", SandboxPaths.of(root));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    void executeNeverThrowsAndHandlersSeeOnlyValidArguments(byte[] data) {
        // Input: the tool name, a newline, the arguments; decoded as UTF-8 so seed files stay readable.
        String text = new String(data, java.nio.charset.StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        String name = newline < 0 ? "probe" : text.substring(0, newline);
        String arguments = newline < 0 ? text : text.substring(newline + 1);
        int before = STORE.records().size();
        ToolResult result = EXECUTOR.execute(ToolCallRequest.of(name, arguments), CONTEXT);
        assertThat(result).isNotNull();
        assertThat(result.status()).isIn(ToolStatus.OK, ToolStatus.REFUSED);
        assertThat(STORE.records()).hasSize(before + 1);
    }
}
