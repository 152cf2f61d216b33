package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.spi.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.node.ObjectNode;

/** ToolArgs reads what the schema admitted, in every spelling a model may use. */
class ToolArgsTest {
    private static final String COUNT_SCHEMA = """
            {"type":"object","properties":{"count":{"type":"integer"}},"required":["count"],
             "additionalProperties":false}""";

    @TempDir
    Path root;

    private static ToolArgs args(String json) {
        return new ToolArgs((ObjectNode) Json.MAPPER.readTree(json), Map.of());
    }

    /** Issue 24, item 9: JSON Schema counts these as integers, so a handler must get them as one. */
    @ParameterizedTest
    @CsvSource({"5.0,5", "1e1,10", "1E0,1", "10.000,10", "0e400,0", "-0.0,0", "-3,-3", "2.5e1,25",
            "-9223372036854775808,-9223372036854775808", "9223372036854775807,9223372036854775807",
            "-9.223372036854775808e18,-9223372036854775808"})
    void everyIntegralSpellingTheSchemaAdmitsReadsAsItsValue(String spelled, long value) {
        assertThat(args("{\"count\":" + spelled + "}").integer("count")).isEqualTo(value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"5.5", "1e-1", "9223372036854775808", "9.223372036854775807e18", "1e19", "1e400",
            "\"5\"", "true", "[1]"})
    void aFractionAValueOutsideLongOrANonNumberIsNotAnInteger(String spelled) {
        assertThatThrownBy(() -> args("{\"count\":" + spelled + "}").integer("count"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'count'");
    }

    /** Issue 24, item 9: through the executor each spelling reaches the handler, never handler_error. */
    @Test
    void anIntegralSpellingRunsTheHandlerWithTheIntegerAndAnIntegerOutsideLongIsARefusal() {
        ToolRegistry registry = new ToolRegistry();
        List<Long> seen = new ArrayList<>();
        registry.register(Fixtures.spec("count_tool").argsSchema(COUNT_SCHEMA).build(), (a, ctx) -> {
            seen.add(a.integer("count"));
            return ToolOutput.of("ok");
        });
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        try (ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("count_tool")).store(store).build()) {
            for (String spelled : List.of("5.0", "1e1", "1E0", "10.000", "0e400")) {
                ToolResult r = executor.execute(ToolCallRequest.of("count_tool", "{\"count\":" + spelled + "}"),
                        Fixtures.context(root));
                assertThat(r.status()).as(spelled).isEqualTo(ToolStatus.OK);
            }
            assertThat(seen).containsExactly(5L, 10L, 1L, 10L, 0L);
            for (String spelled : List.of("1e19", "12345678901234567890", "-9223372036854775809")) {
                ToolResult r = executor.execute(ToolCallRequest.of("count_tool", "{\"count\":" + spelled + "}"),
                        Fixtures.context(root));
                assertThat(r.reason()).as(spelled).contains(Reason.ARGS_INVALID);
                assertThat(r.reasonDetail()).contains("argument 'count' is an integer outside the range a tool can take");
            }
            assertThat(seen).hasSize(5);
            assertThat(store.records()).hasSize(8);
        }
    }
}
