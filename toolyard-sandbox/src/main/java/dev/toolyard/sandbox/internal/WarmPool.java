package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.ProxyRoute;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The warm sandboxes of one {@code TieredSandbox}, kept per workspace: its {@link BindSet} (the write
 * root and every read root, so different workspaces never share one) and what those paths are now
 * (the device and inode of each root, read again before every reuse, so a workspace renamed away and
 * replaced at its path is a new workspace). A command takes an idle sandbox of its workspace, or one
 * being warmed up for it, or starts one; when it ends the sandbox goes back, unless it is spent
 * ({@link WarmSandbox#reusable()}) or its workspace already keeps {@code perWorkspace} idle ones. A
 * spent sandbox is discarded and, in the background, replaced. Idle sandboxes expire after
 * {@code idleTimeout}. At most {@code maxTotal} are alive at once: each holds one {@link Permit},
 * taken before it starts and given back exactly once when it has ended (or could not start), the
 * only count of live sandboxes; idle ones of other workspaces give way to a new one. When none can
 * be had, {@link #run} says so and the caller runs the command cold: never unisolated.
 *
 * <p>Every sandbox's process is spawned on one thread that lives until {@link #close()}, because
 * bubblewrap's parent-death signal follows the spawning thread. When the JVM ends, each supervisor
 * sees its input end and kills everything in its sandbox. Thread-safe.
 */
public final class WarmPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(WarmPool.class.getName());
    private static final long CLOSE_WAIT_SECONDS = 120;
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * @param perWorkspace idle sandboxes kept per workspace, at least 1
     * @param idleTimeout how long an idle sandbox is kept
     * @param maxTotal sandboxes alive at once, idle or busy, at least {@code perWorkspace}
     * @param startTimeout how long a start may take
     */
    public record Policy(int perWorkspace, Duration idleTimeout, int maxTotal, Duration startTimeout) {}

    /**
     * What a sandbox with network binds besides its workspace, the same for every call of one
     * {@code TieredSandbox}: each such sandbox gets a directory of its own in {@code directory}.
     *
     * @param relay the relay's host path, bound read-only at {@link BindSet#RELAY}
     * @param directory the sandbox's private host directory ({@code 0700}), in which each networked warm
     *     sandbox's socket directory ({@code 0711}, root's) is made, bound read-only at {@link BindSet#NETWORK_DIR}
     */
    public record NetworkFiles(Path relay, Path directory) {}

    /**
     * Network for one warm call: its own route, which listens on a socket of its own, named afresh for
     * this call, in its sandbox's socket directory, only while the call runs.
     *
     * @param files what the sandbox binds
     * @param route the call's route
     */
    public record Routed(NetworkFiles files, ProxyRoute route) {}

    /**
     * A workspace as it is now: its binds, and the device and inode of each root, write root first.
     *
     * @param roots device, inode, for the write root then each read root
     * @param enterable whether the write root's owner may enter it (its mode has the owner's x bit)
     * @param network for sandboxes whose calls have network: what they bind; empty for none. Sandboxes
     *     with network and without are never the same workspace's, so a call without network never
     *     sees the relay or the socket directory
     */
    record Workspace(BindSet binds, List<Long> roots, boolean enterable, Optional<NetworkFiles> network) {
        Workspace {
            roots = List.copyOf(roots);
        }

        /**
         * @return the workspace at {@code binds}' paths now
         * @throws IOException if a root cannot be read
         */
        static Workspace of(BindSet binds, Optional<NetworkFiles> network) throws IOException {
            List<Long> roots = new ArrayList<>(2 + 2 * binds.readRoots().size());
            int mode = add(roots, binds.writeRoot());
            for (Path r : binds.readRoots()) {
                add(roots, r);
            }
            return new Workspace(binds, roots, (mode & 0100) != 0, network);
        }

        /** @return the mode of {@code p}, whose device and inode are added to {@code roots} */
        private static int add(List<Long> roots, Path p) throws IOException {
            Map<String, Object> a = Files.readAttributes(p, "unix:dev,ino,mode", LinkOption.NOFOLLOW_LINKS);
            roots.add((Long) a.get("dev"));
            roots.add((Long) a.get("ino"));
            return (Integer) a.get("mode");
        }

        /** @return whether the sandbox bound this workspace's write root, by the device and inode its supervisor saw */
        boolean boundBy(WarmSandbox w) {
            WarmProtocol.Ready r = w.boundWriteRoot();
            return r != null && r.device() == roots.get(0) && r.inode() == roots.get(1);
        }
    }

    /** One live sandbox's share of {@code maxTotal}: given back exactly once, however often {@link #run()} is called. */
    final class Permit implements Runnable {
        private final AtomicBoolean given = new AtomicBoolean();

        @Override
        public void run() {
            if (given.compareAndSet(false, true)) {
                permits.release();
            }
        }
    }

    private final Rung rung;
    private final Path supervisor;
    private final byte[] filter;
    private final Policy policy;
    private final Semaphore permits;
    private final ExecutorService spawner;
    private final ScheduledExecutorService background;
    private final Map<Workspace, Deque<WarmSandbox>> idle = new HashMap<>();
    private final Map<Workspace, Deque<Pending>> starting = new HashMap<>();
    private final Set<WarmSandbox> alive = ConcurrentHashMap.newKeySet();
    /**
     * The roots each sandbox's workspace had on the host when it started, the same before and after its
     * start; on gVisor the proof that it bound this workspace (see {@link #bound}).
     */
    private final Map<WarmSandbox, List<Long>> startRoots = new ConcurrentHashMap<>();
    /** The socket directory of each sandbox with network, removed once the sandbox has ended. */
    private final Map<WarmSandbox, Path> socketDirectories = new ConcurrentHashMap<>();
    private boolean closed; // guarded by this
    private final AtomicLong starts = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();
    private final AtomicLong served = new AtomicLong();

    /** A sandbox warming up in the background, which a caller may claim before it is ready. */
    private static final class Pending {
        final CompletableFuture<WarmSandbox> sandbox = new CompletableFuture<>();
        boolean claimed; // guarded by the pool
    }

    /**
     * @param rung the rung whose sandboxes these are; {@link Rung#warmUnavailable()} empty
     * @param supervisor the host path of {@code toolyard-warm}
     * @param filter the classic BPF program each command loads on top of the rung's filter
     */
    public WarmPool(Rung rung, Path supervisor, byte[] filter, Policy policy) {
        this.rung = rung;
        this.supervisor = supervisor;
        this.filter = filter.clone();
        this.policy = policy;
        this.permits = new Semaphore(policy.maxTotal());
        this.spawner = Executors.newSingleThreadExecutor(r -> daemon(r, "toolyard-warm-spawner"));
        this.background = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "toolyard-warm-pool"));
        long sweep = Math.max(100, Math.min(5_000, policy.idleTimeout().toMillis() / 4));
        background.scheduleWithFixedDelay(this::expireIdle, sweep, sweep, TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Runs a command on a warm sandbox of its workspace.
     *
     * @return how it ended; empty when no warm sandbox could be had (none could start, the total cap
     *     is reached with none idle to give way, a root cannot be read, or the write root's owner may
     *     not enter it, which no supervisor could then do either), in which case the command did not run
     * @throws UncheckedIOException if the sandbox's supervisor ended while the command ran
     */
    public Optional<Supervisor.Outcome> run(BindSet binds, List<String> command, Map<String, String> env,
            Duration timeout, int cap) {
        return run(binds, command, env, timeout, cap, Optional.empty());
    }

    /**
     * As {@link #run(BindSet, List, Map, Duration, int)}, with network through {@code routed} when it is
     * present: the command runs on a sandbox of the workspace started with network (the relay and a socket
     * directory of its own bound read-only), under the relay, which listens on
     * {@code 127.0.0.1:}{@link ProxyRoute#loopbackPort()} before it starts the command and forwards each
     * connection to a socket the call's route listens on, named afresh for this call; the route stops
     * listening and the socket is removed once the command and everything it started are gone, before
     * this returns. A sandbox in whose network namespace the command left any socket (a connection in
     * {@code TIME_WAIT} included) is spent, as for any command.
     *
     * @throws UncheckedIOException if the call's socket cannot be made (the command did not run)
     */
    public Optional<Supervisor.Outcome> run(BindSet binds, List<String> command, Map<String, String> env,
            Duration timeout, int cap, Optional<Routed> routed) {
        for (int attempt = 0; attempt < 2; attempt++) {
            Workspace ws;
            try {
                ws = Workspace.of(binds, routed.map(Routed::files));
            } catch (IOException e) {
                return Optional.empty();
            }
            if (!ws.enterable()) {
                return Optional.empty(); // as a cold run finds it: no sandbox uid could enter it
            }
            Optional<WarmSandbox> taken = take(ws, timeout);
            if (taken.isEmpty()) {
                return Optional.empty();
            }
            WarmSandbox w = taken.get();
            if (!bound(ws, w)) {
                discard(w, ws); // the path changed between the look and the start: not this workspace's
                continue;
            }
            Supervisor.Outcome outcome;
            try {
                outcome = routed.isPresent() ? runRouted(w, routed.get().route(), command, env, timeout, cap)
                        : w.run(command, env, timeout, cap);
            } catch (WarmSandbox.NotStarted e) {
                LOG.log(System.Logger.Level.DEBUG, "a warm sandbox could not take a command: " + e.getMessage());
                discard(w, ws);
                continue; // it never ran: a fresh sandbox answers it
            } catch (RuntimeException e) {
                discard(w, ws);
                throw e;
            }
            giveBack(w, ws);
            served.incrementAndGet();
            return Optional.of(outcome);
        }
        return Optional.empty();
    }

    /**
     * Whether {@code w} bound the write root of {@code ws}. Where the supervisor sees the host's device
     * and inode through the bind (runc, bubblewrap), by those ({@link Workspace#boundBy}). gVisor's kernel
     * shows its own (a device of its own, inode 1 for the root of a bind), so there it is the host's
     * roots at the sandbox's start, read before the start and again after it ({@link #startOne}): the
     * same directories, as {@code ws} has them now. What that leaves open is a root replaced and put
     * back within one start, which only something with write access to the root's parent can do.
     */
    private boolean bound(Workspace ws, WarmSandbox w) {
        if (rung.tier() == dev.toolyard.IsolationTier.GVISOR) {
            return ws.roots().equals(startRoots.get(w));
        }
        return ws.boundBy(w);
    }

    /**
     * One call with network on {@code w}: a socket of its own, named afresh (96 random bits), in the
     * sandbox's socket directory, which holds nothing else; the relay in front of the command.
     */
    private Supervisor.Outcome runRouted(WarmSandbox w, ProxyRoute route, List<String> command, Map<String, String> env,
            Duration timeout, int cap) throws WarmSandbox.NotStarted {
        Path dir = socketDirectories.get(w);
        if (dir == null) {
            throw new WarmSandbox.NotStarted("the warm sandbox has no socket directory", null);
        }
        // 96 random bits, and short: a unix socket's whole host path must fit in 107 bytes.
        String name = "c-" + HexFormat.of().toHexDigits(RANDOM.nextLong()) + HexFormat.of().toHexDigits(RANDOM.nextInt()) + ".sock";
        Path socket = dir.resolve(name);
        List<String> relayed = new ArrayList<>(command.size() + 4);
        relayed.add(BindSet.RELAY);
        relayed.add(Integer.toString(route.loopbackPort()));
        relayed.add(BindSet.NETWORK_DIR + "/" + name);
        relayed.add("--");
        relayed.addAll(command);
        Closeable listener;
        try {
            listener = route.listen(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("could not set up the command's network", e);
        }
        try {
            return w.run(relayed, env, timeout, cap);
        } finally {
            try {
                listener.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing a warm call's route: " + e);
            }
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                // A socket left in the directory could be reached by no later call's relay, which is given
                // another name; the sandbox, which cannot tell, is not used again.
                w.spoil();
                LOG.log(System.Logger.Level.WARNING, "could not remove a warm call's socket " + socket + ": " + e);
            }
        }
    }

    /**
     * Starts, in the background, as many sandboxes for {@code binds} as it lacks of {@code perWorkspace},
     * within the total cap.
     */
    public void warmUp(BindSet binds) {
        Workspace ws;
        try {
            ws = Workspace.of(binds, Optional.empty());
        } catch (IOException e) {
            return;
        }
        warmUp(ws);
    }

    private void warmUp(Workspace ws) {
        List<Pending> started = new ArrayList<>();
        List<Permit> held = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            int have = idle.getOrDefault(ws, new ArrayDeque<>()).size() + starting.getOrDefault(ws, new ArrayDeque<>()).size();
            while (have < policy.perWorkspace() && permits.tryAcquire()) {
                Pending p = new Pending();
                starting.computeIfAbsent(ws, k -> new ArrayDeque<>()).add(p);
                have++;
                started.add(p);
                held.add(new Permit());
            }
        }
        for (int i = 0; i < started.size(); i++) {
            Pending p = started.get(i);
            Permit permit = held.get(i);
            try {
                background.execute(() -> startInBackground(ws, p, permit));
            } catch (RejectedExecutionException e) {
                abandonPending(ws, p, permit, e); // closing
            }
        }
    }

    private void abandonPending(Workspace ws, Pending p, Permit permit, Exception why) {
        synchronized (this) {
            Deque<Pending> q = starting.get(ws);
            if (q != null) {
                q.remove(p);
            }
            p.sandbox.completeExceptionally(why);
        }
        permit.run();
    }

    private void startInBackground(Workspace ws, Pending p, Permit permit) {
        synchronized (this) {
            if (closed) {
                abandonPending(ws, p, permit, new IllegalStateException("the pool is closed"));
                return;
            }
        }
        WarmSandbox w;
        try {
            w = startOne(ws, permit);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "a warm sandbox could not start in the background: " + e.getMessage());
            abandonPending(ws, p, permit, e); // the start gave its permit back already; giving it twice does nothing
            return;
        }
        boolean end;
        synchronized (this) {
            Deque<Pending> q = starting.get(ws);
            if (q != null) {
                q.remove(p);
            }
            end = closed;
            if (end) {
                p.sandbox.completeExceptionally(new IllegalStateException("the pool is closed"));
            } else if (p.claimed) {
                p.sandbox.complete(w); // under the lock: a claimer that gives up sees either this or unclaimed
            } else {
                idle.computeIfAbsent(ws, k -> new ArrayDeque<>()).push(w);
            }
        }
        if (end) {
            w.kill();
        }
    }

    private Optional<WarmSandbox> take(Workspace ws, Duration timeout) {
        List<WarmSandbox> toEnd = new ArrayList<>();
        Pending claimed = null;
        Permit permit = null;
        WarmSandbox found = null;
        WarmSandbox givesWay = null;
        synchronized (this) {
            if (closed) {
                return Optional.empty();
            }
            dropOldTenants(ws, toEnd);
            Deque<WarmSandbox> q = idle.get(ws);
            while (q != null && !q.isEmpty() && found == null) {
                WarmSandbox w = q.pop();
                if (w.reusable()) {
                    found = w;
                } else {
                    toEnd.add(w);
                }
            }
            if (found == null) {
                Deque<Pending> s = starting.get(ws);
                if (s != null && !s.isEmpty()) {
                    claimed = s.poll();
                    claimed.claimed = true;
                } else if (permits.tryAcquire()) {
                    permit = new Permit();
                } else {
                    givesWay = oldestIdleElsewhere(ws);
                }
            }
        }
        toEnd.forEach(this::endInBackground);
        if (found != null) {
            return Optional.of(found);
        }
        if (claimed != null) {
            return awaitClaimed(ws, claimed);
        }
        if (givesWay != null) {
            givesWay.close(); // its permit comes back once it has ended
            try {
                if (permits.tryAcquire(policy.startTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                    permit = new Permit();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (permit == null) {
            return Optional.empty();
        }
        try {
            WarmSandbox w = startOne(ws, permit);
            boolean late;
            synchronized (this) {
                late = closed;
            }
            if (late) {
                w.kill();
                return Optional.empty();
            }
            return Optional.of(w);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a warm sandbox could not start; the command runs cold: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Waits for a sandbox warming up for this caller. A caller that gives up (its start is slow, or
     * the caller is interrupted) leaves it to the pool: idle once it is ready, never to no one.
     */
    private Optional<WarmSandbox> awaitClaimed(Workspace ws, Pending claimed) {
        boolean interrupted = false;
        try {
            return Optional.of(claimed.sandbox.get(policy.startTimeout().toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            return Optional.empty(); // its start failed, and gave its permit back
        } catch (TimeoutException e) {
            // slow: run cold
        } catch (InterruptedException e) {
            interrupted = true;
        }
        WarmSandbox ready = null;
        synchronized (this) {
            if (claimed.sandbox.isDone()) {
                ready = claimed.sandbox.getNow(null);
            } else {
                claimed.claimed = false; // the start puts it idle
            }
        }
        if (ready != null) {
            giveBack(ready, ws);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    /** Moves the idle sandboxes of {@code ws}'s paths that bound another directory there out of the pool. */
    private void dropOldTenants(Workspace ws, List<WarmSandbox> toEnd) {
        Iterator<Map.Entry<Workspace, Deque<WarmSandbox>>> it = idle.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Workspace, Deque<WarmSandbox>> e = it.next();
            if (e.getKey().binds().equals(ws.binds()) && e.getKey().network().equals(ws.network()) && !e.getKey().equals(ws)) {
                toEnd.addAll(e.getValue());
                it.remove();
            }
        }
    }

    /** @return the idle sandbox of another workspace idle longest, removed from the pool; {@code null} if none */
    private WarmSandbox oldestIdleElsewhere(Workspace ws) {
        WarmSandbox oldest = null;
        Deque<WarmSandbox> from = null;
        for (Map.Entry<Workspace, Deque<WarmSandbox>> e : idle.entrySet()) {
            if (e.getKey().equals(ws)) {
                continue;
            }
            for (WarmSandbox w : e.getValue()) {
                if (oldest == null || w.idleSinceNanos() < oldest.idleSinceNanos()) {
                    oldest = w;
                    from = e.getValue();
                }
            }
        }
        if (oldest != null) {
            from.remove(oldest);
        }
        return oldest;
    }

    /** Starts a sandbox holding {@code permit}, which goes back exactly once: when it has ended, or if it cannot start. */
    private WarmSandbox startOne(Workspace ws, Permit permit) {
        Rung.WarmLaunch launch;
        Path socketDirectory = null;
        try {
            BindSet binds = ws.binds();
            if (ws.network().isPresent()) {
                socketDirectory = socketDirectory(ws.network().get());
                binds = binds.withNetwork(new BindSet.Network(ws.network().get().relay(), socketDirectory));
            }
            launch = rung.prepareWarm(binds, supervisor, policy.startTimeout());
        } catch (RuntimeException e) {
            removeSocketDirectory(socketDirectory);
            permit.run();
            throw e;
        }
        WarmSandbox[] self = new WarmSandbox[1];
        Path dir = socketDirectory;
        WarmSandbox w = WarmSandbox.start(launch, spawner, filter, policy.startTimeout(), () -> {
            if (self[0] != null) {
                alive.remove(self[0]);
                socketDirectories.remove(self[0]);
                startRoots.remove(self[0]);
            }
            removeSocketDirectory(dir);
            permit.run();
        });
        self[0] = w;
        if (dir != null) {
            socketDirectories.put(w, dir);
        }
        alive.add(w);
        if (w.state() == WarmSandbox.State.ENDED) {
            alive.remove(w);
        }
        starts.incrementAndGet();
        try {
            if (!Workspace.of(ws.binds(), ws.network()).roots().equals(ws.roots())) {
                throw new IOException("a root of the workspace was replaced while its sandbox started");
            }
            if (w.state() != WarmSandbox.State.ENDED) {
                startRoots.put(w, ws.roots());
            }
        } catch (IOException e) {
            w.kill();
            throw new UncheckedIOException(e);
        }
        return w;
    }

    /** @return a new socket directory for one sandbox: root's, {@code 0711}, so a command can connect to a socket it names but list nothing */
    private static Path socketDirectory(NetworkFiles files) {
        try {
            Path dir = Files.createDirectory(files.directory().resolve("w-" + HexFormat.of().toHexDigits(RANDOM.nextLong()).substring(4)),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("could not make a warm sandbox's socket directory", e);
        }
    }

    /** Removes a socket directory and what was left in it (a socket whose removal failed), once its sandbox has ended. */
    private static void removeSocketDirectory(Path dir) {
        if (dir == null) {
            return;
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(dir)) {
            for (Path p : left) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove the socket directory " + dir + ": " + e);
        }
    }

    private void giveBack(WarmSandbox w, Workspace ws) {
        if (!w.reusable()) {
            discard(w, ws);
            return;
        }
        boolean keep;
        synchronized (this) {
            Deque<WarmSandbox> q = idle.computeIfAbsent(ws, k -> new ArrayDeque<>());
            keep = !closed && q.size() < policy.perWorkspace();
            if (keep) {
                q.push(w);
            }
        }
        if (!keep) {
            endInBackground(w);
        }
    }

    /** A spent sandbox: never used again, ended in the background, and replaced in the background. */
    private void discard(WarmSandbox w, Workspace ws) {
        discarded.incrementAndGet();
        w.spoil();
        endInBackground(w);
        warmUp(ws);
    }

    private void endInBackground(WarmSandbox w) {
        try {
            background.execute(w.reusable() ? w::close : w::kill);
        } catch (RejectedExecutionException e) {
            w.kill(); // the pool is closing
        }
    }

    private void expireIdle() {
        long now = System.nanoTime();
        long limit = policy.idleTimeout().toNanos();
        List<WarmSandbox> expired = new ArrayList<>();
        synchronized (this) {
            for (Deque<WarmSandbox> q : idle.values()) {
                Iterator<WarmSandbox> it = q.iterator();
                while (it.hasNext()) {
                    WarmSandbox w = it.next();
                    if (now - w.idleSinceNanos() >= limit || !w.reusable()) {
                        it.remove();
                        expired.add(w);
                    }
                }
            }
            idle.values().removeIf(Deque::isEmpty);
        }
        for (WarmSandbox w : expired) {
            if (w.reusable()) {
                w.close();
            } else {
                w.kill();
            }
        }
    }

    /** @return sandboxes alive now, idle, busy or starting: the permits held */
    public int live() {
        return policy.maxTotal() - permits.availablePermits();
    }

    /** @return idle sandboxes now, over all workspaces */
    public synchronized int idleCount() {
        int n = 0;
        for (Deque<WarmSandbox> q : idle.values()) {
            n += q.size();
        }
        return n;
    }

    /** @return sandboxes started so far */
    public long starts() {
        return starts.get();
    }

    /** @return commands answered by a warm sandbox so far */
    public long served() {
        return served.get();
    }

    /** @return sandboxes discarded as spent so far */
    public long discarded() {
        return discarded.get();
    }

    /**
     * Ends every sandbox and stops the pool: idle ones are ended, the kills and closes already queued
     * run to their end, a warm-up not yet under way does not start, a command under way on a warm
     * sandbox is killed with it (its run throws), and nothing starts any more. Returns once every
     * sandbox has ended and given back its uid (within two minutes). Idempotent.
     */
    @Override
    public void close() {
        List<WarmSandbox> idleOnes = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            idle.values().forEach(idleOnes::addAll);
            idle.clear();
        }
        background.shutdown(); // what is queued still runs: a queued kill must not be dropped
        idleOnes.forEach(WarmSandbox::close);
        boolean interrupted = false;
        try {
            if (!background.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "the warm pool's background work did not end in time");
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        for (WarmSandbox w : new ArrayList<>(alive)) {
            w.kill(); // busy ones, and any a start finished meanwhile
        }
        spawner.shutdown();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
