package dev.toolyard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A store that keeps records in memory, for tests and demos: nothing survives the process.
 * Thread-safe (one lock around a list). Records are kept in the order calls were first written.
 */
public final class InMemoryToolCallStore implements ToolCallStore, ToolCallReader {
    private final Object lock = new Object();
    private final List<Object> entries = new ArrayList<>(); // ToolCallStart (still open) or ToolCallRecord
    private final Map<String, Integer> openByCallId = new HashMap<>();

    /** Creates an empty store. */
    public InMemoryToolCallStore() {}

    @Override
    public void markStarted(ToolCallStart start) {
        Objects.requireNonNull(start, "start");
        synchronized (lock) {
            if (openByCallId.containsKey(start.callId())) {
                throw new IllegalStateException("call " + start.callId() + " was already marked as started");
            }
            openByCallId.put(start.callId(), entries.size());
            entries.add(start);
        }
    }

    @Override
    public void complete(ToolCallRecord record) {
        Objects.requireNonNull(record, "record");
        synchronized (lock) {
            Integer index = openByCallId.remove(record.callId());
            if (index == null) {
                throw new IllegalStateException("call " + record.callId() + " was not marked as started");
            }
            entries.set(index, record);
        }
    }

    @Override
    public void append(ToolCallRecord record) {
        Objects.requireNonNull(record, "record");
        synchronized (lock) {
            entries.add(record);
        }
    }

    /** @return every call in order, started-but-unfinished ones as INTERRUPTED; unmodifiable; never {@code null} */
    public List<ToolCallRecord> records() {
        return select(r -> true);
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
        synchronized (lock) {
            for (Object e : entries) {
                ToolCallRecord r = e instanceof ToolCallStart s ? ToolCallRecord.interrupted(s) : (ToolCallRecord) e;
                if (filter.test(r)) {
                    out.add(r);
                }
            }
        }
        return List.copyOf(out);
    }
}
