package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolStatus;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;

/**
 * {@code ThroughputBenchmark}'s CALLER_THREAD row (calls through one shared executor and its one store,
 * 2 threads against 1) as a paired ratio for a loaded machine: blocks on one thread and blocks on two
 * alternate in one JVM, so both see the same load, and the median of the per-pair ratios is reported with
 * its quartiles, as {@link CorePaired} does for the single-thread rows. In a one-thread block one thread
 * makes {@code calls} calls; in a two-thread block each of two makes {@code calls}; a block is timed from
 * the barrier that starts it to the barrier its last thread reaches, and the ratio is calls per second on
 * two against calls per second on one. Blocks are a few milliseconds long, so the barrier's wake-ups are
 * a small part of them. Run with {@code java -cp benchmarks/target/benchmarks.jar
 * dev.toolyard.benchmarks.ThreadsPaired [blocks [calls]]} (default 400 pairs of 4,000 calls). Uses only
 * what every version of the executor and {@link DrainedInMemoryStore} has, so it can run against an older
 * jar put after it on the class path. A main only.
 */
public final class ThreadsPaired {
    private ThreadsPaired() {}

    /**
     * @param args optionally the number of block pairs, and the calls per thread per block
     * @throws Exception if a thread is interrupted or the barrier breaks
     */
    public static void main(String[] args) throws Exception {
        int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 4_000;
        Path root = Workspace.create();
        ToolContext context = ToolContext.of("bench", SandboxPaths.of(root));
        ToolCallRequest request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        try (ToolExecutor executor = ExecutorFixture.note(HandlerMode.CALLER_THREAD, new DrainedInMemoryStore())) {
            Runnable block = () -> {
                for (int i = 0; i < calls; i++) {
                    NoteCallState.expect(executor.execute(request, context), ToolStatus.OK, null);
                }
            };
            paired("CALLER_THREAD throughput, 2 threads vs 1", block, blocks, calls);
            // The machine's own ceiling in the same run: the same pairing of work that shares nothing,
            // one without allocation and one allocating about what a call does (a new 1 KiB array).
            paired("control: private arithmetic, 2 threads vs 1", () -> {
                long x = System.nanoTime();
                for (int i = 0; i < calls * 200; i++) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                }
                sink = x;
            }, blocks, calls);
            paired("control: 1 KiB allocation per op, 2 threads vs 1", () -> {
                Object o = null;
                for (int i = 0; i < calls * 10; i++) {
                    o = new byte[1000];
                }
                sink = o;
            }, blocks, calls);
        } finally {
            Workspace.delete(root);
        }
    }

    private static volatile Object sink;

    private static void paired(String label, Runnable block, int blocks, int calls) throws Exception {
        {
            Lanes lanes = new Lanes(block);
            for (int i = 0; i < 200; i++) { // warm-up
                lanes.run(1);
                lanes.run(2);
            }
            double[] ratios = new double[blocks];
            double[] ones = new double[blocks];
            double[] twos = new double[blocks];
            for (int i = 0; i < blocks; i++) {
                if ((i & 1) == 0) {
                    ones[i] = calls / (double) lanes.run(1);
                    twos[i] = 2.0 * calls / lanes.run(2);
                } else {
                    twos[i] = 2.0 * calls / lanes.run(2);
                    ones[i] = calls / (double) lanes.run(1);
                }
                ratios[i] = twos[i] / ones[i];
            }
            lanes.stop();
            Arrays.sort(ratios);
            Arrays.sort(ones);
            Arrays.sort(twos);
            System.out.printf("%-62s median %.2fx (quartiles %.2f-%.2f); medians %.0f against %.0f blocks' units/ms%n",
                    label, ratios[blocks / 2], ratios[blocks / 4], ratios[3 * blocks / 4], twos[blocks / 2] * 1e6,
                    ones[blocks / 2] * 1e6);
        }
    }

    /** Two threads that run the block when told to, one or both; the caller times them. */
    private static final class Lanes {
        private final CyclicBarrier start = new CyclicBarrier(3);
        private final CyclicBarrier end = new CyclicBarrier(3);
        private volatile int lanes;
        private volatile boolean stopped;
        private final Thread[] threads = new Thread[2];

        Lanes(Runnable block) {
            for (int t = 0; t < 2; t++) {
                int lane = t;
                threads[t] = new Thread(() -> {
                    try {
                        while (true) {
                            start.await();
                            if (stopped) {
                                return;
                            }
                            if (lane < lanes) {
                                block.run();
                            }
                            end.await();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "paired-lane-" + t);
                threads[t].setDaemon(true);
                threads[t].start();
            }
        }

        /** @return the nanoseconds from the start of a block on {@code n} threads to its end */
        long run(int n) throws Exception {
            lanes = n;
            start.await();
            long begin = System.nanoTime();
            end.await();
            return System.nanoTime() - begin;
        }

        void stop() throws Exception {
            stopped = true;
            start.await();
            for (Thread t : threads) {
                t.join();
            }
        }
    }
}
