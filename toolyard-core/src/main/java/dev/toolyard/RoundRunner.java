package dev.toolyard;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Runs the calls of one round on at most {@code parallelism} lanes: the caller's own thread and helper
 * lanes on threads of the executor's round pool. Each lane takes the next call in request order until none
 * is left, so the first calls start first. Where helper lanes come in depends on whether the round's calls
 * wait:
 *
 * <ul>
 *   <li>A round that {@linkplain #run(int, Task, UnaryOperator, boolean) may hand off} (some call's handler
 *       runs on a worker, so its lane will wait) starts its helper lanes at once.
 *   <li>Any other round starts on the caller's thread alone, with no hand-off, and the executor's
 *       {@link RoundWatch} starts its helper lanes only once the caller has sat in one call for
 *       {@link RoundWatch#STALL_NANOS} with calls left to take: a cooperative handler that waits (I/O, a
 *       sandbox, a reviewer, another call of the round) gets the round fanned out behind it, and a round of
 *       calls that do not wait costs what its calls cost.
 * </ul>
 *
 * The caller's lane always works, so a round makes progress even when no helper lane can be had (the round
 * pool is bounded, at {@code maxLanes} helper threads across all rounds; past it a round simply runs on
 * fewer lanes), and the caller only ever waits for calls a helper has already taken. Lanes are not handler
 * workers: a lane waiting on a handed-off handler holds one handler slot, never a worker of the handler
 * pool, so a round cannot starve that pool or deadlock on it. Lock-free; thread-safe.
 */
final class RoundRunner implements AutoCloseable {
    private static final AtomicLong COUNTER = new AtomicLong();
    /** Round lanes are daemon threads (they never hold the JVM open) named {@code toolyard-round-N}. */
    static final ThreadFactory LANE_THREADS = r -> {
        Thread t = new Thread(r, "toolyard-round-" + COUNTER.incrementAndGet());
        t.setDaemon(true);
        return t;
    };
    /** The watch's one daemon thread, {@code toolyard-round-watch}. */
    private static final ThreadFactory WATCH_THREAD = r -> {
        Thread t = new Thread(r, "toolyard-round-watch");
        t.setDaemon(true);
        return t;
    };

    /** One call of a round, by its place in the request list. */
    interface Task {
        /**
         * @param index the call's place in the round
         * @return its result; never {@code null}
         */
        ToolResult run(int index);
    }

    private final int parallelism;
    private final HandlerSlots laneSlots;
    private final WorkerPool lanes;
    private final RoundWatch watch;

    /**
     * @param parallelism most lanes of one round, the caller's included
     * @param maxLanes most helper lane threads of all rounds together
     * @param threads makes helper lane threads
     */
    RoundRunner(int parallelism, int maxLanes, ThreadFactory threads) {
        this(parallelism, maxLanes, threads, RoundWatch.STALL_NANOS, RoundWatch.KEEP_ALIVE_NANOS);
    }

    /**
     * @param parallelism most lanes of one round, the caller's included
     * @param maxLanes most helper lane threads of all rounds together
     * @param threads makes helper lane threads
     * @param stallNanos how long the caller's lane may sit in one call before a round that does not hand
     *     off fans out; {@link RoundWatch#STALL_NANOS} but in tests
     * @param watchKeepAliveNanos how long the watch's thread stays parked with no round before it ends;
     *     {@link RoundWatch#KEEP_ALIVE_NANOS} but in tests
     */
    RoundRunner(int parallelism, int maxLanes, ThreadFactory threads, long stallNanos, long watchKeepAliveNanos) {
        this.parallelism = parallelism;
        this.laneSlots = new HandlerSlots(maxLanes, maxLanes);
        this.lanes = new WorkerPool(threads);
        this.watch = new RoundWatch(WATCH_THREAD, stallNanos, watchKeepAliveNanos);
    }

    /**
     * Runs a round that hands off, so its helper lanes start at once.
     *
     * @param count how many calls
     * @param task runs one call
     * @return the results, by place; none {@code null}
     * @throws RuntimeException the first exception a call threw (a store failure, a closed executor), once
     *     every call taken has ended
     */
    ToolResult[] run(int count, Task task) {
        return run(count, task, UnaryOperator.identity(), true);
    }

