package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.otel.ToolYardTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * What the OpenTelemetry observer costs a call: the note tool's successful {@code execute}
 * (CALLER_THREAD, so the worker handoff's noise is not in it) with no observer, with
 * {@code ToolYardTelemetry.observer} on {@link OpenTelemetry#noop()} (the API with no SDK: what a
 * library pays when the application installed none), and on the real SDK exporting every span through
 * a {@link SimpleSpanProcessor} into an {@link InMemorySpanExporter}. The exporter is emptied every
 * {@value #DRAIN_EVERY} spans, for the same reason {@link DrainedInMemoryStore} drains the store: kept
 * spans would make the figure the garbage collector's. Both observed executors answer the same call;
 * the set-up checks each answers OK and the SDK one exported a span for it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class ObserverBenchmark {
    static final int DRAIN_EVERY = 4096;

    private Path root;
    private ToolContext context;
    private ToolCallRequest request;
    private ToolExecutor plain;
    private ToolExecutor noop;
    private ToolExecutor sdk;
    private SdkTracerProvider tracerProvider;
    private DrainedExporter exporter;

    /** Builds the three executors and checks each answers the call, the SDK one with one span. */
    @Setup(Level.Trial)
    public void setUp() {
        root = Workspace.create();
        context = ToolContext.of("bench", SandboxPaths.of(root));
        request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        exporter = new DrainedExporter();
        tracerProvider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();

        plain = executor(null);
        noop = executor(ToolYardTelemetry.observer(OpenTelemetry.noop()));
        sdk = executor(ToolYardTelemetry.observer(otel));

        NoteCallState.expect(noObserver(), ToolStatus.OK, null);
        NoteCallState.expect(otelNoop(), ToolStatus.OK, null);
        long before = exporter.exported.get();
        NoteCallState.expect(otelSdk(), ToolStatus.OK, null);
        if (exporter.exported.get() != before + 1) {
            throw new IllegalStateException("the SDK executor did not export exactly one span for its call");
        }
    }

    private static ToolExecutor executor(dev.toolyard.spi.ToolCallObserver observer) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(NoteTool.spec(), NoteTool.HANDLER);
        ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(NoteTool.NAME))
                .store(new DrainedInMemoryStore())
                .handlerMode(HandlerMode.CALLER_THREAD);
        if (observer != null) {
            b.observer(observer);
        }
        return b.build();
    }

    /** Prints how many spans the SDK executor exported, closes the SDK, deletes the workspace. */
    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.println("\n" + exporter.exported.get() + " spans exported by the SDK executor");
        tracerProvider.close();
        Workspace.delete(root);
    }

    /** The baseline: no observer registered. */
    @Benchmark
    public ToolResult noObserver() {
        return plain.execute(request, context);
    }

    /** The observer on the API's no-op implementation. */
    @Benchmark
    public ToolResult otelNoop() {
        return noop.execute(request, context);
    }

    /** The observer on the SDK: a recorded span, exported synchronously into memory. */
    @Benchmark
    public ToolResult otelSdk() {
        return sdk.execute(request, context);
    }

    /**
     * A paired check for a busy host, where forks run at different moments disagree by more than the
     * overhead: {@code java -cp benchmarks/target/benchmarks.jar dev.toolyard.benchmarks.ObserverBenchmark
     * --paired ROUNDS} runs, in one JVM, ROUNDS warm-up and ROUNDS measured rounds; each round times a
     * block of {@value #BLOCK} calls of each variant, rotating which goes first, and the per-round
     * differences against no observer are averaged, so load that drifts between rounds cancels.
     *
     * @param args {@code --paired ROUNDS}
     */
    public static void main(String[] args) {
        if (args.length != 2 || !args[0].equals("--paired")) {
            System.err.println("usage: ObserverBenchmark --paired ROUNDS");
            System.exit(2);
        }
        int rounds = Integer.parseInt(args[1]);
        ObserverBenchmark b = new ObserverBenchmark();
        b.setUp();
        try {
            paired(b, rounds);
        } finally {
            b.tearDown();
        }
    }

    static final int BLOCK = 1_000;

    private static void paired(ObserverBenchmark b, int rounds) {
        double[][] perCall = new double[3][rounds];
        for (int r = -rounds; r < rounds; r++) {
            for (int k = 0; k < 3; k++) {
                int variant = Math.floorMod(r + k, 3);
                long t0 = System.nanoTime();
                for (int i = 0; i < BLOCK; i++) {
                    switch (variant) {
                        case 0 -> b.noObserver();
                        case 1 -> b.otelNoop();
                        default -> b.otelSdk();
                    }
                }
                if (r >= 0) {
                    perCall[variant][r] = (System.nanoTime() - t0) / 1e3 / BLOCK;
                }
            }
        }
        System.out.printf(Locale.ROOT, "paired, %d rounds of %,d calls per variant after %d warm-up rounds:%n",
                rounds, BLOCK, rounds);
        String[] names = {"no observer", "otel noop", "otel SDK"};
        for (int v = 0; v < 3; v++) {
            System.out.printf(Locale.ROOT, "  %-12s mean %.3f us, median %.3f us%n", names[v],
                    Stats.mean(perCall[v]), Stats.median(perCall[v]));
        }
        for (int v = 1; v < 3; v++) {
            double[] diff = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                diff[r] = perCall[v][r] - perCall[0][r];
            }
            double mean = Stats.mean(diff);
            double halfWidth = 3.29 * Stats.sd(diff, mean) / Math.sqrt(rounds); // 99.9%, normal approximation
            System.out.printf(Locale.ROOT, "  %-12s - none: %.3f ± %.3f us (99.9%%), median difference %.3f us,"
                    + " ratio of medians %.3f%n", names[v], mean, halfWidth, Stats.median(diff),
                    Stats.median(perCall[v]) / Stats.median(perCall[0]));
        }
    }

    /** An in-memory exporter swapped for a fresh one every {@value #DRAIN_EVERY} spans. */
    static final class DrainedExporter implements SpanExporter {
        final AtomicLong exported = new AtomicLong();
        private volatile InMemorySpanExporter current = InMemorySpanExporter.create();

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            CompletableResultCode result = current.export(spans);
            if (exported.addAndGet(spans.size()) % DRAIN_EVERY == 0) {
                current = InMemorySpanExporter.create();
            }
            return result;
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return current.shutdown();
        }
    }
}
