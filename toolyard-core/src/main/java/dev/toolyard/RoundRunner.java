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
 * is left, so the first calls start first. The caller's lane always works, so a round makes progress even
 * when no helper lane can be had (the round pool is bounded, at {@code maxLanes} helper threads across
 * all rounds; past it a round simply runs on fewer lanes), and the caller only ever waits for calls a
 * helper has already taken. Lanes are not handler workers: a lane waiting on a handed-off handler holds
 * one handler slot, never a worker of the handler pool, so a round cannot starve that pool or deadlock on
 * it. Lock-free; thread-safe.
 */
final class RoundRunner implements AutoCloseable {
    private static final AtomicLong COUNTER = new AtomicLong();
    /** Round lanes are daemon threads (they never hold the JVM open) named {@code toolyard-round-N}. */
    static final ThreadFactory LANE_THREADS = r -> {
        Thread t = new Thread(r, "toolyard-round-" + COUNTER.incrementAndGet());
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

    /**
     * @param parallelism most lanes of one round, the caller's included
     * @param maxLanes most helper lane threads of all rounds together
     * @param threads makes helper lane threads
     */
    RoundRunner(int parallelism, int maxLanes, ThreadFactory threads) {
        this.parallelism = parallelism;
        this.laneSlots = new HandlerSlots(maxLanes, maxLanes);
        this.lanes = new WorkerPool(threads);
    }

    /**
     * @param count how many calls
     * @param task runs one call
     * @return the results, by place; none {@code null}
     * @throws RuntimeException the first exception a call threw (a store failure, a closed executor), once
     *     every call taken has ended
     */
    ToolResult[] run(int count, Task task) {
        return run(count, task, UnaryOperator.identity());
    }

    /**
     * @param count how many calls
     * @param task runs one call
     * @param carry wraps each helper lane, on the caller's thread, so the lane runs with what the
     *     observers read from the caller's thread (see {@code ToolCallObserver.carry})
     * @return the results, by place; none {@code null}
     * @throws RuntimeException the first exception a call threw (a store failure, a closed executor), once
     *     every call taken has ended
     */
    ToolResult[] run(int count, Task task, UnaryOperator<Runnable> carry) {
        Round round = new Round(count, task);
        int helpers = Math.min(parallelism, count) - 1;
        for (int h = 0; h < helpers; h++) {
            HandlerSlots.Slot slot = laneSlots.acquire("round");
            if (slot == null) {
                break; // the round pool is at its bound: fewer lanes, same outcome
            }
            try {
                lanes.execute(carry.apply(round::lane), slot);
            } catch (RejectedExecutionException e) {
                break; // the slot is already given back
            }
        }
        round.lane();
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

    /** @return the helper lanes alive now, busy or idle */
    int laneThreads() {
        return lanes.size();
    }

    /** Ends the helper lanes; a round running finishes on the lanes it has. */
    @Override
    public void close() {
        lanes.close();
    }

    private static final class Round {
        final int count;
        final Task task;
        final ToolResult[] results;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger done = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread caller = Thread.currentThread();

        Round(int count, Task task) {
            this.count = count;
            this.task = task;
            this.results = new ToolResult[count];
        }

        void lane() {
            while (true) {
                int i = next.getAndIncrement();
                if (i >= count) {
                    return;
                }
                try {
                    results[i] = task.run(i);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    if (done.incrementAndGet() == count) {
                        LockSupport.unpark(caller);
                    }
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
