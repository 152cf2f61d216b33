package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;

/**
 * The host uids and gids commands run as when this process is root, lent as {@link Lease}s. Two
 * processes that share a uid can reach each other: signals, {@code /proc/PID/mem} and
 * {@code environ}, descriptors passed over a socket, one process count ({@code RLIMIT_NPROC} counts a
 * real uid's processes across the host). So a uid is lent to one holder at a time, and:
 *
 * <ul>
 *   <li><b>Across processes.</b> A lease holds its uid's lock file ({@link HostUidLocks}, under
 *       {@value HostUidLocks#DEFAULT}) for its whole life; the kernel drops the lock when the process
 *       dies. A uid whose lock another process holds, or that some process on the host runs as, is
 *       never lent. No two processes ever lend one uid at once.</li>
 *   <li><b>Kept pairs.</b> A cold run's released pair keeps its host lock for 2 s (an exclusive
 *       lease's drops it at once), so no other process lends it meanwhile; while any is kept, a keeper
 *       thread scans the host for the kept uids every 400 ms and drops each some process runs as. A kept
 *       pair is lent without a host scan of its own when the last scan that found its uid clean is at
 *       most 1 s old and either the run is one of the same write root (whose runs may share a uid
 *       anyway) or that scan was made after the release. So every pair is lent on a host scan at most a
 *       second old, made while this process held its lock: what that misses is a process that comes to
 *       run as the uid within that second without taking the lock, as the scan at lending would miss one
 *       that came between the scan and the run.</li>
 *   <li><b>A warm sandbox</b> ({@link #acquireExclusive}) holds its uid alone for its whole life, idle
 *       or busy: no cold run and no other sandbox gets it. Before each command it {@link Lease#claim
 *       claims} its write root.</li>
 *   <li><b>Cold runs</b> ({@link #acquireHandedOver}) of exactly one write root under way at once, in
 *       this pool, share one uid (and so one process count): the second run's hand-over would otherwise
 *       take from the first run's command the files it is working on. They are one workspace's commands,
 *       which can already reach each other through the workspace.</li>
 *   <li><b>Trees.</b> A write root is worked in by one uid at a time: a run or a claim whose write root
 *       contains, lies inside or is another one in use (a workspace {@code W} and {@code W/sub}) waits
 *       until that one ends, unless it is a cold run of the very same root that may share (above). So no
 *       hand-over ever walks a tree in which another uid's command works (it could rename a planted hard
 *       link or a FIFO over a name the walk has just checked), and nested workspaces never share a uid.
 *       A run waiting for a tree is not overtaken by runs that would share it.</li>
 * </ul>
 *
 * The pairs are {@code (firstUid + i, firstGid + i)} for {@code i < count}; a released pair is lent
 * again first, so that runs one after another keep one owner for a workspace's files and the hand-over
 * finds little to change. What is lent is tracked for the whole JVM, so pools over overlapping blocks
 * never lend one uid twice. Thread-safe.
 */
public final class SandboxIds {
    private static final System.Logger LOG = System.getLogger(SandboxIds.class.getName());
    /** How often a waiting run looks again for a pair another process may have released. */
    private static final long HOST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Guards everything static, and every pool's free list. */
    private static final Object LOCK = new Object();
    /** Uids lent right now by any pool of this JVM, with their host locks. */
    private static final Map<Integer, Lent> LENT = new HashMap<>();
    /**
     * How long a cold run's released pair keeps its host lock, so that the next cold run of its write
     * root (or any run, once a host scan made after the release found it clean) is lent it without a
     * host scan of its own; then the lock is dropped.
     */
    static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How old the last host scan that found a kept pair's uid clean may be for the pair to be lent on it. */
    static final long FRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often the keeper scans the host for the kept uids (and drops what it must) while there are some. */
    static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(400);
    /** Released cold-run pairs whose host locks this JVM keeps, by uid. */
    private static final Map<Integer, Kept> KEPT = new HashMap<>();
    /** Made when a pair is first kept; its daemon thread scans for the kept uids. */
    private static ScheduledExecutorService keeper;
    private static boolean checkPending;
    /** How many host scans lending has made in this JVM (the keeper's not counted). */
    private static long lendingScans;
    /** The write roots in use: by a share of cold runs, or by a warm sandbox's claim. */
    private static final List<Tree> TREES = new ArrayList<>();
    /** The write roots of runs and claims waiting for a tree to be free, one entry per waiter. */
    private static final List<Path> WAITING = new ArrayList<>();
    private static final Map<Path, HostUidLocks> LOCK_DIRECTORIES = new HashMap<>();

