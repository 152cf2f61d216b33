package dev.toolyard;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The executor's own worker threads for handed-off handlers. No thread exists until the first handoff;
 * an idle worker waits {@value #KEEP_ALIVE_SECONDS} s for work and then ends. The most recently idle
 * worker is reused first. A worker goes back to the idle list <em>before</em> it gives its handler slot
 * back, so the number of busy workers never exceeds the slots held: there are never more threads than
 * {@link HandlerSlots} allows, and a caller holding a slot always finds an idle worker or room for a new
 * one. Lock-free; thread-safe.
 */
final class WorkerPool {
    static final long KEEP_ALIVE_SECONDS = 60;
    private static final AtomicLong COUNTER = new AtomicLong();
    /** The default: daemon threads (they never hold the JVM open) named {@code toolyard-handler-N}. */
    static final ThreadFactory DAEMON_THREADS = r -> {
        Thread t = new Thread(r, "toolyard-handler-" + COUNTER.incrementAndGet());
        t.setDaemon(true);
        return t;
    };

    private final ThreadFactory threads;
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();
    private final Set<Worker> all = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    WorkerPool(ThreadFactory threads) {
        this.threads = threads;
    }

    /**
     * Runs the task on a worker; the slot is released once the task has returned and the worker is idle.
     *
     * @param task the handler's task
     * @param slot the slot the caller took for it
     * @throws RejectedExecutionException if the pool is closed or the thread factory made no thread; the
     *     slot is then released
     */
    void execute(Runnable task, HandlerSlots.Slot slot) {
        if (closed) {
            slot.release();
            throw new RejectedExecutionException("the executor is closed");
        }
        Worker w = idle.pollFirst();
        if (w == null) {
            w = new Worker();
            Thread t;
            try {
                t = threads.newThread(w);
            } catch (RuntimeException e) {
                slot.release();
                throw new RejectedExecutionException("the thread factory failed: " + e, e);
            }
            if (t == null) {
                slot.release();
                throw new RejectedExecutionException("the thread factory made no thread");
            }
            w.thread = t;
            all.add(w);
            w.hand(task, slot);
            t.start();
            return;
        }
        w.hand(task, slot);
    }

    /** Stops every idle worker and interrupts the busy ones; later handoffs are rejected. Idempotent. */
    void close() {
        closed = true;
        for (Worker w : all) {
            Thread t = w.thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    /** @return the workers alive now, busy or idle */
    int size() {
        return all.size();
    }

    private final class Worker implements Runnable {
        volatile Thread thread;
        private volatile Runnable task;
        private volatile HandlerSlots.Slot slot;

        void hand(Runnable task, HandlerSlots.Slot slot) {
            this.slot = slot;
            this.task = task; // published last: the worker reads task, then slot
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        @Override
        public void run() {
            try {
                while (!closed) {
                    Runnable next = awaitTask();
                    if (next == null) {
                        return;
                    }
                    HandlerSlots.Slot held = slot;
                    task = null;
                    slot = null;
                    Thread.interrupted(); // a cancel aimed at the previous handler must not reach this one
                    try {
                        next.run();
                    } catch (Throwable ignored) {
                        // the task is a FutureTask: it keeps its own outcome
                    }
                    Thread.interrupted();
                    if (!closed) {
                        idle.offerFirst(this);
                    }
                    held.release(); // after going idle, so busy workers never outnumber held slots
                }
            } finally {
                idle.remove(this);
                all.remove(this);
            }
        }

        /** @return the next task, or {@code null} when idle past the keep-alive or closed */
        private Runnable awaitTask() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(KEEP_ALIVE_SECONDS);
            while (true) {
                Runnable next = task;
                if (next != null) {
                    return next;
                }
                if (closed) {
                    return null;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 && idle.remove(this)) {
                    return null; // nobody took this worker: it may end
                }
                // Past the keep-alive but already taken by a caller: its task is on the way.
                LockSupport.parkNanos(this, left > 0 ? left : 1_000_000L);
            }
        }
    }
}
