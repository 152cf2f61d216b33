package dev.toolyard;

import dev.toolyard.internal.Deadlines;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs an admitted call's handler under its deadline, in one of two places.
 *
 * <ul>
 *   <li>On the caller's thread: a per-thread deadline slot that one watchdog interrupts at the deadline;
 *       a late return is reported as a timeout. Cheap (no handoff), but a handler that ignores
 *       interruption holds the caller until it returns: for cooperative handlers only.
 *   <li>Handed off to the executor's {@link WorkerPool}: the caller waits at most until the deadline,
 *       then the worker is interrupted and abandoned, its slot held until the handler returns.
 * </ul>
 *
 * Thread-safe.
 */
final class HandlerRunner {
    private final WorkerPool pool;

    HandlerRunner(WorkerPool pool) {
        this.pool = pool;
    }

    Outcome run(Admitted admitted) {
        ContainedArgs contained = admitted.contained();
        ToolHandler handler = contained.tool().handler();
        ToolArgs args = contained.toolArgs();
        ToolContext context = admitted.call().context;
        long limitNanos = context.timeout().toNanos();
        return admitted.onCallersThread()
                ? onCallersThread(handler, args, context, limitNanos)
                : handedOff(handler, args, context, limitNanos, admitted.slot());
    }

    private static Outcome onCallersThread(ToolHandler handler, ToolArgs args, ToolContext context, long limitNanos) {
        long begin = System.nanoTime();
        Deadlines deadlines = Deadlines.shared(); // its watchdog thread starts on first use
        Deadlines.Slot slot = deadlines.arm(begin, limitNanos);
        Outcome outcome;
        try {
            outcome = Outcome.returned(handler.handle(args, context));
        } catch (Throwable t) {
            outcome = Outcome.thrown(t);
        }
        long elapsed = System.nanoTime() - begin;
        boolean fired = deadlines.disarm(slot);
        return fired || elapsed > limitNanos ? Outcome.timedOut(elapsed) : outcome;
    }

    private Outcome handedOff(ToolHandler handler, ToolArgs args, ToolContext context, long limitNanos,
            HandlerSlots.Slot slot) {
        long begin = System.nanoTime();
        Handoff task = new Handoff(() -> handler.handle(args, context));
        try {
            pool.execute(task, slot);
        } catch (RejectedExecutionException e) {
            return Outcome.thrown(e);
        }
        try {
            return Outcome.returned(task.get(limitNanos, TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
            return Outcome.thrown(e.getCause() == null ? e : e.getCause());
        } catch (CancellationException e) {
            return Outcome.thrown(new RejectedExecutionException("the executor was closed before the handler ran"));
        } catch (TimeoutException e) {
            task.cancel(true);
            return Outcome.timedOut(System.nanoTime() - begin);
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            return Outcome.thrown(e);
        }
    }

    /**
     * A handed-off handler's task whose outcome the worker publishes only after giving the slot back
     * ({@link WorkerPool.Deferred}). {@link FutureTask#run} ends in {@code set} or {@code setException}; here
     * those only keep the outcome, and {@link #publish} completes the future. A task cancelled at its
     * deadline meanwhile stays cancelled: the late outcome is dropped, as before.
     */
    private static final class Handoff extends FutureTask<ToolOutput> implements WorkerPool.Deferred {
        private ToolOutput value;
        private Throwable failure;

        Handoff(Callable<ToolOutput> callable) {
            super(callable);
        }

        @Override
        protected void set(ToolOutput v) {
            value = v; // read by publish on the same worker thread
        }

        @Override
        protected void setException(Throwable t) {
            failure = t;
        }

        @Override
        public void publish() {
            if (failure != null) {
                super.setException(failure);
            } else {
                super.set(value);
            }
        }
    }
}