    private final int firstUid;
    private final int firstGid;
    private final int count;
    private final HostUidLocks hostLocks;
    private final Deque<Integer> free = new ArrayDeque<>();

    /** The uid and gid a command runs as. */
    public record Pair(int uid, int gid) {}

    /**
     * A lent uid's host lock, and the start ({@link System#nanoTime}) of the last host scan that found
     * no process running as it before it was lent.
     */
    private record Lent(HostUidLocks.Held held, long cleanAt) {}

    /** A released cold-run pair whose host lock is kept: no other process can lend it meanwhile. */
    private static final class Kept {
        final Pair pair;
        final HostUidLocks.Held held;
        /** The write root of the run that released it. */
        final Path root;
        final long releasedAt;
        /** The start of the last host scan that found no process running as the uid. */
        long cleanAt;

        Kept(Pair pair, HostUidLocks.Held held, Path root, long releasedAt, long cleanAt) {
            this.pair = pair;
            this.held = held;
            this.root = root;
            this.releasedAt = releasedAt;
            this.cleanAt = cleanAt;
        }

        /**
         * Whether it may be lent without a host scan now: the last scan that found it clean is at most
         * {@link #FRESH_NANOS} old and, unless the next run is one of the same write root (whose runs may
         * share a uid anyway), was made after the release.
         */
        boolean lendableWithoutScan(Path writeRoot, long now) {
            return now - cleanAt <= FRESH_NANOS && (root.equals(writeRoot) || cleanAt - releasedAt >= 0);
        }
    }

    /** A write root in use. */
    private static final class Tree {
        final Path root;
        final Pair pair;
        final SandboxIds pool;
        /** A share of cold runs (others of the same root and pool may join), or a warm sandbox's claim. */
        final boolean share;
        /** Done once the run that took the tree has handed it over (or failed to). */
        final CompletableFuture<Void> handedOver = new CompletableFuture<>();
        int runs = 1;

        Tree(Path root, Pair pair, SandboxIds pool, boolean share) {
            this.root = root;
            this.pair = pair;
            this.pool = pool;
            this.share = share;
        }
    }

    /**
     * One uid and gid lent. {@link #close()} releases it exactly once, however often it is called; a
     * cold run's lease shares its pair with the other cold runs of its write root, and the pair is
     * released when the last of them closes. Thread-safe.
     */
    public final class Lease implements AutoCloseable {
        private final Pair pair;
        private final boolean exclusive;
        /** The cold run's tree; {@code null} for an exclusive lease. */
        private final Tree tree;
        private final AtomicBoolean released = new AtomicBoolean();
        private Claim claim; // guarded by LOCK

        private Lease(Pair pair, boolean exclusive, Tree tree) {
            this.pair = pair;
            this.exclusive = exclusive;
            this.tree = tree;
        }

        /** @return the uid */
        public int uid() {
            return pair.uid();
        }

        /** @return the gid */
        public int gid() {
            return pair.gid();
        }

        /** @return the uid and gid */
        public Pair pair() {
            return pair;
        }

        /** @return whether no one else can hold this uid while the lease lives ({@link #acquireExclusive}) */
        public boolean exclusive() {
            return exclusive;
        }

        /** @return whether {@link #close()} was called */
        public boolean released() {
            return released.get();
        }

        /**
         * Claims {@code writeRoot} for one command of the warm sandbox holding this exclusive lease:
         * waits until no other run or claim works in a tree that contains it, lies inside it or is it,
         * then hands it over to this lease's pair ({@link WriteRootHandover}). Close the claim once the
         * command and everything it started are gone.
         *
         * @param writeRoot the write root, a real path
         * @param waitNanos how long to wait at most for the tree
         * @return the claim; empty if the tree was not free in time, or the thread was interrupted (its
         *     flag is then set again)
         * @throws IllegalStateException if this lease is not exclusive, is released, or has a claim open
         * @throws IOException if the hand-over failed (nothing is then claimed)
         */
        public Optional<Claim> claim(Path writeRoot, long waitNanos) throws IOException {
            if (!exclusive) {
                throw new IllegalStateException("only an exclusive lease claims write roots; a cold run's lease has its own");
            }
            long deadline = System.nanoTime() + waitNanos;
            Tree t;
            synchronized (LOCK) {
                if (released.get()) {
                    throw new IllegalStateException("the lease of uid " + uid() + " is released");
                }
                if (claim != null) {
                    throw new IllegalStateException("the lease of uid " + uid() + " has a claim open on " + claim.tree.root);
                }
                if (!awaitFreeTree(writeRoot, deadline)) {
                    return Optional.empty();
                }
                t = new Tree(writeRoot, pair, SandboxIds.this, false);
                TREES.add(t);
                claim = new Claim(this, t);
            }
            try {
                WriteRootHandover.handOver(writeRoot, pair, SandboxIds.this);
                t.handedOver.complete(null);
            } catch (IOException | RuntimeException | Error e) {
                t.handedOver.completeExceptionally(e);
                claim.close();
                throw e;
            }
            return Optional.of(claim);
        }

