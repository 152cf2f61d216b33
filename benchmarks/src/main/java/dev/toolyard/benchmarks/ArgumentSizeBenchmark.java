package dev.toolyard.benchmarks;

import dev.toolyard.EgressClass;
import dev.toolyard.HandlerMode;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Row 4: {@code execute} with 100 and with 1,000 integers in one array argument, to show that the
 * cost grows linearly with the arguments. Caller-thread mode, so the handoff's fixed 20–40 µs does
 * not hide the part that grows; the handler touches the array, as a real one would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ArgumentSizeBenchmark extends NoteCallState {
    static final String SCHEMA = """
            {"type":"object","properties":{"values":{"type":"array","items":{"type":"integer"}}},
             "required":["values"],"additionalProperties":false}""";
    private static final ToolOutput OK = ToolOutput.of("ok");
    private static final ToolOutput EMPTY = ToolOutput.of("empty");

    @Param({"100", "1000"})
    public int integers;

    private ToolCallRequest sized;

    @Override
    HandlerMode mode() {
        return HandlerMode.CALLER_THREAD;
    }

    @Override
    void buildExecutor() {
        store = new DrainedInMemoryStore();
        ToolSpec spec = ToolSpec.builder("sum_values")
                .description("Sum integers.")
                .argsSchema(SCHEMA)
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .build();
        executor = ExecutorFixture.of(spec, (args, ctx) -> args.json().get("values").isEmpty() ? EMPTY : OK,
                mode(), store);
    }

    /** @return {@code {"values":[...]}} with {@code n} integers of up to six digits */
    static String integersArgument(int n) {
        StringBuilder json = new StringBuilder("{\"values\":[");
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append((i * 7919L) % 1_000_000);
        }
        return json.append("]}").toString();
    }

    @Setup(Level.Trial)
    public void setUp() {
        openWorkspace();
        buildExecutor();
        sized = ToolCallRequest.of("sum_values", integersArgument(integers));
        expect(execute(), ToolStatus.OK, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        closeWorkspace();
    }

    @Benchmark
    public ToolResult execute() {
        return executor.execute(sized, context);
    }
}
