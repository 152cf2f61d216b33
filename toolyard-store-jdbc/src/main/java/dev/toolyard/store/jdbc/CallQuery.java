package dev.toolyard.store.jdbc;

import dev.toolyard.ToolStatus;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Which calls {@link JdbcToolCallStore#find(CallQuery)} returns: the newest {@code limit} calls that
 * match every criterion given, oldest first. A criterion left unset matches every call. Built with
 * {@link #newest(int)}; immutable and thread-safe; no accessor returns {@code null}.
 *
 * <pre>{@code
 * CallQuery q = CallQuery.newest(50).toolName("http_fetch").status(ToolStatus.REFUSED)
 *         .startedAtOrAfter(Instant.now().minus(Duration.ofMinutes(15)));
 * }</pre>
 */
public final class CallQuery {
    private final int limit;
    private final String invocationId;
    private final String toolName;
    private final ToolStatus status;
    private final Instant startedAtOrAfter;

    private CallQuery(int limit, String invocationId, String toolName, ToolStatus status, Instant startedAtOrAfter) {
        this.limit = limit;
        this.invocationId = invocationId;
        this.toolName = toolName;
        this.status = status;
        this.startedAtOrAfter = startedAtOrAfter;
    }

    /**
     * A query for the newest {@code limit} calls, with no other criterion yet.
     *
     * @param limit how many calls at most; positive
     * @return the query
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    public static CallQuery newest(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        return new CallQuery(limit, null, null, null, null);
    }

    /**
     * @param id only calls of this invocation; never {@code null}
     * @return a copy with the criterion set
     */
    public CallQuery invocationId(String id) {
        return new CallQuery(limit, Objects.requireNonNull(id, "invocationId"), toolName, status, startedAtOrAfter);
    }

    /**
     * @param name only calls asking for this tool name (exactly as recorded); never {@code null}
     * @return a copy with the criterion set
     */
    public CallQuery toolName(String name) {
        return new CallQuery(limit, invocationId, Objects.requireNonNull(name, "toolName"), status, startedAtOrAfter);
    }

    /**
     * @param s only calls that ended with this status; never {@code null}
     * @return a copy with the criterion set
     */
    public CallQuery status(ToolStatus s) {
        return new CallQuery(limit, invocationId, toolName, Objects.requireNonNull(s, "status"), startedAtOrAfter);
    }

    /**
     * @param instant only calls whose {@code startedAt} is this instant or later; never {@code null}
     * @return a copy with the criterion set
     */
    public CallQuery startedAtOrAfter(Instant instant) {
        return new CallQuery(limit, invocationId, toolName, status,
                Objects.requireNonNull(instant, "startedAtOrAfter"));
    }

    /** @return how many calls at most; positive */
    public int limit() {
        return limit;
    }

    /** @return the invocation criterion; empty when unset */
    public Optional<String> invocationId() {
        return Optional.ofNullable(invocationId);
    }

    /** @return the tool name criterion; empty when unset */
    public Optional<String> toolName() {
        return Optional.ofNullable(toolName);
    }

    /** @return the status criterion; empty when unset */
    public Optional<ToolStatus> status() {
        return Optional.ofNullable(status);
    }

    /** @return the earliest start criterion; empty when unset */
    public Optional<Instant> startedAtOrAfter() {
        return Optional.ofNullable(startedAtOrAfter);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallQuery q && limit == q.limit && Objects.equals(invocationId, q.invocationId)
                && Objects.equals(toolName, q.toolName) && status == q.status
                && Objects.equals(startedAtOrAfter, q.startedAtOrAfter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, invocationId, toolName, status, startedAtOrAfter);
    }

    @Override
    public String toString() {
        return "CallQuery[newest " + limit + invocationId().map(v -> ", invocation " + v).orElse("")
                + toolName().map(v -> ", tool " + v).orElse("") + status().map(v -> ", status " + v.wireName()).orElse("")
                + startedAtOrAfter().map(v -> ", since " + v).orElse("") + "]";
    }
}
