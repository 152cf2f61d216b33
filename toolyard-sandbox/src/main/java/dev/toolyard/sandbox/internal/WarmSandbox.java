package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.Text;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One warm sandbox: a sandbox started ahead of use for one workspace, whose supervisor
 * ({@code toolyard-warm}, the init of its pid namespace) runs one command at a time on request. See
 * {@link WarmProtocol} and {@code src/main/c/toolyard-warm.c} for the protocol. Each command runs in a
 * fresh session as the sandbox uid (lent to this sandbox alone) with the run's limits, its output
 * relayed in frames; when it ends, everything it left is killed and reaped and what it wrote outside
 * the write root is wiped before the exit frame.
 *
 * <p>Its life is a {@link State} machine, every move made by one method that refuses illegal ones:
 * {@code STARTING → IDLE ⇄ RUNNING}, any of them {@code → SPENT} (a command timed out, passed the
 * output cap, died of a signal, left a process, a socket or something that could not be wiped, or
 * changed what the supervisor needs; or the supervisor ended), and any but {@code ENDED} {@code →
 * ENDING → ENDED}. Only the move to {@code ENDING} kills or closes it, once; only the move to
 * {@code ENDED} releases its lease and the pool's permit, once, after its process is gone. One
 * command at a time: {@link #run} is called by one thread at a time (the pool hands a sandbox to one
 * caller). Thread-safe otherwise.
 */
public final class WarmSandbox {
    private static final System.Logger LOG = System.getLogger(WarmSandbox.class.getName());
    private static final File ROOT = new File("/");
    private static final long EXIT_WAIT_MILLIS = 30_000;
    private static final long CLOSE_WAIT_MILLIS = 5_000;
    private static final long ENDED_WAIT_MILLIS = 120_000;
    private static final int STDERR_TAIL = 2_048;
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** The encoding Java's process API gives argv and environment strings; the supervisor gets the same bytes. */
    private static final Charset JNU = jnuCharset();

    /** Where a warm sandbox is in its life. */
    enum State {
        STARTING, IDLE, RUNNING, SPENT, ENDING, ENDED;

        boolean mayMoveTo(State to) {
            return switch (this) {
                case STARTING -> to == IDLE || to == SPENT || to == ENDING;
                case IDLE -> to == RUNNING || to == SPENT || to == ENDING;
                case RUNNING -> to == IDLE || to == SPENT || to == ENDING;
                case SPENT -> to == ENDING;
                case ENDING -> to == ENDED;
                case ENDED -> false;
            };
        }
    }

    private final Rung.WarmLaunch launch;
    private final Process client;
    private final Runnable onEnded;
    private final OutputStream toSupervisor;
    private final CompletableFuture<WarmProtocol.Ready> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final StringBuilder stderrTail = new StringBuilder();
    private State state = State.STARTING; // guarded by this
    private volatile Command current;
    private volatile long idleSinceNanos;

    private WarmSandbox(Rung.WarmLaunch launch, Process client, Runnable onEnded) {
        this.launch = launch;
        this.client = client;
        this.onEnded = onEnded;
        this.toSupervisor = new BufferedOutputStream(client.getOutputStream(), 8192);
        Thread frames = new Thread(this::readFrames, "toolyard-warm-frames-" + THREADS.incrementAndGet());
        frames.setDaemon(true);
        frames.start();
        Thread errors = new Thread(this::readErrors, "toolyard-warm-stderr-" + THREADS.get());
        errors.setDaemon(true);
        errors.start();
    }

    /**
     * Moves to {@code to} if that is a legal move from where it is.
     *
     * @return whether it moved; a refused move changes nothing
     */
    private synchronized boolean move(State to) {
        if (!state.mayMoveTo(to)) {
            return false;
        }
        state = to;
        return true;
    }

    /** @return where it is in its life now */
    synchronized State state() {
        return state;
    }

