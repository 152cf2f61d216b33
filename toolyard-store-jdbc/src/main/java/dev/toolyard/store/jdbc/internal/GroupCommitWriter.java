package dev.toolyard.store.jdbc.internal;

import dev.toolyard.StoreFailureException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Group commit: one writer thread drains a queue of writes and commits whatever has gathered as one
 * transaction, while each caller waits for the fate of its own write. Durability then costs one
 * sync per batch rather than one per call, and the more callers wait, the larger the batches.
 *
 * <p>Guarantees: a caller returns only after the transaction holding its write committed; writes
 * are committed in the order they were queued (so one thread's writes, which it makes one at a time,
 * keep its order); a batch that fails fails every caller in it and leaves none of its rows; a failed
 * batch does not stop the writer, so the next batch tries again. Thread-safe.
 */
public final class GroupCommitWriter implements AutoCloseable {
    /** Most writes in one transaction. */
    public static final int MAX_BATCH = 512;
    /** Longest the writer waits for the callers of its last batch to come back, in nanoseconds. */
    public static final long LINGER_NANOS = 500_000;

    /**
     * What a failed completion adds to its message: by then the handler has run, so its side effects
     * happened whatever the record says, and the caller must not run the call again as if it had not.
     */
    public static final String COMPLETION_FAILED = "; THE HANDLER HAS ALREADY RUN (its side effects happened): do not"
            + " retry this call blindly. Its record reads as interrupted (its write-ahead mark), or as completed if"
            + " the server committed the completion but its answer was lost";

    private static final Pending STOP = new Pending(null);
    private static final AtomicLong THREADS = new AtomicLong();

    private final CallTable table;
    private final String description;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Object admission = new Object();
    private final Thread thread;
    private final AtomicLong transactions = new AtomicLong();
    private boolean closed; // guarded by admission

    /**
     * Starts the writer thread (a daemon: a store never closed does not keep the JVM alive).
     *
     * @param table where batches are written; owned by this writer from now on; never {@code null}
     * @param description names the database in messages; never {@code null}
     */
    public GroupCommitWriter(CallTable table, String description) {
        this.table = Objects.requireNonNull(table, "table");
        this.description = Objects.requireNonNull(description, "description");
        this.thread = new Thread(this::run, "toolyard-store-writer-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Queues a write and waits, without giving in to interruption, until its transaction committed
     * or failed. An interrupt that arrives meanwhile is kept for the caller to see.
     *
     * @param write the write; never {@code null}
     * @throws StoreFailureException if the batch holding the write failed: nothing of it was kept
     *     (or, if the database file vanished at commit, nothing of it will survive)
     * @throws IllegalStateException if the write was refused alone (a call id already recorded, or a
     *     completion with no open mark), or if the writer is closed
     */
    public void submit(Write write) {
        Objects.requireNonNull(write, "write");
        Pending pending = new Pending(write);
        synchronized (admission) {
            if (closed) {
                throw new IllegalStateException("the call store is closed");
            }
            queue.add(pending);
        }
        try {
            pending.done.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            String what = "could not " + write.kind().verb() + " call " + write.record().callId() + " in " + description;
            if (cause instanceof Refused) {
                throw new IllegalStateException(what + ": " + cause.getMessage());
            }
            if (write.kind() == Write.Kind.COMPLETE) {
                throw new StoreFailureException(what + ": " + cause + COMPLETION_FAILED, cause);
            }
            throw new StoreFailureException(what + ": " + cause, cause);
        }
    }

    /** @return how many transactions the writer has attempted */
    public long transactions() {
        return transactions.get();
    }

    /** @return how many writes wait for the writer right now */
    public int queued() {
        return queue.size();
    }

    private void run() {
        List<Pending> batch = new ArrayList<>(MAX_BATCH);
        int expected = 1;
        while (true) {
            batch.clear();
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                continue; // nobody interrupts this thread on purpose; keep serving the queue
            }
            queue.drainTo(batch, MAX_BATCH - 1);
            gatherLateArrivals(batch, expected);
            boolean stop = batch.get(batch.size() - 1) == STOP; // STOP is the last thing ever queued
            if (stop) {
                batch.remove(batch.size() - 1);
            }
            if (!batch.isEmpty()) {
                commit(batch);
                expected = batch.size();
            }
            if (stop) {
                return;
            }
        }
    }

    /**
     * The callers the last commit released are likely to be back within microseconds with their next
     * write; a sync costs far more, so wait briefly (at most {@link #LINGER_NANOS}) for as many as the
     * last batch held. A lone caller (last batch of one) never waits.
     */
    private void gatherLateArrivals(List<Pending> batch, int expected) {
        long deadline = System.nanoTime() + LINGER_NANOS;
        while (batch.size() < Math.min(expected, MAX_BATCH) && batch.get(batch.size() - 1) != STOP) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Pending next;
            try {
                next = queue.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (next == null) {
                return;
            }
            batch.add(next);
            if (next != STOP) {
                queue.drainTo(batch, MAX_BATCH - batch.size());
            }
        }
    }

    private void commit(List<Pending> batch) {
        List<Write> writes = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            writes.add(p.write);
        }
        transactions.incrementAndGet();
        int[] counts;
        try {
            counts = table.write(writes);
        } catch (Throwable t) {
            for (Pending p : batch) {
                p.done.completeExceptionally(t);
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Pending p = batch.get(i);
            if (counts[i] != 0) {
                p.done.complete(null);
            } else if (p.write.kind() == Write.Kind.COMPLETE) {
                p.done.completeExceptionally(new Refused("it was not marked as started, or was already completed"));
            } else {
                p.done.completeExceptionally(new Refused("a call with that id is already recorded"));
            }
        }
    }

    /**
     * Refuses new writes, waits until every queued write is committed (or failed), stops the writer
     * thread and closes the table. Idempotent.
     *
     * @throws StoreFailureException if the table's connection cannot be closed
     */
    @Override
    public void close() {
        synchronized (admission) {
            if (closed) {
                return;
            }
            closed = true;
            queue.add(STOP);
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            table.close();
        } catch (Exception e) {
            throw new StoreFailureException("could not close " + description + ": " + e, e);
        }
    }

    /** A write the database refused on its own, without failing its batch. */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private static final class Pending {
        final Write write;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Pending(Write write) {
            this.write = write;
        }
    }
}
