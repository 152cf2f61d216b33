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
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The completion's update on the partitioned (v7) PostgreSQL table finds its mark through the
 * {@code (call_id, start)} unique index of each partition, whatever the statistics say, and never by
 * reading the rows of the mark's day or second. Shown with {@code EXPLAIN ANALYZE} of the very
 * statement the writer sends, in the writer's session settings, on the case that defeated the shape
 * before: a day partition that was never analysed, already holding thousands of marks started in the
 * same second as the one completed. The shape before (the start as an equality, no {@code ANY}) is
 * run beside it and reported, not asserted: what the planner makes of it depends on statistics.
 */
class CompletionPartitionPruningTest {
    private static final int SAME_SECOND_MARKS = 3_000;
    /** A scan node that ran (a line not marked "never executed"): its kind, its index if any, its table. */
    private static final Pattern SCAN = Pattern.compile(
            "(Index Scan|Index Only Scan|Bitmap Index Scan|Bitmap Heap Scan|Seq Scan)(?: using (\\S+))? on (\\S+)"
                    + ".*actual time=\\S+ rows=(\\d+)");
    private static final Pattern REMOVED = Pattern.compile("Rows Removed by (?:Filter|Index Recheck): (\\d+)");

    @Test
    void theCompletionFindsItsMarkByTheUniqueIndexOnlyEvenBesideThousandsOfTheSameSecond() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.require();
                JdbcToolCallStore store = JdbcToolCallStore.of(db.dataSource())) {
            Instant startedAt = Instant.now();
            ToolCallStart start = new ToolCallStart("c-1", "inv", "t", "{}", "sha", false, startedAt);
            store.markStarted(start);
            ToolCallRecord done = new ToolCallRecord("c-1", "inv", "t", ToolStatus.OK, null, "", "{}", "sha", false,
                    "ok", startedAt, Duration.ofMillis(3));
            String statement = CallTable.batchStatement(CallTable.TABLE, false, true);

            try (Connection c = db.dataSource().getConnection()) {
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO " + CallTable.TABLE + " (call_id, invocation_id, tool_name, status,"
                            + " reason_detail, arguments, arguments_sha256, arguments_redacted, summary,"
                            + " started_at_epoch_second, started_at_nano, duration_second, duration_nano, completed)"
                            + " SELECT 'other-' || g, 'inv', 't', 'interrupted', '', '{}', 'sha', false, '', "
                            + startedAt.getEpochSecond() + ", g, 0, 0, false FROM generate_series(1, "
                            + SAME_SECOND_MARKS + ") g");
                }
                Dialect.POSTGRESQL.planWriterForPointWrites(c); // as the writer's connection is
                List<Scan> now = scans(c, statement, done);
                List<Scan> before = scans(c, statement.replace("t.call_id = ANY(?::text[])", "?::text[] IS NOT NULL")
                        .replace("IS NOT DISTINCT FROM", "="), done);
                System.out.printf("completion update beside %,d marks of the same second: %d rows read now %s;"
                        + " %d with the shape before %s%n", SAME_SECOND_MARKS, rowsRead(now), now, rowsRead(before),
                        before);

                assertThat(now).as("every partition scan of the completion's update").isNotEmpty()
                        .filteredOn(scan -> !scan.kind().equals("Bitmap Heap Scan"))
                        .allSatisfy(scan -> assertThat(scan.index()).as(scan.toString())
                                .endsWith("_call_id_started_at_epoch_second_key"));
                assertThat(rowsRead(now)).as("rows the scans returned: the mark alone").isEqualTo(1);
            }
            store.complete(done);
            assertThat(store.byCallId("c-1")).contains(done);
        }
    }

    @Test
    void aBatchOfOneKindLeavesOutTheOtherPart() {
        assertThat(CallTable.batchStatement(CallTable.TABLE, true, false)).contains("INSERT INTO")
                .doesNotContain("UPDATE").doesNotContain("ANY(");
        assertThat(CallTable.batchStatement(CallTable.TABLE, false, true)).contains("UPDATE")
                .doesNotContain("INSERT INTO");
        assertThat(CallTable.batchStatement(CallTable.TABLE)).contains("INSERT INTO").contains("UPDATE");
    }

    /** A scan that ran: its node, the index it used ({@code null} for a heap scan), its table, the rows it read. */
    private record Scan(String kind, String index, String table, long rowsRead) {
        @Override
        public String toString() {
            return kind + (index == null ? "" : " " + index) + " on " + table + " read " + rowsRead;
        }
    }

    private static long rowsRead(List<Scan> scans) {
        // A bitmap heap scan reads what its bitmap index scan found: count the heap scan's rows only.
        return scans.stream().filter(s -> !s.kind().equals("Bitmap Index Scan")).mapToLong(Scan::rowsRead).sum();
    }

    /** Runs the batch statement under EXPLAIN ANALYZE in a transaction it rolls back; the scans that ran. */
    private static List<Scan> scans(Connection c, String statement, ToolCallRecord completion) throws SQLException {
        c.setAutoCommit(false);
        List<String> plan = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) " + statement)) {
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
        List<Scan> scans = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++) {
            String line = plan.get(i);
            Matcher m = SCAN.matcher(line);
            if (!m.find() || line.contains("never executed")) {
                continue;
            }
            long read = Long.parseLong(m.group(4));
            for (int j = i + 1; j < plan.size() && !SCAN.matcher(plan.get(j)).find(); j++) {
                Matcher removed = REMOVED.matcher(plan.get(j));
                if (removed.find()) {
                    read += Long.parseLong(removed.group(1));
                }
            }
            boolean bitmapIndex = m.group(1).equals("Bitmap Index Scan");
            scans.add(new Scan(m.group(1), bitmapIndex ? m.group(3) : m.group(2), bitmapIndex ? "(bitmap)" : m.group(3),
                    read));
        }
        if (scans.isEmpty()) {
            throw new AssertionError("no scan in the plan:\n" + String.join("\n", plan));
        }
        return scans;
    }
}
