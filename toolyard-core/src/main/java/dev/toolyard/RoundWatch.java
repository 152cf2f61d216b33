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
 * the next round (the one moment a caller pays a wake-up). Lock-free; thread-safe.
 */
final class RoundWatch {
    /** By default, how long a caller's lane may sit in one call before its round's helper lanes start. */
    static final long STALL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** How often open rounds are looked at. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** Polls with no open round before the thread parks until the next round. */
    static final int IDLE_POLLS = 200;

    private static final int AWAKE = 0;
    private static final int PARKED = 1;

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
    private final ConcurrentLinkedQueue<Watched> open = new ConcurrentLinkedQueue<>();
    private final AtomicInteger state = new AtomicInteger(AWAKE);
    private final Object startLock = new Object();
    private volatile Thread thread;
    private volatile boolean closed;

    /**
     * @param threads makes the watch's one thread
     * @param stallNanos how long a caller's lane may sit in one call before its round fans out;
     *     {@link #STALL_NANOS} but in tests
     */
    RoundWatch(ThreadFactory threads, long stallNanos) {
        this.threads = threads;
        this.stallNanos = stallNanos;
    }

    /**
     * Watches {@code round} until it has no call left to take or has fanned out.
     *
     * @param round the round; its caller's lane is about to take its first call
     * @return whether the round is watched; {@code false} when the watch is closed or has no thread, and the
     *     round then runs on the lanes it has
     */
    boolean watch(Watched round) {
        if (closed) {
            return false;
        }
        Thread t = thread;
        if (t == null) {
            t = start();
            if (t == null) {
                return false;
            }
        }
        open.add(round);
        // After the add: a watch thread that parked before seeing it is woken; one that saw it stays up.
        if (state.get() == PARKED && state.compareAndSet(PARKED, AWAKE)) {
            LockSupport.unpark(t);
        }
        return true;
    }

    private Thread start() {
        synchronized (startLock) { // once per executor
            if (thread == null && !closed) {
                Thread t;
                try {
                    t = threads.newThread(this::run);
                } catch (RuntimeException e) {
                    return null;
                }
                if (t == null) {
                    return null;
                }
                t.setDaemon(true);
                t.start();
                thread = t;
            }
            return closed ? null : thread;
        }
    }

    /** Ends the watch's thread; rounds still open finish on the lanes they have. Idempotent. */
    void close() {
        closed = true;
        Thread t;
        synchronized (startLock) {
            t = thread;
        }
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
            while (open.isEmpty() && !closed && state.get() == PARKED) {
                LockSupport.park(this);
            }
            state.set(AWAKE);
        }
        open.clear();
    }
}
