package dev.toolyard.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Removes the calls started before a cut, without stopping writers: on partitioned PostgreSQL, the
 * day partitions wholly before it are detached concurrently and dropped; every other row before it
 * (all of them on SQLite) goes by deletes of at most {@value #BATCH} rows, each its own short
 * transaction, so a writer never waits longer than one batch. Works on its own connection, never the
 * writer's. Stateless; thread-safe.
 */
public final class Retention {
    /** Most rows one delete removes. */
    public static final int BATCH = 5_000;

    private Retention() {}

    /**
     * @param dataSource a source of connections to the store's database; never {@code null}
     * @param dialect its dialect; never {@code null}
     * @param guard checked before each delete; never {@code null}
     * @param cut calls started strictly before it are removed; never {@code null}
     * @return {partitions dropped, rows they held, rows deleted}; see {@code PruneResult}
     * @throws SQLException if the database refused (what was removed before stays removed)
     */
    public static Outcome prune(DataSource dataSource, Dialect dialect, CommitGuard guard, Instant cut)
            throws SQLException {
        Objects.requireNonNull(cut, "cut");
        List<String> dropped = new ArrayList<>();
        long inDropped = 0;
        long deleted = 0;
        guard.check();
        try (Connection c = dataSource.getConnection()) {
            dialect.prepareWriter(c);
            c.setAutoCommit(true);
            if (dialect == Dialect.POSTGRESQL) {
                boolean partitioned;
                try (Statement s = c.createStatement()) {
                    partitioned = Partitions.partitioned(s);
                }
                if (partitioned) {
                    Partitions.ensureAhead(c, Partitions.today());
                    try (Statement s = c.createStatement()) {
                        for (var day : Partitions.days(s).entrySet()) {
                            if (Partitions.epoch(day.getKey().plusDays(1)) <= cut.getEpochSecond()) {
                                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + day.getValue())) {
                                    rs.next();
                                    inDropped += rs.getLong(1);
                                }
                            }
                        }
                    }
                    dropped.addAll(Partitions.dropDaysBefore(c, cut.getEpochSecond()));
                }
            }
            String delete = "DELETE FROM " + CallTable.TABLE + " WHERE seq IN (SELECT seq FROM " + CallTable.TABLE
                    + " WHERE started_at_epoch_second <= ? AND (started_at_epoch_second < ? OR started_at_nano < ?)"
                    + " LIMIT " + BATCH + ")";
            try (PreparedStatement p = c.prepareStatement(delete)) {
                while (true) {
                    guard.check();
                    p.setLong(1, cut.getEpochSecond());
                    p.setLong(2, cut.getEpochSecond());
                    p.setInt(3, cut.getNano());
                    int n = p.executeUpdate();
                    deleted += n;
                    if (n < BATCH) {
                        break;
                    }
                }
            }
        }
        return new Outcome(dropped, inDropped, deleted);
    }

    /**
     * What one prune removed.
     *
     * @param partitionsDropped never {@code null}
     * @param rowsInDroppedPartitions how many rows those held (counted just before)
     * @param rowsDeleted how many rows the batched deletes removed
     */
    public record Outcome(List<String> partitionsDropped, long rowsInDroppedPartitions, long rowsDeleted) {}
}
