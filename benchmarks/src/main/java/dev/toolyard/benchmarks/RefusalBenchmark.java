package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.Reason;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Row 3: the two refusals a model triggers most, an unknown tool and arguments that fail the schema.
 * Their baseline is the successful call of {@link CallerThreadPeersBenchmark#toolyard()}: a refusal
 * never reaches the handler, so the mode does not matter, and comparing with the caller-thread
 * success (no handoff in it) is the stricter test.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class RefusalBenchmark extends NoteCallState {
    private ToolCallRequest unknown;
    private ToolCallRequest invalid;

    @Override
    HandlerMode mode() {
        return HandlerMode.CALLER_THREAD;
    }

    @Setup(Level.Trial)
    public void setUp() {
        openWorkspace();
        buildExecutor();
        unknown = ToolCallRequest.of(NoteTool.UNKNOWN_NAME, NoteTool.ARGUMENTS);
        invalid = ToolCallRequest.of(NoteTool.NAME, NoteTool.INVALID_ARGUMENTS);
        expect(unknownTool(), ToolStatus.REFUSED, Reason.UNKNOWN_TOOL);
        expect(argsInvalid(), ToolStatus.REFUSED, Reason.ARGS_INVALID);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        closeWorkspace();
    }

    /** A name no tool has: refused at the first rung, recorded. */
    @Benchmark
    public ToolResult unknownTool() {
        return executor.execute(unknown, context);
    }

    /** An extra property against the closed schema: refused at the schema rung, recorded. */
    @Benchmark
    public ToolResult argsInvalid() {
        return executor.execute(invalid, context);
    }
}