    /**
     * @param count how many calls
     * @param task runs one call
     * @param carry wraps each helper lane, on the caller's thread, so the lane runs with what the
     *     observers read from the caller's thread (see {@code ToolCallObserver.carry}); for a round that does
     *     not hand off it is applied at the start, once per helper lane the round may start
     * @param handsOff whether a call of the round will hand its handler off (its lane then waits), so helper
     *     lanes start at once; otherwise they start only if the caller's lane stalls in a call
     * @return the results, by place; none {@code null}
     * @throws RuntimeException the first exception a call threw (a store failure, a closed executor), once
     *     every call taken has ended
     */
    ToolResult[] run(int count, Task task, UnaryOperator<Runnable> carry, boolean handsOff) {
        int helpers = Math.min(parallelism, count) - 1;
        if (helpers <= 0) {
            return inSequence(count, task);
        }
        Round round = new Round(count, task, helpers);
        Runnable lane = round::lane;
        for (int h = 0; h < helpers; h++) {
            round.carried[h] = carry.apply(lane);
        }
        if (handsOff || !watch.watch(round)) {
            round.fanOut();
        }
        round.callersLane();
        round.awaitAll();
        Throwable failure = round.failure.get();
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        return round.results;
    }

    /** One lane, the caller's: every call in order, each run even after one threw; the first throw wins. */
    private static ToolResult[] inSequence(int count, Task task) {
        ToolResult[] results = new ToolResult[count];
        Throwable failure = null;
        for (int i = 0; i < count; i++) {
            try {
                results[i] = task.run(i);
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                }
            }
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        return results;
    }

    /** @return whether the round watch has a live thread now */
    boolean watchAlive() {
        return watch.threadAlive();
    }

    /** @return the helper lanes alive now, busy or idle */
    int laneThreads() {
        return lanes.size();
    }

    /** Ends the helper lanes and the watch; a round running finishes on the lanes it has. */
    @Override
    public void close() {
        watch.close();
        lanes.close();
    }

    private final class Round implements RoundWatch.Watched {
        final int count;
        final Task task;
        final ToolResult[] results;
        /** The helper lanes' tasks, each as the observers carried it on the caller's thread. */
        final Runnable[] carried;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger done = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread caller = Thread.currentThread();
        /** When the caller's lane entered its current call, by {@link System#nanoTime()}. */
        volatile long callerEntered = System.nanoTime();

        Round(int count, Task task, int helpers) {
            this.count = count;
            this.task = task;
            this.results = new ToolResult[count];
            this.carried = new Runnable[helpers];
        }

        @Override
        public boolean callsLeft() {
            return next.get() < count;
        }

        @Override
        public boolean stalled(long now, long stallNanos) {
            return now - callerEntered >= stallNanos;
        }

        /** Starts a helper lane for each call left to take, at most one per carried task. */
        @Override
        public void fanOut() {
            int wanted = Math.min(carried.length, count - next.get());
            for (int h = 0; h < wanted; h++) {
                HandlerSlots.Slot slot = laneSlots.acquire("round");
                if (slot == null) {
                    return; // the round pool is at its bound: fewer lanes, same outcome
                }
                try {
                    lanes.execute(carried[h], slot);
                } catch (RejectedExecutionException e) {
                    return; // the slot is already given back
                }
            }
        }

        void callersLane() {
            while (true) {
                int i = next.getAndIncrement();
                if (i >= count) {
                    return;
                }
                callerEntered = System.nanoTime();
                runCall(i);
            }
        }

        void lane() {
            while (true) {
                int i = next.getAndIncrement();
                if (i >= count) {
                    return;
                }
                runCall(i);
            }
        }

        private void runCall(int i) {
            try {
                results[i] = task.run(i);
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            } finally {
                if (done.incrementAndGet() == count && Thread.currentThread() != caller) {
                    LockSupport.unpark(caller);
                }
            }
        }

        /** Waits, uninterruptibly, for the calls helpers took: each is bounded by its deadlines. */
        void awaitAll() {
            boolean interrupted = false;
            while (done.get() < count) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