        /**
         * Releases the pair (for a cold run, when no other run of its write root holds it), and with it
         * the uid's host lock; closes an open claim first. Only the first call does anything.
         */
        @Override
        public void close() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            synchronized (LOCK) {
                if (claim != null) {
                    claim.close();
                }
                if (tree != null) {
                    if (--tree.runs > 0) {
                        return;
                    }
                    TREES.remove(tree);
                }
                giveBack(pair, tree == null ? null : tree.root);
                LOCK.notifyAll();
            }
        }

        @Override
        public String toString() {
            return (exclusive ? "exclusive " : "") + "lease of uid " + uid() + ", gid " + gid()
                    + (released.get() ? " (released)" : "");
        }
    }

    /** A write root claimed by an exclusive lease for one command. {@link #close()} frees it exactly once. */
    public final class Claim implements AutoCloseable {
        private final Lease lease;
        private final Tree tree;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Claim(Lease lease, Tree tree) {
            this.lease = lease;
            this.tree = tree;
        }

        /** @return the write root claimed */
        public Path writeRoot() {
            return tree.root;
        }

        /** Frees the write root for other runs. Only the first call does anything. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            synchronized (LOCK) {
                TREES.remove(tree);
                if (lease.claim == this) {
                    lease.claim = null;
                }
                LOCK.notifyAll();
            }
        }
    }

    /**
     * A pool whose leases lock their uids under {@value HostUidLocks#DEFAULT}.
     *
     * @param firstUid the first uid, at least 1
     * @param firstGid the first gid, at least 1
     * @param count how many pairs, at least 1
     */
    public SandboxIds(int firstUid, int firstGid, int count) {
        this(firstUid, firstGid, count, Path.of(HostUidLocks.DEFAULT));
    }

    /**
     * @param lockDirectory where the uids' lock files are: root's, {@code 0700} (made so when missing)
     */
    SandboxIds(int firstUid, int firstGid, int count, Path lockDirectory) {
        this.firstUid = firstUid;
        this.firstGid = firstGid;
        this.count = count;
        synchronized (LOCK) {
            this.hostLocks = LOCK_DIRECTORIES.computeIfAbsent(lockDirectory.toAbsolutePath().normalize(), HostUidLocks::new);
        }
        for (int i = 0; i < count; i++) {
            free.addLast(i);
        }
    }

    /** @return whether {@code uid} is one this pool lends */
    public boolean owns(int uid) {
        return uid >= firstUid && uid - firstUid < count;
    }

    /** @return whether {@code gid} is one this pool lends */
    public boolean ownsGroup(int gid) {
        return gid >= firstGid && gid - firstGid < count;
    }

    /** @return the first uid */
    public int firstUid() {
        return firstUid;
    }

    /** @return the first gid */
    public int firstGid() {
        return firstGid;
    }

    /** @return how many pairs the pool lends */
    public int count() {
        return count;
    }

    /** @return the directory of the uids' lock files */
    public Path lockDirectory() {
        return hostLocks.directory();
    }

    /**
     * Checks (and creates when missing) the directory of the uids' lock files, so that a sandbox that
     * will lend uids fails at its start rather than at its first run.
     *
     * @throws IOException naming the directory and what is wrong with it
     */
    public void checkLockDirectory() throws IOException {
        hostLocks.ensureDirectory();
    }

    /**
     * Lends a warm sandbox a pair no one else holds while the lease lives: no cold run, no other
     * sandbox, no other process. Its write root is {@link Lease#claim claimed} before each command.
     *
     * @param waitNanos how long to wait at most for a pair
     * @return the lease; empty if no pair was free in time, or the thread was interrupted (its flag is
     *     then set again)
     * @throws UncheckedIOException if the uid lock directory is not one to trust, or cannot be made
     */
    public Optional<Lease> acquireExclusive(long waitNanos) {
        long deadline = System.nanoTime() + waitNanos;
        synchronized (LOCK) {
            Optional<Pair> pair = awaitPair(deadline, null);
            return pair.map(p -> new Lease(p, true, null));
        }
    }

    /**
     * As {@link #acquireExclusive}, for a rung about to start a warm sandbox.
     *
     * @throws UncheckedIOException if no pair was free within {@code waitNanos}, or as {@link #acquireExclusive}
     */
    public Lease acquireExclusiveOrThrow(long waitNanos) {
        return acquireExclusive(waitNanos).orElseThrow(this::noneFree);
    }

    /**
     * Lends the pair of a cold run on {@code writeRoot}, without handing the tree over: the pair the cold
     * runs of exactly this root already under way in this pool share, else (once no other run or claim
     * works in a tree that contains it or lies inside it) a pair no one else holds.
     *
     * @param writeRoot the run's write root, a real path
     * @param waitNanos how long to wait at most for the tree and a pair
     * @return the lease; empty if none was had in time, or the thread was interrupted (its flag is then
     *     set again)
     * @throws UncheckedIOException as {@link #acquireExclusive}
     */
    public Optional<Lease> acquire(Path writeRoot, long waitNanos) {
        return take(writeRoot, System.nanoTime() + waitNanos).map(Taken::lease);
    }

    /**
     * As {@link #acquire(Path, long)}, and the tree handed over to the pair before this returns: by this
     * run, when it took a fresh pair, or else by the run it shares with, whose hand-over it waits for.
     *
     * @param writeRoot the run's write root, a real path
     * @param waitNanos how long to wait at most for a pair and for the hand-over it shares
     * @return the lease, handed over; empty if none was had or the shared hand-over did not end in time
     * @throws IOException if the hand-over failed (the lease is then released)
     */
    public Optional<Lease> acquireHandedOver(Path writeRoot, long waitNanos) throws IOException {
        long deadline = System.nanoTime() + waitNanos;
        Optional<Taken> taken = take(writeRoot, deadline);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = taken.get().lease();
        Tree tree = lease.tree;
        if (taken.get().fresh()) {
            try {
                WriteRootHandover.handOver(writeRoot, lease.pair(), this);
                tree.handedOver.complete(null);
            } catch (IOException | RuntimeException | Error e) {
                tree.handedOver.completeExceptionally(e);
                lease.close();
                throw e;
            }
            return Optional.of(lease);
        }
        try {
            tree.handedOver.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return Optional.of(lease);
        } catch (ExecutionException e) {
            lease.close();
            throw new IOException("the run sharing this tree could not hand it over", e.getCause());
        } catch (TimeoutException e) {
            lease.close();
            return Optional.empty();
        } catch (InterruptedException e) {
            lease.close();
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * As {@link #acquireHandedOver}, for a rung about to start a run.
     *
     * @throws UncheckedIOException if the hand-over failed, or no pair was had within {@code waitNanos}
     */
    public Lease acquireHandedOverOrThrow(Path writeRoot, long waitNanos) {
        Optional<Lease> taken;
        try {
            taken = acquireHandedOver(writeRoot, waitNanos);
        } catch (IOException e) {
            throw new UncheckedIOException("could not hand the write root over to the sandbox uid", e);
        }
        return taken.orElseThrow(this::noneFree);
    }

    private UncheckedIOException noneFree() {
        return new UncheckedIOException(new IOException("no sandbox uid was free within the timeout: more than "
                + count() + " runs at once, or their write roots nest in one another (" + this + ")"));
    }

    private record Taken(Lease lease, boolean fresh) {}

    private Optional<Taken> take(Path writeRoot, long deadline) {
        synchronized (LOCK) {
            while (true) {
                Tree conflict = TREES.stream().filter(t -> overlap(t.root, writeRoot)).findFirst().orElse(null);
                if (conflict != null && conflict.share && conflict.pool == this && conflict.root.equals(writeRoot)
                        && WAITING.stream().noneMatch(w -> overlap(w, writeRoot))) {
                    conflict.runs++;
                    return Optional.of(new Taken(new Lease(conflict.pair, false, conflict), false));
                }
                if (conflict == null) {
                    Optional<Pair> pair = tryPair(writeRoot);
                    if (pair.isPresent()) {
                        Tree t = new Tree(writeRoot, pair.get(), this, true);
                        TREES.add(t);
                        return Optional.of(new Taken(new Lease(pair.get(), false, t), true));
                    }
                    if (!await(deadline, true)) {
                        return Optional.empty();
                    }
                } else if (!awaitAsWaiter(writeRoot, deadline)) {
                    return Optional.empty();
                }
            }
        }
    }

    /** Waits, holding {@link #LOCK}, until no tree overlaps {@code writeRoot}; false if the deadline passed first. */
    private static boolean awaitFreeTree(Path writeRoot, long deadline) {
        while (TREES.stream().anyMatch(t -> overlap(t.root, writeRoot))) {
            if (!awaitAsWaiter(writeRoot, deadline)) {
                return false;
            }
        }
        return true;
    }

    /** Holding {@link #LOCK}: one wait for a tree, during which runs that would share a tree it overlaps wait too. */
    private static boolean awaitAsWaiter(Path writeRoot, long deadline) {
        WAITING.add(writeRoot);
        try {
            return await(deadline, false);
        } finally {
            WAITING.remove(writeRoot);
        }
    }

    /** Holding {@link #LOCK}: waits for a free pair until {@code deadline}. */
    private Optional<Pair> awaitPair(long deadline, Path writeRoot) {
        while (true) {
            Optional<Pair> pair = tryPair(writeRoot);
            if (pair.isPresent() || !await(deadline, true)) {
                return pair;
            }
        }
    }

    /**
     * Holding {@link #LOCK}: waits to be notified, or (when what is awaited may come from another
     * process) for a short poll, or until the deadline.
     *
     * @return false if the deadline has passed or the thread was interrupted (its flag set again)
     */
    private static boolean await(long deadline, boolean hostPoll) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        try {
            long nanos = hostPoll ? Math.min(left, HOST_POLL_NANOS) : left;
            TimeUnit.NANOSECONDS.timedWait(LOCK, Math.max(nanos, 1_000_000));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean overlap(Path a, Path b) {
        return a.startsWith(b) || b.startsWith(a);
    }

    /**
     * Holding {@link #LOCK}: a pair no lease of this JVM holds, whose host lock this process could
     * take (or keeps), and that no process on the host runs as; the most recently released first. A
     * kept pair is lent without a host scan when {@link Kept#lendableWithoutScan} says so; any other
     * takes one scan of the block (one for the whole call), which also renews this pool's kept pairs.
     *
     * @param writeRoot the cold run's write root; null for an exclusive lease
     */
    private Optional<Pair> tryPair(Path writeRoot) {
        Set<Integer> running = null;
        long scannedAt = 0;
        for (int tries = free.size(); tries > 0; tries--) {
            int i = free.pollFirst();
            int uid = firstUid + i;
            if (LENT.containsKey(uid)) {
                free.addLast(i); // another pool, overlapping this one, lent it
                continue;
            }
            HostUidLocks.Held held;
            Kept kept = KEPT.get(uid);
            if (kept != null && kept.pair.gid() != firstGid + i) {
                free.addLast(i); // kept by another pool, overlapping this one, that pairs the uid with another gid
                continue;
            }
            if (kept != null) {
                KEPT.remove(uid);
                if (kept.lendableWithoutScan(writeRoot, System.nanoTime())) {
                    LENT.put(uid, new Lent(kept.held, kept.cleanAt));
                    return Optional.of(new Pair(uid, firstGid + i));
                }
                held = kept.held; // scanned below, like a uid just locked
            } else {
                Optional<HostUidLocks.Held> locked;
                try {
                    locked = hostLocks.tryLock(uid);
                } catch (IOException e) {
                    free.addFirst(i);
                    throw new UncheckedIOException("cannot lock sandbox uid " + uid + " for this process: " + e.getMessage(), e);
                }
                if (locked.isEmpty()) {
                    free.addLast(i); // another process lends it
                    continue;
                }
                held = locked.get();
            }
            if (running == null) {
                scannedAt = System.nanoTime();
                lendingScans++;
                try {
                    running = HostUidLocks.runningAs(firstUid, count);
                } catch (RuntimeException | Error e) {
                    held.release();
                    free.addFirst(i);
                    throw e;
                }
                renewKept(running, scannedAt, this::owns);
            }
            if (running.contains(uid)) {
                held.release();
                free.addLast(i);
                LOG.log(System.Logger.Level.WARNING, "sandbox uid " + uid + " is not lent: a process on this host runs as it "
                        + "(left by a run whose process died?)");
                continue;
            }
            LENT.put(uid, new Lent(held, scannedAt));
            return Optional.of(new Pair(uid, firstGid + i));
        }
        return Optional.empty();
    }

    /**
     * Holding {@link #LOCK}: returns a pair to its pool, to be lent first next time. An exclusive lease's
     * pair drops its host lock at once; a cold run's keeps it for {@link #KEEP_NANOS}.
     *
     * @param root the cold run's write root; null for an exclusive lease
     */
    private void giveBack(Pair pair, Path root) {
        Lent lent = LENT.remove(pair.uid());
        if (lent == null) {
            return;
        }
        free.addFirst(pair.uid() - firstUid);
        if (root == null) {
            lent.held().release();
            return;
        }
        KEPT.put(pair.uid(), new Kept(pair, lent.held(), root, System.nanoTime(), lent.cleanAt()));
        scheduleCheck();
    }

    /**
     * Holding {@link #LOCK}: after a host scan for the uids {@code scanned} that started at
     * {@code scannedAt}, marks the kept ones it found clean and drops the lock of those some process runs
     * as. A uid released after the scan started is left as it is: the scan may have missed its run's
     * processes.
     */
    private static void renewKept(Set<Integer> running, long scannedAt, IntPredicate scanned) {
        for (Iterator<Map.Entry<Integer, Kept>> it = KEPT.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Kept> e = it.next();
            Kept k = e.getValue();
            if (!scanned.test(e.getKey()) || k.releasedAt - scannedAt > 0) {
                continue;
            }
            if (running.contains(e.getKey())) {
                it.remove();
                k.held.release();
                LOG.log(System.Logger.Level.WARNING, "sandbox uid " + e.getKey() + " is not kept for its next run: a process on "
                        + "this host runs as it");
            } else if (scannedAt - k.cleanAt > 0) {
                k.cleanAt = scannedAt;
            }
        }
    }

    /** Holding {@link #LOCK}: drops the host lock of every pair kept longer than {@link #KEEP_NANOS}. */
    private static void expireKept(long now) {
        for (Iterator<Kept> it = KEPT.values().iterator(); it.hasNext(); ) {
            Kept k = it.next();
            if (now - k.releasedAt >= KEEP_NANOS) {
                it.remove();
                k.held.release();
            }
        }
    }

    /** Holding {@link #LOCK}: makes sure the keeper will look at the kept pairs within {@link #CHECK_NANOS}. */
    private static void scheduleCheck() {
        if (checkPending) {
            return;
        }
        if (keeper == null) {
            ScheduledThreadPoolExecutor k = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "toolyard-sandbox-uid-keeper");
                t.setDaemon(true);
                return t;
            });
            k.setRemoveOnCancelPolicy(true);
            keeper = k;
        }
        checkPending = true;
        keeper.schedule(SandboxIds::checkKept, CHECK_NANOS, TimeUnit.NANOSECONDS);
    }

    /**
     * The keeper's round: drops the locks kept too long, scans the host for the uids still kept (outside
     * {@link #LOCK}, so runs are not held up by it), renews those it found clean and drops those it did not,
     * and comes back while any pair is kept.
     */
    private static void checkKept() {
        Set<Integer> uids;
        long scannedAt;
        synchronized (LOCK) {
            expireKept(System.nanoTime());
            if (KEPT.isEmpty()) {
                checkPending = false;
                return;
            }
            uids = new HashSet<>(KEPT.keySet());
            scannedAt = System.nanoTime(); // before any release the scan could miss
        }
        Set<Integer> running = null;
        try {
            running = HostUidLocks.runningAs(uids);
        } catch (RuntimeException e) {
            // the kept pairs are not renewed: each is scanned when lent, or dropped when it expires
            LOG.log(System.Logger.Level.WARNING, "could not scan the host for the kept sandbox uids: " + e);
        }
        synchronized (LOCK) {
            try {
                if (running != null) {
                    renewKept(running, scannedAt, uids::contains);
                }
                expireKept(System.nanoTime());
            } finally {
                checkPending = false;
                if (!KEPT.isEmpty()) {
                    scheduleCheck();
                }
            }
        }
    }

    /** @return how many host scans lending has made in this JVM (for tests) */
    static long lendingScans() {
        synchronized (LOCK) {
            return lendingScans;
        }
    }

    /** @return the uids whose pairs are kept right now (for tests) */
    static Set<Integer> keptUids() {
        synchronized (LOCK) {
            return Set.copyOf(KEPT.keySet());
        }
    }

    @Override
    public String toString() {
        return "uids " + firstUid + ".." + (firstUid + count - 1) + ", gids " + firstGid + ".." + (firstGid + count - 1);
    }
}
