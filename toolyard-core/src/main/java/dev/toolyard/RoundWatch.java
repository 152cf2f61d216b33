package dev.toolyard;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Notices the rounds whose calls wait. A round of cooperative calls starts on its caller's thread alone
 * and asks this watch to look at it; one daemon thread per executor (named {@code toolyard-round-watch},
 * started with the first round it watches) looks every {@link #POLL_NANOS} while rounds are open, and
 * when a round's caller has been inside one call for {@link #STALL_NANOS} (50 µs) or more with calls still left
 * to take, it fans that round out to its helper lanes. A round of calls that do not wait thus never leaves
 * its caller's thread and pays no hand-off; a round whose calls wait gets its lanes within about a poll
 * of the first wait. Once no round has been open for {@link #IDLE_POLLS} polls, the thread parks until
 * the next round (the one moment a caller pays a wake-up); parked for {@link #KEEP_ALIVE_NANOS} it ends,
 * and the next round starts another, so an idle executor holds no thread. Lock-free; thread-safe.
 */
final class RoundWatch {
    /** By default, how long a caller's lane may sit in one call before its round's helper lanes start. */
    static final long STALL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** How often open rounds are looked at. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** Polls with no open round before the thread parks until the next round. */
    static final int IDLE_POLLS = 200;

    /** How long the thread stays parked with no round before it ends (the next round starts another). */
    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** No thread: none started yet, or the last one ended idle. */
    private static final int ENDED = 0;
    private static final int AWAKE = 1;
    private static final int PARKED = 2;

    /** A round as the watch sees it. */
    interface Watched {
        /** @return whether calls are left to take; a round with none is dropped */
        boolean callsLeft();

        /**
         * @param now {@link System#nanoTime()}
         * @param stallNanos how long a call may take before its lane counts as stalled
         * @return whether the caller's lane has been in one call since {@code stallNanos} before {@code now}
         */
        boolean stalled(long now, long stallNanos);

        /** Starts the round's helper lanes; called once, on the watch's thread. */
        void fanOut();
    }

    private final ThreadFactory threads;
    private final long stallNanos;
    private final long keepAliveNanos;
    private final ConcurrentLinkedQueue<Watched> open = new ConcurrentLinkedQueue<>();
    private final AtomicInteger state = new AtomicInteger(ENDED);
    private volatile Thread thread;
    private volatile boolean closed;

    /**
     * @param threads makes the watch's thread
     * @param stallNanos how long a caller's lane may sit in one call before its round fans out;
     *     {@link #STALL_NANOS} but in tests
     * @param keepAliveNanos how long the thread stays parked with no round before it ends;
     *     {@link #KEEP_ALIVE_NANOS} but in tests
     */
    RoundWatch(ThreadFactory threads, long stallNanos, long keepAliveNanos) {
        this.threads = threads;
        this.stallNanos = stallNanos;
        this.keepAliveNanos = keepAliveNanos;
    }

    /** @return whether the watch has a live thread now */
    boolean threadAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /**
     * Watches {@code round} until it has no call left to take or has fanned out.
     *
     * @param round the round; its caller's lane is about to take its first call
     * @return whether the round is watched; {@code false} when the watch is closed or can get no thread, and
     *     the round must then start its lanes itself
     */
    boolean watch(Watched round) {
        if (closed) {
            return false;
        }
        open.add(round);
        // After the add: a thread that parked before seeing it is woken; one that ended is replaced.
        while (true) {
            int s = state.get();
            if (s == AWAKE) {
                return true;
            }
            if (s == PARKED) {
                if (state.compareAndSet(PARKED, AWAKE)) {
                    LockSupport.unpark(thread);
                    return true;
                }
            } else if (state.compareAndSet(ENDED, AWAKE)) {
                if (start()) {
                    return true;
                }
                state.set(ENDED);
                open.remove(round);
                return false;
            }
        }
    }

    /** Starts the watch's thread; called by the one caller that moved the state from ENDED. */
    private boolean start() {
        Thread t;
        try {
            t = threads.newThread(this::run);
        } catch (RuntimeException e) {
            return false;
        }
        if (t == null) {
            return false;
        }
        t.setDaemon(true);
        thread = t;
        try {
            t.start();
        } catch (RuntimeException | OutOfMemoryError e) {
            return false;
        }
        return true;
    }

    /** Ends the watch's thread; rounds still open finish on the lanes they have. Idempotent. */
    void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void run() {
        int idle = 0;
        while (!closed) {
            long now = System.nanoTime();
            boolean any = false;
            for (Iterator<Watched> it = open.iterator(); it.hasNext(); ) {
                Watched round = it.next();
                if (!round.callsLeft()) {
                    it.remove();
                } else if (round.stalled(now, stallNanos)) {
                    it.remove();
                    try {
                        round.fanOut();
                    } catch (Throwable t) {
                        // no thread to be had (out of memory, say): the round goes on on the lanes it has
                    }
                } else {
                    any = true;
                }
            }
            if (any || ++idle < IDLE_POLLS) {
                if (any) {
                    idle = 0;
                }
                LockSupport.parkNanos(this, POLL_NANOS);
                continue;
            }
            idle = 0;
            state.set(PARKED);
            // After publishing PARKED: a round added before it is seen here, one added after wakes this thread.
            long parkedAt = System.nanoTime();
            while (open.isEmpty() && !closed && state.get() == PARKED) {
                LockSupport.parkNanos(this, keepAliveNanos);
                if (System.nanoTime() - parkedAt >= keepAliveNanos && open.isEmpty()
                        && state.compareAndSet(PARKED, ENDED)) {
                    return; // idle a minute: the next round starts a new thread
                }
            }
            state.compareAndSet(PARKED, AWAKE);
        }
        open.clear();
    }
}
