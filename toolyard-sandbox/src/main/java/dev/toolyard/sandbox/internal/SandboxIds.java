package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The host uids and gids commands run as when this process is root, one pair lent to each run
 * while it lasts. {@code RLIMIT_NPROC} counts the processes of a real uid across the whole host, so
 * a uid that two runs shared would share one process count: one run's fork bomb would starve the
 * other. With a uid of its own, a run's limit is its own.
 *
 * <p>The pairs are {@code (firstUid + i, firstGid + i)} for {@code i < count}. A released pair is
 * lent again first, so that runs one after another keep one owner for the files they leave in a
 * workspace and the hand-over before the next run finds nothing to change. The uids lent are
 * tracked for the whole JVM, so two sandboxes given overlapping ranges never lend one uid twice.
 * Thread-safe.
 */
public final class SandboxIds {
    /** Uids lent right now, by any pool of this JVM. */
    private static final Set<Integer> LENT = new HashSet<>();
    /**
     * The lease each tree in use has, by the write root of the run that took it, for every pool of this
     * JVM: runs whose write roots contain one another share one lease, so no hand-over ever walks a tree
     * in which another run's command is working (it could rename a planted hard link or a FIFO over a
     * name the walk has just checked).
     */
    private static final Map<Path, Shared> IN_USE = new HashMap<>();

    private static final class Shared {
        final Lease lease;
        final SandboxIds owner;
        /** Done once the run that took the lease has handed its tree over (or failed to). */
        final CompletableFuture<Void> handedOver = new CompletableFuture<>();
        int runs;

        Shared(Lease lease, SandboxIds owner) {
            this.lease = lease;
            this.owner = owner;
        }
    }

    /** The exclusive leases of warm sandboxes alive now, in every pool of this JVM; guarded by LENT. */
    private static final Set<Exclusive> EXCLUSIVE = new HashSet<>();
    /** Held while a warm sandbox's tree is handed over and its command marked as working in it. */
    private static final Object HANDOVER = new Object();

    private final int firstUid;
    private final int firstGid;
    private final int count;
    private final Deque<Integer> free = new ArrayDeque<>();

    /** One uid and gid lent to one run. */
    public record Lease(int uid, int gid) {}

