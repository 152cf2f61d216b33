package dev.toolyard.benchmarks;

import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.FailFastAssertionException;
import com.networknt.schema.Schema;
import dev.toolyard.internal.CompiledSchema;
import dev.toolyard.spi.Json;
import dev.toolyard.internal.SchemaRules;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;

/**
 * The schema check alone, side by side on the same schema and the same parsed arguments: the compiled
 * fast path ({@link CompiledSchema}) against networknt called as the executor calls it (its own
 * execution context, fail-fast, the executor's limits). Valid and invalid arguments, for three shapes:
 * the one-string note schema of the dispatch rows, a mixed schema (bounds, enum, nested object, an
 * array of patterned strings), and 1,000 integers. Not a row of the table: it explains the
 * schema share of them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class SchemaValidationBenchmark {
    /** The executor's validation settings, as {@code ToolExecutor} builds them. */
    private static final ExecutionConfig VALIDATION = ExecutionConfig.builder()
            .formatAssertionsEnabled(false)
            .failFast(true)
            .maxEvaluationDepth(Json.MAX_DEPTH * 2)
            .maxEvaluationSteps(2_000_000)
            .build();

    private static final String NOTE = """
            {"type":"object","properties":{"text":{"type":"string","maxLength":100}},
             "required":["text"],"additionalProperties":false}""";
    private static final String MIXED = """
            {"type":"object","additionalProperties":false,"required":["path","count"],
             "properties":{"path":{"type":"string","minLength":1,"maxLength":200},
                           "count":{"type":"integer","minimum":0,"maximum":10},
                           "mode":{"enum":["fast","slow"]},
                           "tags":{"type":"array","maxItems":5,"items":{"type":"string","pattern":"^[a-z]+$"}},
                           "opts":{"type":"object","additionalProperties":false,
                                   "properties":{"deep":{"type":"boolean"}}}}}""";
    private static final String INTS = """
            {"type":"object","properties":{"values":{"type":"array","items":{"type":"integer"}}},
             "required":["values"],"additionalProperties":false}""";

    @Param({"note", "mixed", "ints1000"})
    public String shape;

    private CompiledSchema compiled;
    private Schema networknt;
    private JsonNode valid;
    private JsonNode invalid;

    @Setup(Level.Trial)
    public void setUp() throws SchemaRules.Violation {
        String schema;
        String good;
        String bad;
        switch (shape) {
            case "note":
                schema = NOTE;
                good = "{\"text\":\"hello\"}";
                bad = "{\"text\":5}";
                break;
            case "mixed":
                schema = MIXED;
                good = "{\"path\":\"notes/today.md\",\"count\":3,\"mode\":\"slow\",\"tags\":[\"a\",\"bc\",\"def\"],"
                        + "\"opts\":{\"deep\":true}}";
                bad = "{\"path\":\"notes/today.md\",\"count\":3,\"mode\":\"slow\",\"tags\":[\"a\",\"bc\",\"De\"],"
                        + "\"opts\":{\"deep\":true}}";
                break;
            case "ints1000":
                schema = INTS;
                good = ArgumentSizeBenchmark.integersArgument(1_000);
                bad = good.replace("]}", ",\"x\"]}");
                break;
            default:
                throw new IllegalArgumentException(shape);
        }
        JsonNode schemaNode = Json.MAPPER.readTree(schema);
        compiled = CompiledSchema.compile(schemaNode).orElseThrow();
        networknt = SchemaRules.check(schemaNode);
        valid = Json.MAPPER.readTree(good);
        invalid = Json.MAPPER.readTree(bad);
        if (compiled.firstViolation(valid) != null || networknt(valid) != null
                || compiled.firstViolation(invalid) == null || networknt(invalid) == null) {
            throw new IllegalStateException("the fixtures are not valid and invalid for both validators");
        }
    }

    private Object networknt(JsonNode arguments) {
        ExecutionContext validation = new ExecutionContext(VALIDATION);
        try {
            networknt.validate(validation, arguments);
        } catch (FailFastAssertionException first) {
            validation.setErrors(first.getErrors());
        }
        return validation.getErrors().isEmpty() ? null : validation.getErrors().get(0);
    }

    /** @return the fast path on valid arguments: {@code null} */
    @Benchmark
    public String compiledValid() {
        return compiled.firstViolation(valid);
    }

    /** @return networknt on valid arguments: {@code null} */
    @Benchmark
    public Object networkntValid() {
        return networknt(valid);
    }

    /** @return the fast path's detail for the invalid arguments */
    @Benchmark
    public String compiledInvalid() {
        return compiled.firstViolation(invalid);
    }

    /** @return networknt's first error for the invalid arguments (the executor then formats it) */
    @Benchmark
    public Object networkntInvalid() {
        return networknt(invalid);
    }
}
