package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
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
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Row 1: {@code execute} of the no-op tool in the default mode ({@link HandlerMode#HANDOFF}), beside
 * what the handoff alone costs (a constant task submitted to a pool built like the executor's, and
 * waited for with a deadline) and beside a direct call of the handler. The target is on the
 * difference: ToolYard's own work beyond the raw handoff.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ExecuteHandoffBenchmark extends NoteCallState {
    private static final ToolOutput CONSTANT = ToolOutput.of("ok");
    private static final Callable<ToolOutput> CONSTANT_TASK = () -> CONSTANT;

    private ExecutorService pool;
    private long limitNanos;
    private ToolArgs args;

    @Override
    HandlerMode mode() {
        return HandlerMode.HANDOFF;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        openWorkspace();
        // Built as ToolExecutor builds its worker pool: no core threads, unbounded, a direct handoff.
        pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "raw-handoff");
            t.setDaemon(true);
            return t;
        });
        limitNanos = context.timeout().toNanos();
        args = new ToolArgs((ObjectNode) JsonMapper.builder().build().readTree(NoteTool.ARGUMENTS), Map.of());
        buildExecutor();
        NoteCallState.expect(toolyard(), ToolStatus.OK, null);
        if (rawHandoff() != CONSTANT || directHandlerCall().content().isEmpty()) {
            throw new IllegalStateException("a baseline did not return what it should");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.shutdownNow();
        closeWorkspace();
    }

    /** The figure: the whole call, handed to a worker, validated and recorded. */
    @Benchmark
    public ToolResult toolyard() {
        return executor.execute(request, context);
    }

    /** Baseline: submit + timed get of a constant task, the handoff's own price. */
    @Benchmark
    public ToolOutput rawHandoff() throws Exception {
        return pool.submit(CONSTANT_TASK).get(limitNanos, TimeUnit.NANOSECONDS);
    }

    /** Baseline: the handler called directly with arguments parsed once. */
    @Benchmark
    public ToolOutput directHandlerCall() throws Exception {
        return NoteTool.HANDLER.handle(args, context);
    }
}
