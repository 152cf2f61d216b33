package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Row 6: calls per millisecond through one shared executor (and its one store) from one and
 * from two threads, in both modes. On two cores, two threads reach 2x only if nothing on the path
 * serialises them; the in-memory store's lock and, in caller-thread mode, the watchdog's queue are
 * the shared points to watch. JMH reports the sum over the threads.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ThroughputBenchmark extends NoteCallState {
    @Param({"HANDOFF", "CALLER_THREAD"})
    public HandlerMode handlerMode;

    @Override
    HandlerMode mode() {
        return handlerMode;
    }

    @Setup(Level.Trial)
    public void setUp() {
        openWorkspace();
        buildExecutor();
        expect(executor.execute(request, context), ToolStatus.OK, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        closeWorkspace();
    }

    @Benchmark
    @Threads(1)
    public ToolResult oneThread() {
        return executor.execute(request, context);
    }

    @Benchmark
    @Threads(2)
    public ToolResult twoThreads() {
        return executor.execute(request, context);
    }
}
