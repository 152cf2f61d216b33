package dev.toolyard.sandbox.internal;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The warm sandboxes of one {@code TieredSandbox}, kept per workspace (its {@link BindSet}: the write
 * root and every read root, so different workspaces never share one). A command takes an idle
 * sandbox of its workspace, or one being warmed up for it, or starts one; when it ends the sandbox
 * goes back, unless it is spent ({@link WarmSandbox#reusable()}) or its workspace already keeps
 * {@code perWorkspace} idle ones. A spent sandbox is discarded and, in the background, replaced.
 * Idle sandboxes expire after {@code idleTimeout}; at most {@code maxTotal} are alive at once, idle
 * ones of other workspaces giving way to a new one. When none can be had, {@link #run} says so and
 * the caller runs the command cold: never unisolated.
 *
 * <p>Every sandbox's process is spawned on one thread that lives until {@link #close()}, because
 * bubblewrap's parent-death signal follows the spawning thread. When the JVM ends, each supervisor
 * sees its input end and kills everything in its sandbox. Thread-safe.
 */
public final class WarmPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(WarmPool.class.getName());

    /**
     * @param perWorkspace idle sandboxes kept per workspace, at least 1
     * @param idleTimeout how long an idle sandbox is kept
     * @param maxTotal sandboxes alive at once, idle or busy, at least {@code perWorkspace}
     * @param startTimeout how long a start may take
     */
    public record Policy(int perWorkspace, Duration idleTimeout, int maxTotal, Duration startTimeout) {}

    private final Rung rung;
    private final Path supervisor;
    private final byte[] filter;
    private final Policy policy;
    private final ExecutorService spawner;
    private final ScheduledExecutorService background;
    private final Map<BindSet, Deque<WarmSandbox>> idle = new HashMap<>();
    private final Map<BindSet, Deque<Pending>> starting = new HashMap<>();
    private int live; // guarded by this: idle, busy and starting
    private boolean closed; // guarded by this
    private final AtomicLong starts = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();
    private final AtomicLong served = new AtomicLong();

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
     * @return how it ended; empty when no warm sandbox could be had (none could start, or the total
     *     cap is reached with none idle to give way), in which case the command did not run
     * @throws UncheckedIOException if the sandbox's supervisor ended while the command ran
     */
    public Optional<Supervisor.Outcome> run(BindSet binds, List<String> command, Map<String, String> env,
            Duration timeout, int cap) {
        for (int attempt = 0; attempt < 2; attempt++) {
            Optional<WarmSandbox> taken = take(binds, timeout);
            if (taken.isEmpty()) {
                return Optional.empty();
            }
            WarmSandbox w = taken.get();
            Supervisor.Outcome outcome;
            try {
                outcome = w.run(command, env, timeout, cap);
            } catch (WarmSandbox.NotStarted e) {
                LOG.log(System.Logger.Level.DEBUG, "a warm sandbox could not take a command: " + e.getMessage());
                discard(w, binds);
                continue; // it never ran: a fresh sandbox answers it
            } catch (RuntimeException e) {
                discard(w, binds);
                throw e;
            }
            giveBack(w, binds);
            served.incrementAndGet();
            return Optional.of(outcome);
        }
        return Optional.empty();
    }

    /**
     * Starts, in the background, as many sandboxes for {@code binds} as it lacks of {@code perWorkspace},
     * within the total cap.
     */
    public void warmUp(BindSet binds) {
        List<Pending> started = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            int have = idle.getOrDefault(binds, new ArrayDeque<>()).size() + starting.getOrDefault(binds, new ArrayDeque<>()).size();
            while (have < policy.perWorkspace() && live < policy.maxTotal()) {
                Pending p = new Pending();
                starting.computeIfAbsent(binds, k -> new ArrayDeque<>()).add(p);
                live++;
                have++;
                started.add(p);
            }
        }
        for (Pending p : started) {
            background.execute(() -> startInBackground(binds, p));
        }
    }

    private void startInBackground(BindSet binds, Pending p) {
        WarmSandbox w;
        try {
            w = startOne(binds);
        } catch (RuntimeException e) {
            synchronized (this) {
                live--;
                Deque<Pending> q = starting.get(binds);
                if (q != null) {
                    q.remove(p);
                }
            }
            LOG.log(System.Logger.Level.DEBUG, "a warm sandbox could not start in the background: " + e.getMessage());
            p.sandbox.completeExceptionally(e);
            return;
        }
        boolean keep;
        synchronized (this) {
            Deque<Pending> q = starting.get(binds);
            if (q != null) {
                q.remove(p);
            }
            keep = !p.claimed && !closed;
            if (keep) {
                idle.computeIfAbsent(binds, k -> new ArrayDeque<>()).push(w);
            } else if (!p.claimed) {
                live--;
            }
        }
        if (p.claimed) {
            p.sandbox.complete(w);
        } else if (!keep) {
            w.close();
        }
    }

    private Optional<WarmSandbox> take(BindSet binds, Duration timeout) {
        List<WarmSandbox> toClose = new ArrayList<>();
        Pending claimed = null;
        boolean startHere = false;
        WarmSandbox found = null;
        synchronized (this) {
            if (closed) {
                return Optional.empty();
            }
            Deque<WarmSandbox> q = idle.get(binds);
            while (q != null && !q.isEmpty() && found == null) {
                WarmSandbox w = q.pop();
                if (w.reusable()) {
                    found = w;
                } else {
                    toClose.add(w);
                    live--;
                }
            }
            if (found == null) {
                Deque<Pending> s = starting.get(binds);
                if (s != null && !s.isEmpty()) {
                    claimed = s.poll();
                    claimed.claimed = true;
                } else if (live < policy.maxTotal()) {
                    live++;
                    startHere = true;
                } else {
                    WarmSandbox oldest = oldestIdleElsewhere(binds);
                    if (oldest != null) {
                        toClose.add(oldest); // gives way: the count stays, for the one started here
                        startHere = true;
                    }
                }
            }
        }
        toClose.forEach(this::closeInBackground);
        if (found != null) {
            return Optional.of(found);
        }
        if (claimed != null) {
            try {
                return Optional.of(claimed.sandbox.get(policy.startTimeout().toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException | TimeoutException e) {
                return Optional.empty(); // its start failed (and uncounted itself) or is slow: run cold
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        if (!startHere) {
            return Optional.empty();
        }
        try {
            return Optional.of(startOne(binds));
        } catch (RuntimeException e) {
            synchronized (this) {
                live--;
            }
            LOG.log(System.Logger.Level.WARNING, "a warm sandbox could not start; the command runs cold: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** @return the idle sandbox of another workspace idle longest, removed from the pool; {@code null} if none */
    private WarmSandbox oldestIdleElsewhere(BindSet binds) {
        WarmSandbox oldest = null;
        Deque<WarmSandbox> from = null;
        for (Map.Entry<BindSet, Deque<WarmSandbox>> e : idle.entrySet()) {
            if (e.getKey().equals(binds)) {
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

    private WarmSandbox startOne(BindSet binds) {
        Rung.WarmLaunch launch = rung.prepareWarm(binds, supervisor, policy.startTimeout());
        WarmSandbox w = WarmSandbox.start(launch, spawner, filter, policy.startTimeout());
        starts.incrementAndGet();
        return w;
    }

    private void giveBack(WarmSandbox w, BindSet binds) {
        if (!w.reusable()) {
            discard(w, binds);
            return;
        }
        boolean keep;
        synchronized (this) {
            Deque<WarmSandbox> q = idle.computeIfAbsent(binds, k -> new ArrayDeque<>());
            keep = !closed && q.size() < policy.perWorkspace();
            if (keep) {
                q.push(w);
            } else {
                live--;
            }
        }
        if (!keep) {
            closeInBackground(w);
        }
    }

    /** A spent sandbox: never used again, ended in the background, and replaced in the background. */
    private void discard(WarmSandbox w, BindSet binds) {
        discarded.incrementAndGet();
        synchronized (this) {
            live--;
        }
        closeInBackground(w);
        warmUp(binds);
    }

    private void closeInBackground(WarmSandbox w) {
        try {
            background.execute(w.reusable() ? w::close : w::kill);
        } catch (java.util.concurrent.RejectedExecutionException e) {
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
                        live--;
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

    /** @return sandboxes alive now, idle, busy or starting */
    public synchronized int live() {
        return live;
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
     * Ends every sandbox and stops the pool: idle ones are ended and waited for; a command under way
     * on a warm sandbox is killed with it (its run throws); nothing starts any more. Idempotent.
     */
    @Override
    public void close() {
        List<WarmSandbox> all = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Deque<WarmSandbox> q : idle.values()) {
                all.addAll(q);
                live -= q.size();
            }
            idle.clear();
        }
        background.shutdownNow(); // a warm-up under way is interrupted, and ends what it started
        try {
            background.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (WarmSandbox w : all) {
            w.close();
        }
        spawner.shutdown();
    }
}