    /**
     * Starts a warm sandbox and waits until its supervisor is ready.
     *
     * @param spawner the thread the sandbox's process is spawned on: bubblewrap's parent-death signal
     *     follows the thread that spawned it, so it must be a thread that lives as long as the pool
     * @param extraFilter the classic BPF program each command loads on top of the rung's filter
     * @param startTimeout how long the start may take
     * @param onEnded run exactly once, when the sandbox has ended (its process gone, its lease given
     *     back), or when it could not start, once nothing of the start is left
     * @return the sandbox, ready for its first command
     * @throws UncheckedIOException if it cannot be started or is not ready in time
     */
    public static WarmSandbox start(Rung.WarmLaunch launch, ExecutorService spawner, byte[] extraFilter,
            Duration startTimeout, Runnable onEnded) {
        long start = System.nanoTime();
        CompletableFuture<Process> spawned;
        try {
            spawned = CompletableFuture.supplyAsync(() -> spawn(launch), spawner);
        } catch (RuntimeException e) {
            launch.abandon();
            onEnded.run();
            throw new UncheckedIOException(new IOException("could not start a warm sandbox: " + e, e));
        }
        Process client;
        try {
            client = spawned.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            boolean interrupted = e instanceof InterruptedException;
            // A spawn that completes after all is ended before the lease goes back: nothing of it is left.
            spawned.whenComplete((late, failure) -> {
                if (late != null) {
                    launch.killTree(late);
                    late.destroyForcibly();
                    try {
                        late.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                    launch.close(late, true);
                } else {
                    launch.abandon();
                }
                onEnded.run();
            });
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new IOException("interrupted while starting a warm sandbox"));
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new UncheckedIOException("could not start a warm sandbox: " + cause,
                    cause instanceof IOException io ? io : new IOException(cause));
        }
        WarmSandbox w = new WarmSandbox(launch, client, onEnded);
        try {
            w.write(WarmProtocol.filter(extraFilter));
            w.ready.get(Math.max(1, startTimeout.toMillis() - Duration.ofNanos(System.nanoTime() - start).toMillis()),
                    TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            w.kill();
            throw new UncheckedIOException(new IOException("the warm sandbox's supervisor did not start: "
                    + (e instanceof ExecutionException ? e.getCause().getMessage() : e.toString()) + w.said()));
        } catch (InterruptedException e) {
            w.kill();
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while starting a warm sandbox"));
        }
        w.idleSinceNanos = System.nanoTime();
        if (!w.move(State.IDLE)) {
            w.kill();
            throw new UncheckedIOException(new IOException("the warm sandbox's supervisor ended as it started" + w.said()));
        }
        return w;
    }

    private static Process spawn(Launch launch) {
        ProcessBuilder pb = new ProcessBuilder(launch.argv()).directory(ROOT);
        pb.environment().clear();
        pb.environment().putAll(launch.environment());
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return since when it has been idle, by {@link System#nanoTime()} */
    public long idleSinceNanos() {
        return idleSinceNanos;
    }

    /**
     * @return the write root the sandbox bound at its start, as its supervisor saw it: the device and
     *     inode the workspace must still have for a command to run here
     */
    public WarmProtocol.Ready boundWriteRoot() {
        return ready.getNow(null);
    }

    /** @return whether it may take another command: it is idle and its supervisor is alive */
    public boolean reusable() {
        return state() == State.IDLE && client.isAlive();
    }

    /** Marks it as never to be used again; it is ended by {@link #kill()} or {@link #close()}. */
    public void spoil() {
        move(State.SPENT);
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
     * @throws NotStarted if it was not idle, the write root could not be handed over, the request
     *     could not be written, or the supervisor ended before it started the command: the command
     *     did not run
     * @throws UncheckedIOException if the supervisor ended while the command ran (the sandbox is killed)
     */
    public Supervisor.Outcome run(List<String> command, Map<String, String> env, Duration timeout, int cap)
            throws NotStarted {
        if (!client.isAlive() || !move(State.RUNNING)) {
            spoil();
            throw new NotStarted("the warm sandbox is spent", null);
        }
        Optional<SandboxIds.Claim> claimed;
        try {
            claimed = launch.claimWriteRoot(saturatedNanos(timeout));
        } catch (IOException | RuntimeException e) {
            spoil();
            throw new NotStarted("could not hand the write root over again", e);
        }
        if (claimed.isEmpty()) {
            // It was moved to RUNNING for this command: spent rather than left half-taken.
            spoil();
            throw new NotStarted("another run worked in this write root, or one nested with it, for the whole timeout", null);
        }
        SandboxIds.Claim claim = claimed.get();
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
            write(WarmProtocol.request(command, env, JNU));
        } catch (IOException e) {
            current = null;
            spoil();
            throw new NotStarted("the warm sandbox's supervisor is gone", e);
        }
        boolean interrupted = false;
        boolean timedOut = false;
        WarmProtocol.Exit exit = null;
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
            spoil();
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
        } else if (!exit.clean()) {
            spoil(); // the run is answered; the sandbox that held it is not trusted again
        }
        current = null;
        idleSinceNanos = System.nanoTime();
        if (exit != null && exit.clean() && !timedOut && !overflowed) {
            move(State.IDLE); // refused if the supervisor ended meanwhile: it is spent then
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        int status = exit != null && !timedOut && !overflowed ? exit.status() : 128 + 9;
        return new Supervisor.Outcome(status, c.out.text(), c.err.text(), timedOut && !overflowed,
                timedOut || overflowed, Duration.ofNanos(end - start));
    }

    /**
     * Ends it gently: the supervisor sees the end of its input and exits; killed if it does not soon.
     * Returns once it has ended (or another thread's end of it has).
     */
    public void close() {
        if (move(State.ENDING)) {
            try {
                synchronized (toSupervisor) {
                    toSupervisor.close();
                }
            } catch (IOException e) {
                // it is gone already
            }
            boolean exited = false;
            try {
                exited = client.waitFor(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (exited) {
                end(false);
            } else {
                killNow();
            }
        }
        awaitEnded();
    }

    /** Kills the whole sandbox now and returns once it has ended; safe to call more than once, from any thread. */
    public void kill() {
        if (move(State.ENDING)) {
            killNow();
        }
        awaitEnded();
    }

    private void killNow() {
        launch.killTree(client);
        boolean interrupted = Thread.interrupted(); // the wait below must not be cut short: the lease waits on it
        try {
            if (!client.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                client.destroyForcibly();
                LOG.log(System.Logger.Level.WARNING, "warm sandbox " + client.pid() + " did not exit after being killed");
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        end(true);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The one move to ENDED: the launch tidies up and gives its lease back, then the pool's permit goes back. */
    private void end(boolean killed) {
        if (!move(State.ENDED)) {
            return;
        }
        try {
            killLeftOf(launch.pair().uid());
            launch.close(client, killed);
        } finally {
            onEnded.run();
            ended.complete(null);
        }
    }

    /**
     * Kills any process of the sandbox's uid still alive anywhere on the host before the uid goes
     * back: with an exclusive lease every one of them was in the sandbox, whose namespace is gone, so
     * none should be; this makes sure no process of it meets the uid's next holder.
     */
    private static void killLeftOf(int uid) {
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[1-9]*")) {
            for (Path p : procs) {
                try {
                    if ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
                        ProcessHandle.of(Long.parseLong(p.getFileName().toString())).ifPresent(h -> {
                            LOG.log(System.Logger.Level.WARNING, "a process of warm sandbox uid " + uid
                                    + " outlived its sandbox: killed, pid " + h.pid());
                            h.destroyForcibly();
                        });
                    }
                } catch (IOException | NumberFormatException e) {
                    // gone while we looked
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not look for processes left of uid " + uid + ": " + e);
        }
    }

    private void awaitEnded() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ENDED_WAIT_MILLIS);
        while (!ended.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                ended.get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean endingOrEnded() {
        State s = state();
        return s == State.ENDING || s == State.ENDED;
    }

    private void write(byte[] frame) throws IOException {
        synchronized (toSupervisor) {
            toSupervisor.write(frame);
            toSupervisor.flush();
        }
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
                if (n < 0 || n > WarmProtocol.MAX_OUTPUT_FRAME) {
                    throw new IOException("a frame of " + n + " bytes");
                }
                if (buf.length < n) {
                    buf = new byte[n];
                }
                in.readFully(buf, 0, n);
                Command c = current;
                switch (tag) {
                    case WarmProtocol.TAG_READY -> ready.complete(WarmProtocol.ready(buf, n));
                    case WarmProtocol.TAG_STARTED -> {
                        if (c == null) {
                            throw new IOException("a start frame with no command under way");
                        }
                        c.accepted = true;
                    }
                    case WarmProtocol.TAG_STDOUT -> {
                        if (c != null && c.out.add(buf, n)) {
                            overflow(c);
                        }
                    }
                    case WarmProtocol.TAG_STDERR -> {
                        if (c != null && c.err.add(buf, n)) {
                            overflow(c);
                        }
                    }
                    case WarmProtocol.TAG_EXIT -> {
                        WarmProtocol.Exit exit = WarmProtocol.exit(buf, n);
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
            if (!endingOrEnded()) {
                LOG.log(System.Logger.Level.WARNING, "warm sandbox " + client.pid() + ": " + e.getMessage());
            }
        } finally {
            spoil();
            IOException end = new IOException("the warm sandbox's supervisor ended");
            ready.completeExceptionally(end);
            Command c = current;
            if (c != null) {
                c.done.completeExceptionally(end);
            }
            if (endingOrEnded()) {
                return;
            }
            // Its output ended but it lives on: it will not answer again.
            Thread killer = new Thread(this::kill, "toolyard-warm-kill");
            killer.setDaemon(true);
            killer.start();
        }
    }

    private void overflow(Command c) {
        spoil();
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

    /** One command under way: its two capped streams and its end. */
    private static final class Command {
        final Stream out;
        final Stream err;
        final CompletableFuture<WarmProtocol.Exit> done = new CompletableFuture<>();
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
