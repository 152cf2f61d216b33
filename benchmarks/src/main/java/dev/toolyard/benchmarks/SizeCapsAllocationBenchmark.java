package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.PathContainment;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.util.Set;
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
 * Row 10, second half: bytes allocated per caller-thread call must not depend on the configured caps
 * (content, summary, arguments). Run with {@code -prof gc}; compare {@code gc.alloc.rate.norm} of the
 * default caps with caps of 16 MiB each. The time is reported too, but the allocation is the row.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class SizeCapsAllocationBenchmark extends NoteCallState {
    static final int LARGE_CAP = 16 << 20;

    @Param({"default", "16MiB"})
    public String caps;

    @Override
    HandlerMode mode() {
        return HandlerMode.CALLER_THREAD;
    }

    @Override
    void buildExecutor() {
        store = new DrainedInMemoryStore();
        ToolRegistry registry = new ToolRegistry();
        registry.register(NoteTool.spec(), NoteTool.HANDLER);
        ToolExecutor.Builder builder = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(NoteTool.NAME))
                .store(store)
                .handlerMode(mode());
        if (caps.equals("16MiB")) {
            builder.maxContentBytes(LARGE_CAP).maxSummaryBytes(LARGE_CAP).maxArgumentBytes(LARGE_CAP);
        }
        executor = builder.build();
    }

    @Setup(Level.Trial)
    public void setUp() {
        openWorkspace();
        buildExecutor();
        expect(execute(), ToolStatus.OK, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        closeWorkspace();
    }

    @Benchmark
    public ToolResult execute() {
        return executor.execute(request, context);
    }
}
