package dev.toolyard.store.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What {@link JdbcToolCallStore#prune} removed: every call started before {@code cut}. Immutable.
 *
 * @param cut calls started strictly before this instant were removed; never {@code null}
 * @param partitionsDropped the PostgreSQL day partitions detached and dropped whole, oldest first;
 *     empty on SQLite; never {@code null}
 * @param rowsInDroppedPartitions how many calls those partitions held
 * @param rowsDeleted how many calls were deleted row by row, in bounded batches (on SQLite all of
 *     them; on PostgreSQL those of the day the cut falls in and of the partitions before and after the days)
 */
public record PruneResult(Instant cut, List<String> partitionsDropped, long rowsInDroppedPartitions, long rowsDeleted) {
    /**
     * @param cut calls started strictly before this instant were removed
     * @param partitionsDropped the day partitions dropped whole, oldest first; copied
     * @param rowsInDroppedPartitions how many calls those partitions held
     * @param rowsDeleted how many calls were deleted row by row
     * @throws NullPointerException if {@code cut} or {@code partitionsDropped} is {@code null}
     */
    public PruneResult {
        Objects.requireNonNull(cut, "cut");
        partitionsDropped = List.copyOf(partitionsDropped);
    }

    /** @return every call removed */
    public long removed() {
        return rowsInDroppedPartitions + rowsDeleted;
    }
}
