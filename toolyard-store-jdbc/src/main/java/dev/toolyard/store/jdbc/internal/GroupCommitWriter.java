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
 * Group commit: writer threads (a small fixed set, each with its own table and connection) drain one
 * queue of writes, each committing whatever has gathered as one transaction, while every caller
 * waits for the fate of its own write. Durability then costs one sync per batch rather than one per
 * call, and the more callers wait, the larger the batches. With more than one writer, a batch is
 * gathered and sent while the one before it waits for its sync (PostgreSQL flushes the WAL of
 * commits that arrive together once), so the callers a commit releases do not wait a whole commit
 * for the next one to begin.
 *
 * <p>Guarantees: a caller returns only after the transaction holding its write committed; a write
 * queued after another returned is committed after it (so one thread's writes, which it makes one at
 * a time, keep its order; with one writer, writes are committed exactly in the order queued); a batch
 * that fails fails every caller in it and leaves none of its rows; a failed batch does not stop its
 * writer, so the next batch tries again. Thread-safe.
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

    private final List<CallTable> tables;
    private final String description;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Object admission = new Object();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong transactions = new AtomicLong();
    private boolean closed; // guarded by admission

    /**
     * Starts one writer thread per table (daemons: a store never closed does not keep the JVM alive).
     *
     * @param tables where batches are written, one writer thread each; owned by this writer from now
     *     on; never {@code null} or empty
     * @param description names the database in messages; never {@code null}
     */
    public GroupCommitWriter(List<CallTable> tables, String description) {
        this.tables = List.copyOf(tables);
        if (this.tables.isEmpty()) {
            throw new IllegalArgumentException("tables must not be empty");
        }
        this.description = Objects.requireNonNull(description, "description");
        long id = THREADS.incrementAndGet();
        for (int i = 0; i < this.tables.size(); i++) {
            CallTable table = this.tables.get(i);
            Thread thread = new Thread(() -> run(table), "toolyard-store-writer-" + id + (this.tables.size() == 1 ? ""
                    : "-" + (i + 1)));
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
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

    private void run(CallTable table) {
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
                commit(table, batch);
                expected = batch.size();
            }
            if (stop) {
                queue.add(STOP); // for the next writer thread: nothing else is queued after it
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

    private void commit(CallTable table, List<Pending> batch) {
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
     * threads and closes their tables. Idempotent.
     *
     * @throws StoreFailureException if a table's connection cannot be closed
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
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        StoreFailureException failure = null;
        for (CallTable table : tables) {
            try {
                table.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new StoreFailureException("could not close " + description + ": " + e, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
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
