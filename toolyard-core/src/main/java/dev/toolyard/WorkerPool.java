package dev.toolyard;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The executor's own worker threads for handed-off handlers. No thread exists until the first handoff;
 * an idle worker waits {@value #KEEP_ALIVE_SECONDS} s for work and then ends. The most recently idle
 * worker is reused first. A worker goes back to the idle list <em>before</em> it gives its handler slot
 * back, so the number of busy workers never exceeds the slots held: there are never more threads than
 * {@link HandlerSlots} allows, and a caller holding a slot always finds an idle worker or room for a new
 * one. A task handed to a worker that ends before running it (the pool closed in between) is reclaimed
 * exactly once, by the worker or by the caller, which gives its slot back and cancels it. A task that is
 * a {@link Deferred} has its outcome published only after its slot is back, so the caller it wakes never
 * finds its own slot still held. Lock-free; thread-safe.
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

    /** A task whose outcome the worker publishes itself, once it is idle and its slot is back. */
    interface Deferred extends Runnable {
        /** Makes the outcome {@link #run} computed visible to its caller. */
        void publish();
    }

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
            Pending p = w.hand(task, slot);
            t.start();
            reclaimIfClosed(w, p);
            return;
        }
        reclaimIfClosed(w, w.hand(task, slot));
    }

    /** A close racing this handoff may have ended the worker before it took the task: take it back. */
    private void reclaimIfClosed(Worker w, Pending p) {
        if (closed && w.pending.compareAndSet(p, null)) {
            p.abandon();
            throw new RejectedExecutionException("the executor is closed");
        }
    }

    /** A task and the slot it holds, handed over as one value so exactly one side can claim it. */
    private record Pending(Runnable task, HandlerSlots.Slot slot) {
        void abandon() {
            slot.release();
            if (task instanceof Future<?> f) {
                f.cancel(false);
            }
        }
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
        final AtomicReference<Pending> pending = new AtomicReference<>();

        Pending hand(Runnable task, HandlerSlots.Slot slot) {
            Pending p = new Pending(task, slot);
            pending.set(p);
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
            return p;
        }

        @Override
        public void run() {
            try {
                while (!closed) {
                    Pending next = awaitTask();
                    if (next == null) {
                        return;
                    }
                    Thread.interrupted(); // a cancel aimed at the previous handler must not reach this one
                    try {
                        next.task().run();
                    } catch (Throwable ignored) {
                        // the task is a FutureTask: it keeps its own outcome
                    }
                    Thread.interrupted();
                    if (!closed) {
                        idle.offerFirst(this);
                    }
                    next.slot().release(); // after going idle, so busy workers never outnumber held slots
                    if (next.task() instanceof Deferred deferred) {
                        deferred.publish(); // last: a caller woken by it finds its slot already back
                    }
                }
            } finally {
                idle.remove(this);
                all.remove(this);
                Pending left = pending.getAndSet(null);
                if (left != null) {
                    left.abandon(); // handed over as the pool closed, never run
                }
            }
        }

        /** @return the next task, or {@code null} when idle past the keep-alive or closed */
        private Pending awaitTask() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(KEEP_ALIVE_SECONDS);
            while (true) {
                Pending next = pending.getAndSet(null);
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
