package dev.toolyard.sandbox.internal;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
    /** The lease each write root in use has, and how many runs share it. */
    private final Map<Path, Shared> inUse = new HashMap<>();

    private static final class Shared {
        final Lease lease;
        int runs;

        Shared(Lease lease) {
            this.lease = lease;
        }
    }

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
     * Lends the pair of a run on {@code writeRoot}: the one runs under way on that write root already
     * hold, so that one run's hand-over does not take the files from another run still working there
     * (they then share one process count), else a pair no other run of this JVM holds.
     *
     * @param writeRoot the run's write root, a real path
     * @param waitNanos how long to wait at most for a pair
     * @return the pair; empty as {@link #acquire(long)}
     */
    public Optional<Lease> acquire(Path writeRoot, long waitNanos) {
        synchronized (LENT) {
            Shared shared = inUse.get(writeRoot);
            if (shared != null) {
                shared.runs++;
                return Optional.of(shared.lease);
            }
            Optional<Lease> lease = acquire(waitNanos);
            if (lease.isPresent()) {
                Shared fresh = new Shared(lease.get());
                fresh.runs = 1;
                inUse.put(writeRoot, fresh);
            }
            return lease;
        }
    }

    /** Ends a run on {@code writeRoot}; the pair is released when no run there holds it any more. */
    public void release(Path writeRoot, Lease lease) {
        synchronized (LENT) {
            Shared shared = inUse.get(writeRoot);
            if (shared != null && shared.lease.equals(lease)) {
                if (--shared.runs > 0) {
                    return;
                }
                inUse.remove(writeRoot);
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

    @Override
    public String toString() {
        return "uids " + firstUid + ".." + (firstUid + count - 1) + ", gids " + firstGid + ".." + (firstGid + count - 1);
    }
}
