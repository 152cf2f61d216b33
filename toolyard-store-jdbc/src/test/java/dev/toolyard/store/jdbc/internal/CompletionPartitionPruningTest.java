package dev.toolyard.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import dev.toolyard.store.jdbc.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The completion's update on the partitioned (v7) PostgreSQL table names the call's start second, the
 * partition key, so PostgreSQL reads one day partition to find the mark instead of probing the
 * {@code (call_id, start)} index of every partition; and the writer's session finds it by that index,
 * never by reading the partition. Shown with {@code EXPLAIN ANALYZE} of the very statement the
 * writer sends, beside the same statement without the start (the shape before).
 */
class CompletionPartitionPruningTest {
    private static final String WITHOUT_START = " AND t.started_at_epoch_second = v.started_at_epoch_second";
    /** A partition the plan actually read: an index or sequential scan line not marked "never executed". */
    private static final Pattern SCANNED = Pattern.compile(
            "(?:Index Scan|Index Only Scan|Bitmap Heap Scan|Seq Scan)(?: using \\S+)? on (toolyard_call_\\w+)");

    @Test
    void theCompletionUpdateReadsOnlyThePartitionOfItsStartDay() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.require();
                JdbcToolCallStore store = JdbcToolCallStore.of(db.dataSource())) {
            Instant startedAt = Instant.now();
            ToolCallStart start = new ToolCallStart("c-1", "inv", "t", "{}", "sha", false, startedAt);
            store.markStarted(start);
            ToolCallRecord done = new ToolCallRecord("c-1", "inv", "t", ToolStatus.OK, null, "", "{}", "sha", false,
                    "ok", startedAt, Duration.ofMillis(3));
            String statement = CallTable.batchStatement(CallTable.TABLE);
            assertThat(statement).contains(WITHOUT_START);

            try (Connection c = db.dataSource().getConnection()) {
                int partitions;
                try (var s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_inherits WHERE inhparent = '" + CallTable.TABLE + "'::regclass")) {
                    rs.next();
                    partitions = rs.getInt(1);
                }
                assertThat(partitions).as("today, the days around it, 'before' and 'after'").isGreaterThan(3);

                Dialect.POSTGRESQL.planWriterForPointWrites(c); // as the writer's connection is
                List<String> now = scannedPartitions(c, statement, done);
                List<String> before = scannedPartitions(c, statement.replace(WITHOUT_START, ""), done);
                System.out.printf("completion update: %d of %d partitions read with the start in its WHERE %s,"
                        + " %d without it%n", now.size(), partitions, now, before.size());

                assertThat(now).as("the partitions the completion's update read, each by index")
                        .containsExactly(Partitions.dayName(startedAt.atZone(java.time.ZoneOffset.UTC).toLocalDate()));
                assertThat(before).as("without the start, every partition is probed").hasSize(partitions);
            }
            store.complete(done);
            assertThat(store.byCallId("c-1")).contains(done);
        }
    }

    /** Runs the batch statement under EXPLAIN ANALYZE in a transaction it rolls back. */
    private static List<String> scannedPartitions(Connection c, String statement, ToolCallRecord completion)
            throws SQLException {
        c.setAutoCommit(false);
        List<String> plan = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "
                + statement)) {
            CallTable.bindBatch(c, p, List.of(new Write(Write.Kind.COMPLETE, completion)));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    plan.add(rs.getString(1));
                }
            }
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
        List<String> scanned = new ArrayList<>();
        for (String line : plan) {
            Matcher m = SCANNED.matcher(line);
            if (m.find() && !line.contains("never executed")) {
                scanned.add(m.group(1) + (line.contains("Index") ? "" : " (" + line.trim().split(" on ")[0] + ")"));
            }
        }
        if (scanned.isEmpty()) {
            throw new AssertionError("no partition scan in the plan:\n" + String.join("\n", plan));
        }
        return scanned;
    }
}
