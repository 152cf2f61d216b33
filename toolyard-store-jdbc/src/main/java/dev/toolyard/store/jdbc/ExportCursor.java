package dev.toolyard.store.jdbc;

import java.time.Instant;
import java.util.Objects;

/**
 * Where an export stopped: the last record it wrote, by the export order (start, then call id). The
 * next {@link JdbcToolCallStore#exportAfter} call with it returns the records after that one, so a
 * job that keeps its cursor ships each record once. Immutable.
 *
 * @param startedAt the last exported record's start; never {@code null}
 * @param callId the last exported record's call id; never {@code null}
 */
public record ExportCursor(Instant startedAt, String callId) {
    /**
     * @param startedAt the last exported record's start
     * @param callId the last exported record's call id
     * @throws NullPointerException if a component is {@code null}
     */
    public ExportCursor {
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(callId, "callId");
    }
}
