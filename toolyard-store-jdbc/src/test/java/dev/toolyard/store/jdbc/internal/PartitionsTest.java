package dev.toolyard.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import dev.toolyard.store.jdbc.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PartitionsTest {

    @Test
    void makingDaysAheadMovesTheirRowsOutOfTheAfterPartitionWithEveryColumn() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.require();
                JdbcToolCallStore store = JdbcToolCallStore.of(db.dataSource())) {
            LocalDate today = Partitions.today();
            LocalDate farDay = today.plusDays(Partitions.DAYS_AHEAD + 3);
            ToolCallRecord far = new ToolCallRecord("far", "inv", "t", ToolStatus.OK, null, "", "{}", "sha", false, "ok",
                    farDay.atTime(12, 0).toInstant(ZoneOffset.UTC).plusNanos(7), Duration.ofMillis(2), "req", "alice",
                    "agent", "shadow");
            store.append(far);
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                assertThat(count(s, Partitions.AFTER)).as("beyond the days made, the row waits in 'after'").isEqualTo(1);

                assertThat(Partitions.ensureAhead(c, today.plusDays(5))).contains(farDay);

                assertThat(count(s, Partitions.AFTER)).isZero();
                assertThat(count(s, Partitions.dayName(farDay))).isEqualTo(1);
            }
            assertThat(store.byCallId("far")).contains(far);
        }
    }

    private static long count(Statement s, String table) throws Exception {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
