package dev.toolyard;

import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.ToolCallReader;
import dev.toolyard.spi.ToolCallStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * A store that keeps records in memory, for tests and demos: nothing survives the process.
 * Thread-safe and lock-free. Records are kept in the order calls were first written: by when each was
 * written ({@link System#nanoTime()}, which is monotonic across the JVM's threads), so a call written
 * after another was, on any thread, comes after it; two calls written by two threads in the same
 * nanosecond, which no order between them can have caused, come in an unspecified order.
 */
public final class InMemoryToolCallStore implements ToolCallStore, ToolCallReader {
    /**
     * Stripes of the open-call table. One map shared by every caller is one size counter and a table of a
     * few cache lines that every mark and every completion writes; call ids are random, so two threads'
     * calls land in different stripes but for one time in {@value}.
     */
    private static final int STRIPES = 16;

    /**
     * Lanes of the list of entries, by the writing thread. One queue shared by every caller is one tail
     * that every mark and every append compares and swaps; a lane per thread (but for one time in
     * {@value}) keeps two threads' writes off each other's cache lines. The order is each entry's
     * {@link Entry#written}, merged when the records are read.
     */
    private static final int LANES = 16;

    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedQueue<Entry>[] entries = new ConcurrentLinkedQueue[LANES];
    @SuppressWarnings("unchecked")
    private final ConcurrentHashMap<String, Entry>[] open = new ConcurrentHashMap[STRIPES];

    /** Creates an empty store. */
    public InMemoryToolCallStore() {
        for (int i = 0; i < STRIPES; i++) {
            open[i] = new ConcurrentHashMap<>();
        }
        for (int i = 0; i < LANES; i++) {
            entries[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /** @return the calling thread's lane of the entries */
    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19; getId() is the same number
    private ConcurrentLinkedQueue<Entry> lane() {
        long id = Thread.currentThread().getId();
        return entries[(int) (id ^ (id >>> 16)) & (LANES - 1)];
    }

    /** @return the stripe of the open-call table that holds this call, if open */
    private ConcurrentHashMap<String, Entry> open(String callId) {
        int h = callId.hashCode();
        return open[(h ^ (h >>> 16)) & (STRIPES - 1)];
    }

    /** A call as first written; a started call gets its record when it completes. */
    private static final class Entry {
        final ToolCallStart start;
        /** When the entry was written, the order of {@link #records()}. */
        final long written = System.nanoTime();
        volatile ToolCallRecord record;

        Entry(ToolCallStart start, ToolCallRecord record) {
            this.start = start;
            this.record = record;
        }

        ToolCallRecord read() {
            ToolCallRecord r = record;
            return r != null ? r : ToolCallRecord.interrupted(start);
        }
    }

    @Override
    public void markStarted(ToolCallStart start) {
        Objects.requireNonNull(start, "start");
        Entry e = new Entry(start, null);
        if (open(start.callId()).putIfAbsent(start.callId(), e) != null) {
            throw new IllegalStateException("call " + start.callId() + " was already marked as started");
        }
        lane().add(e);
    }

    @Override
    public void complete(ToolCallRecord record) {
        Objects.requireNonNull(record, "record");
        Entry e = open(record.callId()).remove(record.callId());
        if (e == null) {
            throw new IllegalStateException("call " + record.callId() + " was not marked as started");
        }
        e.record = record;
    }

    @Override
    public void append(ToolCallRecord record) {
        lane().add(new Entry(null, Objects.requireNonNull(record, "record")));
    }

    /** @return every call in order, started-but-unfinished ones as INTERRUPTED; unmodifiable; never {@code null} */
    public List<ToolCallRecord> records() {
        return select(r -> true);
    }

    /** Forgets every record, for long-running demos and benchmarks. Calls still running are kept. */
    public void clear() {
        for (ConcurrentLinkedQueue<Entry> lane : entries) {
            lane.removeIf(e -> e.record != null || !open(e.start.callId()).containsKey(e.start.callId()));
        }
    }

    @Override
    public List<ToolCallRecord> byInvocation(String invocationId) {
        Objects.requireNonNull(invocationId, "invocationId");
        return select(r -> r.invocationId().equals(invocationId));
    }

    @Override
    public List<ToolCallRecord> recent(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        List<ToolCallRecord> all = records();
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }

    @Override
    public List<ToolCallRecord> byToolAndStatus(String toolName, ToolStatus status) {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(status, "status");
        return select(r -> r.toolName().equals(toolName) && r.status() == status);
    }

    private List<ToolCallRecord> select(Predicate<ToolCallRecord> filter) {
        List<ToolCallRecord> out = new ArrayList<>();
        List<Entry> all = new ArrayList<>();
        for (ConcurrentLinkedQueue<Entry> lane : entries) {
            all.addAll(lane);
        }
        all.sort(Comparator.comparingLong(e -> e.written)); // stable: one thread's entries keep their order
        for (Entry e : all) {
            ToolCallRecord r = e.read();
            if (filter.test(r)) {
                out.add(r);
            }
        }
        return List.copyOf(out);
    }
}
