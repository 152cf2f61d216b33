package dev.toolyard.benchmarks;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * The core rows' ratios on a loaded machine: each figure and its baseline run in alternating blocks of a
 * fraction of a millisecond in one JVM, so both see the same load, and the median of the per-block
 * ratios is reported with its quartiles. JMH runs a figure and its baseline seconds apart, and with
 * other sessions on the 2 cores its errors swamp the ratio; this does not replace the JMH rows, it tells
 * whether a ratio moved. Run with {@code java -cp benchmarks/target/benchmarks.jar
 * dev.toolyard.benchmarks.CorePaired [blocks]} (default 2,000). Not thread-safe; a main only.
 */
public final class CorePaired {
    private static Object sink;

    private CorePaired() {}

    /**
     * @param args optionally the number of blocks of each pair
     * @throws Exception if a peer cannot be built
     */
    public static void main(String[] args) throws Exception {
        int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        Path root = Workspace.create();
        ToolContext context = ToolContext.of("bench", SandboxPaths.of(root));
        ToolCallRequest request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        List<ToolCallRequest> eight = Collections.nCopies(8, request);
        List<ToolCallRequest> one = List.of(request);
        Method note = NoteTool.Peer.class.getMethod("note", String.class);
        DefaultToolExecutor langchain4j = new DefaultToolExecutor(new NoteTool.Peer(), note);
        ToolExecutionRequest peerRequest = ToolExecutionRequest.builder()
                .id("call-1").name(NoteTool.NAME).arguments(NoteTool.ARGUMENTS).build();
        InvocationContext peerContext = InvocationContext.builder().invocationId(UUID.randomUUID()).timestampNow().build();
        try (ToolExecutor executor = ExecutorFixture.builder(NoteTool.cooperativeSpec(), NoteTool.HANDLER,
                new DrainedInMemoryStore()).build()) {
            pair("executeRound of 8 vs the same 8 execute calls in sequence",
                    () -> sink = executor.executeRound(eight, context), 25, () -> {
                        for (int i = 0; i < 8; i++) {
                            sink = executor.execute(request, context);
                        }
                    }, 25, blocks);
            pair("executeRound of 1 vs one execute", () -> sink = executor.executeRound(one, context), 200,
                    () -> sink = executor.execute(request, context), 200, blocks);
            pair("default cooperative execute vs LangChain4j DefaultToolExecutor",
                    () -> sink = executor.execute(request, context), 200,
                    () -> sink = langchain4j.executeWithContext(peerRequest, peerContext), 200, blocks);
        } finally {
            Workspace.delete(root);
        }
    }

    private static double block(Runnable op, int times) {
        long start = System.nanoTime();
        for (int i = 0; i < times; i++) {
            op.run();
        }
        return (System.nanoTime() - start) / (double) times;
    }

    static void pair(String label, Runnable figure, int figureTimes, Runnable baseline, int baselineTimes,
            int blocks) {
        for (int i = 0; i < 2_000; i++) { // warm-up
            block(figure, figureTimes);
            block(baseline, baselineTimes);
        }
        double[] ratios = new double[blocks];
        double[] figures = new double[blocks];
        double[] baselines = new double[blocks];
        for (int i = 0; i < blocks; i++) {
            if ((i & 1) == 0) {
                figures[i] = block(figure, figureTimes);
                baselines[i] = block(baseline, baselineTimes);
            } else {
                baselines[i] = block(baseline, baselineTimes);
                figures[i] = block(figure, figureTimes);
            }
            ratios[i] = figures[i] / baselines[i];
        }
        Arrays.sort(ratios);
        Arrays.sort(figures);
        Arrays.sort(baselines);
        System.out.printf("%-62s median %.2fx (quartiles %.2f-%.2f); medians %.2f us against %.2f us%n", label,
                ratios[blocks / 2], ratios[blocks / 4], ratios[3 * blocks / 4], figures[blocks / 2] / 1000,
                baselines[blocks / 2] / 1000);
    }
}