    /**
     * @param firstUid the first uid, at least 1
     * @param firstGid the first gid, at least 1
     * @param count how many pairs, at least 1
     */
    public SandboxIds(int firstUid, int firstGid, int count) {
        this.firstUid = firstUid;
        this.firstGid = firstGid;
        this.count = count;
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

    /**
     * Lends the pair of a run on {@code writeRoot}: the one a run under way on a write root that
     * contains this one, or lies inside it, already holds (they then share one process count), else a
     * pair no other run of this JVM holds. Only the run that took a fresh pair hands the tree over; see
     * {@link #acquireHandedOver}.
     *
     * @param writeRoot the run's write root, a real path
     * @param waitNanos how long to wait at most for a pair
     * @return the pair; empty as {@link #acquire(long)}
     */
    public Optional<Lease> acquire(Path writeRoot, long waitNanos) {
        return take(writeRoot, waitNanos).map(t -> t.shared().lease);
    }

    /**
     * As {@link #acquire(Path, long)}, and the tree handed over to the pair before this returns: by this
     * run, when it took a fresh pair, or else by the run it shares with, whose hand-over it waits for.
     * A run that shares a pair never walks the tree itself, because the other run's command is working
     * in it; what that walk did not cover (a parent of the first run's write root) stays as it was.
     *
     * @param writeRoot the run's write root, a real path
     * @param waitNanos how long to wait at most for a pair and for the hand-over it shares
     * @return the pair, handed over; empty if none was free or the shared hand-over did not end in time
     * @throws IOException if the hand-over failed (the pair is then released)
     */
    public Optional<Lease> acquireHandedOver(Path writeRoot, long waitNanos) throws IOException {
        long deadline = System.nanoTime() + waitNanos;
        Optional<Taken> taken = take(writeRoot, waitNanos);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Shared shared = taken.get().shared();
        if (taken.get().fresh()) {
            try {
                WriteRootHandover.handOver(writeRoot, shared.lease, this);
                shared.handedOver.complete(null);
            } catch (IOException | RuntimeException | Error e) {
                shared.handedOver.completeExceptionally(e);
                release(writeRoot, shared.lease);
                throw e;
            }
            return Optional.of(shared.lease);
        }
        try {
            shared.handedOver.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return Optional.of(shared.lease);
        } catch (ExecutionException e) {
            release(writeRoot, shared.lease);
            throw new IOException("the run sharing this tree could not hand it over", e.getCause());
        } catch (TimeoutException e) {
            release(writeRoot, shared.lease);
            return Optional.empty();
        } catch (InterruptedException e) {
            release(writeRoot, shared.lease);
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * As {@link #acquireHandedOver}, for a rung about to start a run.
     *
     * @throws java.io.UncheckedIOException if the hand-over failed, or no pair was free within {@code waitNanos}
     */
    public Lease acquireHandedOverOrThrow(Path writeRoot, long waitNanos) {
        Optional<Lease> taken;
        try {
            taken = acquireHandedOver(writeRoot, waitNanos);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("could not hand the write root over to the sandbox uid", e);
        }
        return taken.orElseThrow(() -> new java.io.UncheckedIOException(new IOException(
                "no sandbox uid was free within the timeout: more than " + count() + " runs at once (" + this + ")")));
    }

    private record Taken(Shared shared, boolean fresh) {}

    private Optional<Taken> take(Path writeRoot, long waitNanos) {
        synchronized (LENT) {
            for (Map.Entry<Path, Shared> e : IN_USE.entrySet()) {
                if (e.getKey().startsWith(writeRoot) || writeRoot.startsWith(e.getKey())) {
                    e.getValue().runs++;
                    return Optional.of(new Taken(e.getValue(), false));
                }
            }
            Optional<Lease> lease = acquire(waitNanos);
            if (lease.isEmpty()) {
                return Optional.empty();
            }
            for (Map.Entry<Path, Shared> e : IN_USE.entrySet()) { // taken while this thread waited for a pair
                if (e.getKey().startsWith(writeRoot) || writeRoot.startsWith(e.getKey())) {
                    release(lease.get());
                    e.getValue().runs++;
                    return Optional.of(new Taken(e.getValue(), false));
                }
            }
            Shared fresh = new Shared(lease.get(), this);
            fresh.runs = 1;
            IN_USE.put(writeRoot, fresh);
            return Optional.of(new Taken(fresh, true));
        }
    }

    /**
     * @return whether {@code lease} is held for {@code writeRoot} by exactly one run: the caller's
     */
    public boolean heldByOneRun(Path writeRoot, Lease lease) {
        synchronized (LENT) {
            Shared shared = IN_USE.get(writeRoot);
            return shared != null && shared.lease.equals(lease) && shared.runs == 1;
        }
    }

    /** Ends a run on {@code writeRoot}; the pair is released when no run of its tree holds it any more. */
    public void release(Path writeRoot, Lease lease) {
        synchronized (LENT) {
            Iterator<Map.Entry<Path, Shared>> it = IN_USE.entrySet().iterator();
            while (it.hasNext()) {
                Shared shared = it.next().getValue();
                if (shared.lease.equals(lease)) {
                    if (--shared.runs > 0) {
                        return;
                    }
                    it.remove();
                    shared.owner.release(lease);
                    return;
                }
            }
            release(lease);
        }
    }

    /**
     * Lends a pair no other run of this JVM holds, waiting for one to be released if all are lent.
     *
     * @param waitNanos how long to wait at most
     * @return the pair; empty if none was released in time, or the thread was interrupted (its flag
     *     is then set again)
     */
    public Optional<Lease> acquire(long waitNanos) {
        long deadline = System.nanoTime() + waitNanos;
        synchronized (LENT) {
            while (true) {
                for (int tries = free.size(); tries > 0; tries--) {
                    int i = free.pollFirst();
                    if (LENT.add(firstUid + i)) {
                        return Optional.of(new Lease(firstUid + i, firstGid + i));
                    }
                    free.addLast(i); // another pool, overlapping this one, lent it
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                try {
                    LENT.wait(Math.max(1, left / 1_000_000), 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }
        }
    }

    /** Returns the pair once nothing of the run is left, to be lent first next time. */
    public void release(Lease lease) {
        synchronized (LENT) {
            if (LENT.remove(lease.uid())) {
                free.addFirst(lease.uid() - firstUid);
                LENT.notifyAll();
            }
        }
    }

    /**
     * A uid and gid lent to one warm sandbox alone for its whole life: no other run of any workspace
     * is lent it while it lives, not even a run of the same tree (which {@link #acquire(Path, long)}
     * would share). Released exactly once, by {@link #close()}, once nothing of the sandbox is left.
     * Thread-safe.
     */
    public final class Exclusive implements AutoCloseable {
        private final Lease lease;
        private final Path writeRoot;
        private boolean released; // guarded by LENT
        private boolean working; // guarded by LENT

        private Exclusive(Lease lease, Path writeRoot) {
            this.lease = lease;
            this.writeRoot = writeRoot;
        }

        /** @return the uid and gid */
        public Lease lease() {
            return lease;
        }

        /** @return the pool it is lent from */
        public SandboxIds ids() {
            return SandboxIds.this;
        }

        /**
         * Marks the sandbox's command as working in its tree, after handing the tree over to the lease
         * if no other run is working in it (a cold run on a tree that holds or lies in it, or another warm
         * sandbox's command): a hand-over never walks a tree in which another command is working. When
         * another run is, the tree stays as it is.
         *
         * @return whether the tree was handed over
         * @throws IOException if the hand-over failed (the command is then not marked working)
         */
        public boolean beginCommand() throws IOException {
            synchronized (HANDOVER) {
                boolean quiet;
                synchronized (LENT) {
                    quiet = quiet();
                }
                if (quiet) {
                    WriteRootHandover.handOver(writeRoot, lease, SandboxIds.this);
                }
                synchronized (LENT) {
                    working = true;
                }
                return quiet;
            }
        }

        /** Marks the sandbox's command as ended: nothing of it works in the tree any more. */
        public void endCommand() {
            synchronized (LENT) {
                working = false;
            }
        }

        private boolean quiet() {
            for (Path p : IN_USE.keySet()) {
                if (p.startsWith(writeRoot) || writeRoot.startsWith(p)) {
                    return false;
                }
            }
            for (Exclusive e : EXCLUSIVE) {
                if (e != this && e.working && (e.writeRoot.startsWith(writeRoot) || writeRoot.startsWith(e.writeRoot))) {
                    return false;
                }
            }
            return true;
        }

        /** Gives the uid back, the first time only; later calls do nothing. */
        @Override
        public void close() {
            synchronized (LENT) {
                if (released) {
                    return;
                }
                released = true;
                EXCLUSIVE.remove(this);
            }
            release(lease);
        }

        @Override
        public String toString() {
            return "exclusive " + lease + " for " + writeRoot;
        }
    }

    /**
     * Lends a pair to one warm sandbox of {@code writeRoot} alone (see {@link Exclusive}), waiting for
     * one to be released if all are lent. Placeholder for the cross-process lease of branch sbx-ids.
     *
     * @param writeRoot the sandbox's write root, a real path
     * @return the lease; empty if none was released in time, or the thread was interrupted
     */
    public Optional<Exclusive> acquireExclusive(Path writeRoot, long waitNanos) {
        Optional<Lease> lease = acquire(waitNanos);
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        Exclusive e = new Exclusive(lease.get(), writeRoot);
        synchronized (LENT) {
            EXCLUSIVE.add(e);
        }
        return Optional.of(e);
    }

    @Override
    public String toString() {
        return "uids " + firstUid + ".." + (firstUid + count - 1) + ", gids " + firstGid + ".." + (firstGid + count - 1);
    }
}
