package dev.toolyard.benchmarks;

import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
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
 * A round of 8 calls of the no-op cooperative tool through {@code executeRound} (default options: up to 8
 * lanes, the caller's thread and 7 helper lanes) beside the same 8 calls made one after another with
 * {@code execute} on one thread, and a round of one call beside one {@code execute}. Cooperative calls that
 * do not wait never leave the caller's thread (helper lanes start only once a call stalls), so a round
 * should cost what its calls cost: targets 1.5x and 1.1x.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class RoundBenchmark {
    private static final int CALLS = 8;

    private Path root;
    private ToolContext context;
    private ToolExecutor executor;
    private ToolCallRequest request;
    private List<ToolCallRequest> round;
    private List<ToolCallRequest> single;

    @Setup(Level.Trial)
    public void setUp() {
        root = Workspace.create();
        context = ToolContext.of("bench", SandboxPaths.of(root));
        request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        round = Collections.nCopies(CALLS, request);
        single = List.of(request);
        executor = ExecutorFixture.builder(NoteTool.cooperativeSpec(), NoteTool.HANDLER, new DrainedInMemoryStore())
                .build();
        for (ToolResult r : roundOfEight()) {
            NoteCallState.expect(r, ToolStatus.OK, null);
        }
        for (ToolResult r : eightSequential()) {
            NoteCallState.expect(r, ToolStatus.OK, null);
        }
        NoteCallState.expect(roundOfOne().get(0), ToolStatus.OK, null);
        NoteCallState.expect(oneExecute(), ToolStatus.OK, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        executor.close();
        Workspace.delete(root);
    }

    /** The figure: one round of 8 calls, on up to 8 lanes. */
    @Benchmark
    public List<ToolResult> roundOfEight() {
        return executor.executeRound(round, context);
    }

    /** The figure of a turn with one call: a round of it. */
    @Benchmark
    public List<ToolResult> roundOfOne() {
        return executor.executeRound(single, context);
    }

    /** The baseline of a turn with one call: the call itself. */
    @Benchmark
    public ToolResult oneExecute() {
        return executor.execute(request, context);
    }

    /** The baseline: the same 8 calls, one after another on the caller's thread. */
    @Benchmark
    public ToolResult[] eightSequential() {
        ToolResult[] results = new ToolResult[CALLS];
        for (int i = 0; i < CALLS; i++) {
            results[i] = executor.execute(request, context);
        }
        return results;
    }
}
