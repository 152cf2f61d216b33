package dev.toolyard;

import static dev.toolyard.Fixtures.context;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * networknt, as the executor configures it, stops after 2,000,000 evaluation steps and the call is
 * refused as too complex; the compiled fast path has no such cap. Found in review: arguments within
 * the default 1 MiB that networknt refuses were accepted once the fast path judged them.
 */
class SchemaCheckEvaluationStepCapTest {
    /** Every keyword of the compiled subset on each item: the most steps per byte of arguments. */
    private static final String HEAVY = "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"array\","
            + "\"items\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":9,\"exclusiveMinimum\":-1,\"exclusiveMaximum\":10,"
            + "\"enum\":[0,1],\"const\":0,\"minLength\":0,\"maxLength\":5,\"minItems\":0,\"maxItems\":3,\"pattern\":\"a\","
            + "\"description\":\"d\",\"title\":\"t\",\"default\":0,\"examples\":[0],\"$comment\":\"c\",\"deprecated\":false,"
            + "\"format\":\"f\"}}},\"required\":[\"v\"],\"additionalProperties\":false}";

    @TempDir
    Path root;

    private static String zeros(int count) {
        StringBuilder b = new StringBuilder("{\"v\":[0");
        for (int i = 1; i < count; i++) {
            b.append(",0");
        }
        return b.append("]}").toString();
    }

    private ToolResult callWithZeros(int count) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(Fixtures.spec("heavy").argsSchema(HEAVY).build(), (args, c) -> ToolOutput.of("ran"));
        ToolExecutor executor = Fixtures.executor(registry, new InMemoryToolCallStore(), "heavy");
        return executor.execute(ToolCallRequest.of("heavy", zeros(count)), context(root));
    }

    @Test
    void argumentsNetworkntRefusesAtItsStepCapAreRefusedOnTheFastPathToo() {
        ToolResult r = callWithZeros(500_000);

        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason()).contains(Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).startsWith("the arguments are too complex to validate");
    }

    @Test
    void argumentsTwiceTheFastPathsSizeStayBelowNetworkntsStepCapSoTheFastPathDecidesAsItWould() {
        // The fast path judges arguments up to FAST_PATH_MAX_BYTES; networknt must not reach its cap even at
        // twice that, with every keyword on every item.
        int count = (2 * SchemaCheck.FAST_PATH_MAX_BYTES - 8) / 2;
        ToolSpec spec = Fixtures.spec("heavy").argsSchema(HEAVY).build();

        String networknt = dev.toolyard.internal.NetworkntFallback.firstViolation(spec.validator(),
                dev.toolyard.spi.Json.MAPPER.readTree(zeros(count)));

        assertThat(networknt).isNull();
        assertThat(callWithZeros((SchemaCheck.FAST_PATH_MAX_BYTES - 8) / 2).status()).isEqualTo(ToolStatus.OK);
    }
}
