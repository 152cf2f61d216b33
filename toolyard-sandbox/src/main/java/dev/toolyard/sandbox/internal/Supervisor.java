package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.Text;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one prepared launch to its end: spawns it with Java's process API (argv only, no shell), reads
 * both output streams on their own threads with a cap each, and stops the whole tree at the deadline,
 * at the first byte past a cap, or when the calling thread is interrupted. It returns only once the
 * run is over and tidied. Stateless; its reader threads are shared daemon threads.
 */
public final class Supervisor {
    private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());
    private static final File DEV_NULL = new File("/dev/null");
    private static final File ROOT = new File("/");
    private static final long EXIT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long READER_WAIT_MILLIS = 5_000;
    private static final ExecutorService READERS = Executors.newCachedThreadPool(new ReaderThreads());

    private Supervisor() {}

    /**
     * How a run ended.
     *
     * @param exitCode the client's exit status, 128 plus the signal when it was killed
     * @param timedOut whether the deadline (or the caller's interruption) stopped it
     * @param killed whether the supervisor stopped it (deadline, interruption or output cap)
     * @param elapsed from spawn to exit
     */
    public record Outcome(int exitCode, Text.Capped stdout, Text.Capped stderr, boolean timedOut, boolean killed,
            Duration elapsed) {
        /** @return whether either stream passed its cap */
        public boolean outputTruncated() {
            return stdout.truncated() || stderr.truncated();
        }
    }

    /**
     * @param timeout positive
     * @param cap bytes kept per stream, at least 256
     * @return how the run ended; if the calling thread was interrupted, the run is stopped, the
     *     outcome says {@code timedOut}, and the thread's interrupt flag is set again
     * @throws UncheckedIOException if the client cannot be started
     */
    public static Outcome run(Launch launch, Duration timeout, int cap) {
        ProcessBuilder pb = new ProcessBuilder(launch.argv())
                .directory(ROOT)
                .redirectInput(ProcessBuilder.Redirect.from(DEV_NULL));
        Map<String, String> env = pb.environment();
        env.clear();
        env.putAll(launch.environment());
        long start = System.nanoTime();
        Process client;
        try {
            client = pb.start();
        } catch (IOException e) {
            launch.abandon();
            throw new UncheckedIOException("could not start " + launch.argv().get(0), e);
        }
        AtomicBoolean killed = new AtomicBoolean();
        Runnable kill = () -> {
            if (killed.compareAndSet(false, true)) {
                launch.killTree(client);
            }
        };
        OutputCapture out = new OutputCapture(client.getInputStream(), cap, kill);
        OutputCapture err = new OutputCapture(client.getErrorStream(), cap, kill);
        READERS.execute(out);
        READERS.execute(err);

        boolean interrupted = false;
        boolean exited;
        try {
            exited = client.waitFor(saturatedNanos(timeout), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
            exited = false;
        }
        boolean timedOut = false;
        if (!exited && client.isAlive()) {
            timedOut = !(out.overflowed() || err.overflowed());
            kill.run();
        }
        int exitCode = awaitExit(client);
        long end = System.nanoTime();
        launch.close(client, killed.get());
        awaitReader(out);
        awaitReader(err);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return new Outcome(exitCode, out.text(), err.text(), timedOut, killed.get(), Duration.ofNanos(end - start));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Waits for a client that has exited or been killed; an interruption here is kept for later. */
    private static int awaitExit(Process client) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + EXIT_WAIT_NANOS;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    if (client.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
                        return client.exitValue();
                    }
                    if (left <= 0) {
                        client.destroyForcibly();
                        LOG.log(System.Logger.Level.WARNING, "process " + client.pid() + " did not exit after being killed");
                        return 128 + 9;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void awaitReader(OutputCapture capture) {
        boolean interrupted = Thread.interrupted();
        try {
            if (!capture.awaitDone(READER_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "an output stream stayed open after its run ended; using what was read");
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final class ReaderThreads implements java.util.concurrent.ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "toolyard-sandbox-output-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }
}
