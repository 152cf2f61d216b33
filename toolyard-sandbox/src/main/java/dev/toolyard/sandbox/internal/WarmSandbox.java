package dev.toolyard.sandbox.internal;

import dev.toolyard.internal.Text;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One warm sandbox: a sandbox started ahead of use for one workspace, whose supervisor
 * ({@code toolyard-warm}, the init of its pid namespace) runs one command at a time on request. See
 * {@code src/main/c/toolyard-warm.c} for the protocol. Each command runs in a fresh session as the
 * sandbox uid with the run's limits, its output relayed in frames; when it ends, everything it left
 * is killed and reaped and what it wrote outside the write root is wiped before the exit frame.
 *
 * <p>A sandbox that misbehaves is never used again: {@link #reusable()} turns false for good when a
 * command timed out, passed the output cap, died of a signal, left a process behind or something
 * that could not be wiped, or when the supervisor ended. The caller then {@link #kill()}s or
 * {@link #close()}s it. One command at a time: {@link #run} is called by one thread at a time (the
 * pool hands a sandbox to one caller). Thread-safe otherwise.
 */
public final class WarmSandbox {
    private static final System.Logger LOG = System.getLogger(WarmSandbox.class.getName());
    private static final File ROOT = new File("/");
    private static final long EXIT_WAIT_MILLIS = 30_000;
    private static final long CLOSE_WAIT_MILLIS = 5_000;
    private static final int STDERR_TAIL = 2_048;
    private static final int MAX_FRAME = 1 << 20;
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** The encoding Java's process API gives argv and environment strings; the supervisor gets the same bytes. */
    private static final Charset JNU = jnuCharset();

    private final Rung.WarmLaunch launch;
    private final Process client;
    private final OutputStream toSupervisor;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final StringBuilder stderrTail = new StringBuilder();
    private volatile Command current;
    private volatile boolean broken;
    private volatile boolean gone;
    private volatile long idleSinceNanos;
    private boolean killed; // guarded by this

    private WarmSandbox(Rung.WarmLaunch launch, Process client) {
        this.launch = launch;
        this.client = client;
        this.toSupervisor = new BufferedOutputStream(client.getOutputStream(), 8192);
        Thread frames = new Thread(this::readFrames, "toolyard-warm-frames-" + THREADS.incrementAndGet());
        frames.setDaemon(true);
        frames.start();
        Thread errors = new Thread(this::readErrors, "toolyard-warm-stderr-" + THREADS.get());
        errors.setDaemon(true);
        errors.start();
    }

    /**
     * Starts a warm sandbox and waits until its supervisor is ready.
     *
     * @param spawner the thread the sandbox's process is spawned on: bubblewrap's parent-death signal
     *     follows the thread that spawned it, so it must be a thread that lives as long as the pool
     * @param extraFilter the classic BPF program each command loads on top of the rung's filter
     * @param startTimeout how long the start may take
     * @return the sandbox, ready for its first command
     * @throws UncheckedIOException if it cannot be started or is not ready in time (nothing is left running)
     */
    public static WarmSandbox start(Rung.WarmLaunch launch, ExecutorService spawner, byte[] extraFilter,
            Duration startTimeout) {
        long start = System.nanoTime();
        Process client;
        try {
            client = spawner.submit(spawn(launch)).get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            launch.abandon();
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new UncheckedIOException("could not start a warm sandbox: " + cause,
                    cause instanceof IOException io ? io : new IOException(cause));
        } catch (InterruptedException e) {
            launch.abandon();
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while starting a warm sandbox"));
        }
        WarmSandbox w = new WarmSandbox(launch, client);
        try {
            w.sendFilter(extraFilter);
            w.ready.get(Math.max(1, startTimeout.toMillis() - Duration.ofNanos(System.nanoTime() - start).toMillis()),
                    TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException e) {
            w.kill();
            throw new UncheckedIOException(new IOException("the warm sandbox's supervisor did not start: "
                    + (e instanceof ExecutionException ? e.getCause().getMessage() : e.toString()) + w.said()));
        } catch (InterruptedException e) {
            w.kill();
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while starting a warm sandbox"));
        }
        w.idleSinceNanos = System.nanoTime();
        return w;
    }

    private static Callable<Process> spawn(Launch launch) {
        return () -> {
            ProcessBuilder pb = new ProcessBuilder(launch.argv()).directory(ROOT);
            pb.environment().clear();
            pb.environment().putAll(launch.environment());
            return pb.start();
        };
    }

    /** @return since when it has been idle, by {@link System#nanoTime()} */
    public long idleSinceNanos() {
        return idleSinceNanos;
    }

    /** @return whether it may take another command: nothing went wrong so far and the supervisor is alive */
    public boolean reusable() {
        return !broken && !gone && client.isAlive();
    }

    /** Thrown when a command could not be handed to the supervisor: it never started, so it may be run elsewhere. */
    public static final class NotStarted extends Exception {
        private static final long serialVersionUID = 1L;

        NotStarted(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Runs one command. At the deadline, at the first byte past the cap on either stream, or when the
     * calling thread is interrupted, the whole sandbox is killed (as a cold run's tree is) and the
     * outcome says so; the sandbox is then spent.
     *
     * @param command argv, checked by the caller (no NUL)
     * @param env the command's whole environment, checked by the caller
     * @param cap bytes kept per stream
     * @return how the command ended
     * @throws NotStarted if the request could not be written, or the supervisor ended before it
     *     started the command: the command did not run
     * @throws UncheckedIOException if the supervisor ended while the command ran (the sandbox is killed)
     */
    public Supervisor.Outcome run(List<String> command, Map<String, String> env, Duration timeout, int cap)
            throws NotStarted {
        if (!reusable()) {
            throw new NotStarted("the warm sandbox is spent", null);
        }
        SandboxIds.Claim claim;
        try {
            claim = launch.claimWriteRoot(saturatedNanos(timeout)).orElseThrow(() -> new NotStarted(
                    "another run worked in this write root, or one nested with it, for the whole timeout", null));
        } catch (IOException | RuntimeException e) {
            broken = true;
            throw new NotStarted("could not hand the write root over again", e);
        }
        try (claim) {
            return runClaimed(command, env, timeout, cap);
        }
    }

    private Supervisor.Outcome runClaimed(List<String> command, Map<String, String> env, Duration timeout, int cap)
            throws NotStarted {
        Command c = new Command(cap);
        current = c;
        long start = System.nanoTime();
        try {
            byte[] request = request(command, env);
            synchronized (toSupervisor) {
                toSupervisor.write(request);
                toSupervisor.flush();
            }
        } catch (IOException e) {
            current = null;
            broken = true;
            throw new NotStarted("the warm sandbox's supervisor is gone", e);
        }
        boolean interrupted = false;
        boolean timedOut = false;
        Exit exit = null;
        try {
            exit = c.done.get(saturatedNanos(timeout), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            timedOut = true;
        } catch (InterruptedException e) {
            interrupted = true;
            timedOut = true;
        } catch (ExecutionException e) {
            // the supervisor ended: an overflow kill, or a death of its own
        }
        long end = System.nanoTime();
        boolean overflowed = c.overflowed();
        if (exit == null || timedOut || overflowed) {
            broken = true;
            kill(); // before the command is let go, so that nothing it still sends is taken for a fault
            current = null;
            if (!timedOut && !overflowed) {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                if (!c.accepted) {
                    throw new NotStarted("the warm sandbox's supervisor ended before it started the command" + said(), null);
                }
                throw new UncheckedIOException(new IOException(
                        "the warm sandbox's supervisor ended while the command ran" + said()));
            }
        } else if (exit.status() >= 128 || exit.left() > 0 || (exit.flags() & 2) != 0) {
            broken = true; // the run is answered; the sandbox that held it is not trusted again
        }
        current = null;
        idleSinceNanos = System.nanoTime();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        int status = exit != null && !timedOut && !overflowed ? exit.status() : 128 + 9;
        return new Supervisor.Outcome(status, c.out.text(), c.err.text(), timedOut && !overflowed,
                timedOut || overflowed, Duration.ofNanos(end - start));
    }

    /** Ends it gently: the supervisor sees the end of its input and exits; killed if it does not soon. */
    public void close() {
        try {
            synchronized (toSupervisor) {
                toSupervisor.close();
            }
        } catch (IOException e) {
            // it is gone already
        }
        try {
            if (client.waitFor(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                finish(false);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
    }

    /** Kills the whole sandbox now and waits for it to be gone; safe to call more than once. */
    public void kill() {
        broken = true;
        synchronized (this) {
            if (killed) {
                return;
            }
            killed = true;
        }
        launch.killTree(client);
        try {
            if (!client.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                client.destroyForcibly();
                LOG.log(System.Logger.Level.WARNING, "warm sandbox " + client.pid() + " did not exit after being killed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finish(true);
    }

    private final Object finishLock = new Object();
    private boolean finished; // guarded by finishLock

    private void finish(boolean wasKilled) {
        synchronized (finishLock) {
            if (finished) {
                return;
            }
            finished = true;
        }
        gone = true;
        launch.close(client, wasKilled);
    }

    private void sendFilter(byte[] program) throws IOException {
        synchronized (toSupervisor) {
            writeInt(toSupervisor, program.length);
            toSupervisor.write(program);
            toSupervisor.flush();
        }
    }

    /** @return the request frame: its length, then argc, each argument, envc, each {@code NAME=VALUE} */
    static byte[] request(List<String> command, Map<String, String> env) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        writeInt(body, command.size());
        for (String a : command) {
            writeString(body, a);
        }
        writeInt(body, env.size());
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(env).entrySet()) {
            writeString(body, e.getKey() + "=" + e.getValue());
        }
        ByteArrayOutputStream framed = new ByteArrayOutputStream(body.size() + 4);
        writeInt(framed, body.size());
        body.writeTo(framed);
        return framed.toByteArray();
    }

    private static void writeString(OutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(JNU);
        writeInt(out, b.length);
        out.write(b);
    }

    private static void writeInt(OutputStream out, int v) throws IOException {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    /** The frame reader: the only reader of the supervisor's output, until its end. */
    private void readFrames() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream(), 65536))) {
            byte[] buf = new byte[65536];
            while (true) {
                int tag = in.read();
                if (tag < 0) {
                    break;
                }
                int n = in.readInt();
                if (n < 0 || n > MAX_FRAME) {
                    throw new IOException("a frame of " + n + " bytes");
                }
                if (buf.length < n) {
                    buf = new byte[n];
                }
                in.readFully(buf, 0, n);
                Command c = current;
                switch (tag) {
                    case 'R' -> ready.complete(null);
                    case 'S' -> {
                        if (c == null) {
                            throw new IOException("a start frame with no command under way");
                        }
                        c.accepted = true;
                    }
                    case 'O' -> {
                        if (c != null && c.out.add(buf, n)) {
                            overflow(c);
                        }
                    }
                    case 'E' -> {
                        if (c != null && c.err.add(buf, n)) {
                            overflow(c);
                        }
                    }
                    case 'X' -> {
                        if (n != 12) {
                            throw new IOException("an exit frame of " + n + " bytes");
                        }
                        Exit exit = new Exit(readInt(buf, 0), readInt(buf, 4), readInt(buf, 8));
                        if (c == null) {
                            throw new IOException("an exit frame with no command under way");
                        }
                        c.done.complete(exit);
                    }
                    default -> throw new IOException("a frame tagged " + tag);
                }
            }
        } catch (EOFException e) {
            // the supervisor ended mid-frame
        } catch (IOException e) {
            if (!killedOrGone()) {
                LOG.log(System.Logger.Level.WARNING, "warm sandbox " + client.pid() + ": " + e.getMessage());
            }
        } finally {
            broken = true;
            IOException end = new IOException("the warm sandbox's supervisor ended");
            ready.completeExceptionally(end);
            Command c = current;
            if (c != null) {
                c.done.completeExceptionally(end);
            }
            if (!client.isAlive() || killedOrGone()) {
                return;
            }
            // Its output ended but it lives on: it will not answer again.
            Thread killer = new Thread(this::kill, "toolyard-warm-kill");
            killer.setDaemon(true);
            killer.start();
        }
    }

    private synchronized boolean killedOrGone() {
        return killed || gone;
    }

    private void overflow(Command c) {
        broken = true;
        c.done.completeExceptionally(new IOException("output cap passed"));
    }

    private void readErrors() {
        try (InputStream in = client.getErrorStream()) {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                String s = new String(buf, 0, n, JNU);
                synchronized (stderrTail) {
                    stderrTail.append(s);
                    if (stderrTail.length() > STDERR_TAIL) {
                        stderrTail.delete(0, stderrTail.length() - STDERR_TAIL);
                    }
                }
                LOG.log(System.Logger.Level.DEBUG, "warm sandbox " + client.pid() + " said: " + s.strip());
            }
        } catch (IOException e) {
            // closed with the sandbox
        }
    }

    private String said() {
        synchronized (stderrTail) {
            String s = stderrTail.toString().strip();
            return s.isEmpty() ? "" : ": " + Text.clip(s.replace('\n', ' '), 400);
        }
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static Charset jnuCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? Charset.defaultCharset() : Charset.forName(name);
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }

    /** The supervisor's exit frame. */
    private record Exit(int status, int left, int flags) {}

    /** One command under way: its two capped streams and its end. */
    private static final class Command {
        final Stream out;
        final Stream err;
        final CompletableFuture<Exit> done = new CompletableFuture<>();
        volatile boolean accepted;

        Command(int cap) {
            out = new Stream(cap);
            err = new Stream(cap);
        }

        boolean overflowed() {
            return out.overflowed() || err.overflowed();
        }
    }

    /** One capped stream of a command: the bytes kept, and all bytes received. */
    private static final class Stream {
        private final int cap;
        private byte[] kept = new byte[0];
        private int size;
        private long received;

        Stream(int cap) {
            this.cap = cap;
        }

        /** @return whether this chunk took the stream past its cap */
        synchronized boolean add(byte[] b, int n) {
            boolean wasOver = received > cap;
            int take = Math.min(n, cap - size);
            if (take > 0) {
                if (size + take > kept.length) {
                    kept = java.util.Arrays.copyOf(kept, Math.min(cap, Math.max(size + take, kept.length * 2)));
                }
                System.arraycopy(b, 0, kept, size, take);
                size += take;
            }
            received += n;
            return !wasOver && received > cap;
        }

        synchronized boolean overflowed() {
            return received > cap;
        }

        synchronized Text.Capped text() {
            return OutputCapture.render(kept, size, received, cap);
        }
    }
}
