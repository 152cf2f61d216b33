package dev.toolyard.store.jdbc;

import java.util.Optional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.internal.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention, export and the version 7 upgrade, on both stores: a version 5 store holding records (written
 * by hand, exactly as version 5 wrote them) is opened by this library, which upgrades it in place
 * (on PostgreSQL to range partitions by start) keeping every record; then {@code prune} removes
 * exactly the calls started before the cut while writers keep appending.
 */
class RetentionTest {
    static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusNanos(123_456_789);
    static final String COLUMNS = "call_id, invocation_id, tool_name, status, reason, reason_detail, arguments, "
            + "arguments_sha256, arguments_redacted, summary, started_at_epoch_second, started_at_nano, duration_second, "
            + "duration_nano, completed, request_call_id, approver, agent, shadow_denial";

    @Test
    void theDefaultsAndBoundsAreReadFromTheBuiltStoreNotFromConstants(@TempDir Path dir) {
        try (JdbcToolCallStore plain = JdbcToolCallStore.sqlite(dir.resolve("plain.db"));
                JdbcToolCallStore kept = JdbcToolCallStore.builder(dir.resolve("kept.db")).retention(Duration.ofDays(7))
                        .build();
                JdbcToolCallStore often = JdbcToolCallStore.builder(dir.resolve("often.db")).retention(Duration.ofDays(7))
                        .pruneEvery(Duration.ofMinutes(5)).build()) {
            assertThat(plain.settings()).isEqualTo(new JdbcToolCallStore.Settings(1, Optional.empty(), Optional.empty(),
                    Optional.of(Duration.ofSeconds(10)), 16, Duration.ofHours(1), Duration.ofDays(36_500)));
            assertThat(kept.settings().retention()).contains(Duration.ofDays(7));
            assertThat(kept.settings().pruneEvery()).contains(Duration.ofHours(1));
            assertThat(often.settings().pruneEvery()).contains(Duration.ofMinutes(5));
        }
    }

    @Test
    void aNonsenseRetentionPruneIntervalOrWriterCountFailsAtOnceNamingTheParameter(@TempDir Path dir) {
        JdbcToolCallStore.Builder b = JdbcToolCallStore.builder(dir.resolve("calls.db"));
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMinutes(-5), Duration.ofMinutes(59),
                Duration.ofDays(36_501))) {
            assertThatThrownBy(() -> b.retention(bad)).as("%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("retention must be between PT1H and 36500 days").hasMessageEndingWith(
                            "got " + bad);
        }
        assertThatThrownBy(() -> b.retention(null)).isInstanceOf(NullPointerException.class).hasMessage("retention");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(999), Duration.ofDays(2))) {
            assertThatThrownBy(() -> b.pruneEvery(bad)).as("%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("pruneEvery must be between PT1S and P1D, got " + bad);
        }
        for (int bad : new int[] {0, -1, JdbcToolCallStore.MAX_WRITERS + 1}) {
            assertThatThrownBy(() -> b.writers(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("writers must be between 1 and 16, got " + bad);
        }
        assertThatThrownBy(() -> JdbcToolCallStore.builder(dir.resolve("calls.db")).pruneEvery(Duration.ofHours(1))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("pruneEvery is set but retention is not");
        assertThatThrownBy(() -> JdbcToolCallStore.builder(dir.resolve("calls.db")).writers(2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("writers must be 1 for SQLite (it commits one transaction at a time), got 2");
        assertThat(dir.resolve("calls.db")).as("nothing opened by a builder that refused").doesNotExist();
    }

    abstract static class OnAStore {
        final List<JdbcToolCallStore> stores = new ArrayList<>();

        abstract DataSource database() throws Exception;

        abstract JdbcToolCallStore open() throws Exception;

        /** @return a builder of a store on this test's database */
        abstract JdbcToolCallStore.Builder builder();

        JdbcToolCallStore track(JdbcToolCallStore s) {
            stores.add(s);
            return s;
        }

        @AfterEach
        void closeStores() {
            stores.forEach(JdbcToolCallStore::close);
            stores.clear();
        }

        /**
         * The old records: one every 37 minutes over the last 12 days, a few marks (never completed), and
         * two exactly around the cut (one nanosecond before it, and at it).
         */
        List<ToolCallRecord> oldRecords(Instant cut) {
            List<ToolCallRecord> records = new ArrayList<>();
            int i = 0;
            for (Instant t = NOW.minus(Duration.ofDays(12)); t.isBefore(NOW.minus(Duration.ofHours(1)));
                    t = t.plus(Duration.ofMinutes(37))) {
                records.add(record("old-" + i, t, i % 50 == 7));
                i++;
            }
            records.add(record("just-before-cut", cut.minusNanos(1), false));
            records.add(record("at-cut", cut, false));
            return records;
        }

        static ToolCallRecord record(String id, Instant startedAt, boolean markOnly) {
            if (markOnly) {
                return ToolCallRecord.interrupted(new dev.toolyard.spi.ToolCallStart(id, "inv-" + id.hashCode() % 7, "run",
                        "{\"n\":1}", TestRecords.SHA, false, startedAt));
            }
            return new ToolCallRecord(id, "inv-" + id.hashCode() % 7, id.hashCode() % 2 == 0 ? "read" : "write",
                    id.hashCode() % 3 == 0 ? ToolStatus.FAILED : ToolStatus.OK,
                    id.hashCode() % 3 == 0 ? Optional.of(Reason.HANDLER_ERROR) : Optional.empty(), "", "{\"n\":1}", TestRecords.SHA, false,
                    "done " + id, startedAt, Duration.ofMillis(3), "req-" + id, "", "agent", "", "");
        }

        /** A version 5 database, as version 5 of the store made it, holding the records. */
        void makeVersionFive(List<ToolCallRecord> records) throws Exception {
            try (Connection c = database().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                Dialect d = Dialect.of(c);
                s.execute("CREATE TABLE toolyard_schema_version (version INTEGER NOT NULL PRIMARY KEY, "
                        + "description VARCHAR(200) NOT NULL, applied_at_epoch_milli BIGINT NOT NULL)");
                List<List<String>> versions = List.of(d.schemaVersion1(), d.schemaVersion2(), d.schemaVersion3(),
                        d.schemaVersion4(), d.schemaVersion5());
                for (int v = 0; v < versions.size(); v++) {
                    for (String ddl : versions.get(v)) {
                        s.execute(ddl);
                    }
                    s.execute("INSERT INTO toolyard_schema_version VALUES (" + (v + 1) + ", 'version " + (v + 1) + "', 0)");
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO toolyard_call (" + COLUMNS
                        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (ToolCallRecord r : records) {
                        p.setString(1, r.callId());
                        p.setString(2, r.invocationId());
                        p.setString(3, r.toolName());
                        p.setString(4, r.status().wireName());
                        if (r.reason().isEmpty()) {
                            p.setNull(5, Types.VARCHAR);
                        } else {
                            p.setString(5, r.reason().get().wireName());
                        }
                        p.setString(6, r.reasonDetail());
                        p.setString(7, r.arguments());
                        p.setString(8, r.argumentsSha256());
                        p.setBoolean(9, r.argumentsRedacted());
                        p.setString(10, r.summary());
                        p.setLong(11, r.startedAt().getEpochSecond());
                        p.setInt(12, r.startedAt().getNano());
                        p.setLong(13, r.duration().getSeconds());
                        p.setInt(14, r.duration().getNano());
                        p.setBoolean(15, r.status() != ToolStatus.INTERRUPTED);
                        p.setString(16, r.requestCallId());
                        p.setString(17, r.approver());
                        p.setString(18, r.agent());
                        p.setString(19, r.shadowDenial());
                        p.addBatch();
                    }
                    p.executeBatch();
                }
            }
        }

        int schemaVersion() throws Exception {
            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT MAX(version) FROM toolyard_schema_version")) {
                rs.next();
                return rs.getInt(1);
            }
        }

        @Test
        void aVersionFiveStoreWithRecordsIsUpgradedInPlaceKeepingEveryRecordInOrder() throws Exception {
            List<ToolCallRecord> records = new ArrayList<>(oldRecords(NOW.minus(Duration.ofDays(5))));
            records.add(record("far-past", Instant.MIN, false));
            records.add(record("far-future", Instant.MAX, false));
            records.add(record("recent-mark", NOW.minusSeconds(2), true));
            makeVersionFive(records);

            JdbcToolCallStore store = track(open());

            assertThat(schemaVersion()).isEqualTo(dev.toolyard.store.jdbc.internal.Schema.CURRENT_VERSION);
            assertThat(store.recent(records.size() + 10)).as("every record, in its order").isEqualTo(records);
            // A mark written before the upgrade is completed after it, in place.
            ToolCallRecord done = new ToolCallRecord("recent-mark", records.get(records.size() - 1).invocationId(),
                    "run", ToolStatus.OK, null, "", "{\"n\":1}", TestRecords.SHA, false, "finished", NOW.minusSeconds(2),
                    Duration.ofSeconds(1));
            store.complete(done);
            assertThat(store.byCallId("recent-mark")).contains(done);
            // New calls keep going in, after the old ones, and a duplicate is still refused alone.
            ToolCallRecord fresh = record("fresh", NOW, false);
            store.append(fresh);
            assertThatThrownBy(() -> store.append(fresh)).isInstanceOf(IllegalStateException.class);
            List<ToolCallRecord> all = store.recent(records.size() + 10);
            assertThat(all.get(all.size() - 1)).isEqualTo(fresh);
            assertThat(all).hasSize(records.size() + 1);
            checkLayout();
        }

        /** What the upgrade made of the table (PostgreSQL: partitions); reopening changes nothing. */
        abstract void checkLayout() throws Exception;

        @Test
        void pruneRemovesExactlyWhatIsOlderThanTheCutWhileWritersKeepWriting() throws Exception {
            Instant cut = NOW.minus(Duration.ofDays(5));
            List<ToolCallRecord> old = oldRecords(cut);
            makeVersionFive(old);
            JdbcToolCallStore store = track(open());

            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<ToolCallRecord> written = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                Thread w = new Thread(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        ToolCallRecord r = record("new-" + thread + "-" + i, Instant.now(), false);
                        try {
                            store.append(r);
                            written.add(r);
                        } catch (RuntimeException e) {
                            failures.add(e);
                            return;
                        }
                    }
                });
                w.start();
                writers.add(w);
            }
            JdbcToolCallStoreTest.await("writers writing", () -> written.size() >= 50);
            PruneResult result;
            int writtenBefore;
            try {
                result = store.prune(cut);
                writtenBefore = written.size();
                JdbcToolCallStoreTest.await("writers still writing after the prune", () -> written.size() >= writtenBefore + 50);
            } finally {
                stop.set(true);
                for (Thread w : writers) {
                    w.join();
                }
            }

            assertThat(failures).as("no writer failed").isEmpty();
            Set<String> expectedGone = old.stream().filter(r -> r.startedAt().isBefore(cut)).map(ToolCallRecord::callId)
                    .collect(Collectors.toSet());
            List<ToolCallRecord> expectedKept = new ArrayList<>();
            old.stream().filter(r -> !r.startedAt().isBefore(cut)).forEach(expectedKept::add);
            List<ToolCallRecord> left = store.recent(100_000);
            assertThat(left).extracting(ToolCallRecord::callId).doesNotContainAnyElementsOf(expectedGone)
                    .contains("at-cut").doesNotContain("just-before-cut");
            assertThat(left).containsAll(expectedKept).containsAll(written);
            assertThat(left).hasSize(expectedKept.size() + written.size());
            assertThat(result.removed()).isEqualTo(expectedGone.size());
            assertThat(result.cut()).isEqualTo(cut);
            checkPrune(result);

            assertThat(store.prune(cut).removed()).as("a second prune finds nothing more").isZero();
        }

        abstract void checkPrune(PruneResult result) throws Exception;

        @Test
        void theBuildersRetentionPrunesAtOpenAndThenOnItsScheduleWhileWritersWrite() throws Exception {
            Duration keep = Duration.ofDays(30);
            try (JdbcToolCallStore plain = open()) {
                plain.append(record("forty-days-old", NOW.minus(Duration.ofDays(40)), false));
                plain.append(record("twenty-days-old", NOW.minus(Duration.ofDays(20)), false));
            }

            JdbcToolCallStore store = track(builder().retention(keep).pruneEvery(Duration.ofSeconds(1)).build());

            assertThat(store.byCallId("forty-days-old")).as("pruned before build() returned").isEmpty();
            assertThat(store.byCallId("twenty-days-old")).isPresent();
            // Written after the open, older than the retention: the schedule removes it; the rest stays.
            store.append(record("thirty-one-days-old", NOW.minus(Duration.ofDays(31)), false));
            store.append(record("fresh", Instant.now(), false));
            JdbcToolCallStoreTest.await("the scheduled prune", () -> store.byCallId("thirty-one-days-old").isEmpty());
            assertThat(store.byCallId("twenty-days-old")).isPresent();
            assertThat(store.byCallId("fresh")).isPresent();
            store.close();
            store.close(); // the retention thread is stopped with the store, once
        }

        @Test
        void exportPagesOfACursorRangeGiveEachRecordOnceInStartThenCallIdOrderAndImportBackExactly() throws Exception {
            Instant since = NOW.minus(Duration.ofDays(10));
            Instant until = NOW.minus(Duration.ofHours(2));
            List<ToolCallRecord> records = new ArrayList<>(oldRecords(NOW.minus(Duration.ofDays(5))));
            Instant tie = NOW.minus(Duration.ofDays(4));
            records.add(record("tie-z", tie, false));
            records.add(record("tie-a", tie, false));
            records.add(record("tie-m", tie, true));
            makeVersionFive(records);
            JdbcToolCallStore store = track(open());

            List<ToolCallRecord> exported = new ArrayList<>();
            ExportCursor cursor = null;
            int pages = 0;
            while (true) {
                List<ToolCallRecord> page = store.exportAfter(since, until, cursor, 37);
                if (page.isEmpty()) {
                    break;
                }
                pages++;
                exported.addAll(page);
                ToolCallRecord last = page.get(page.size() - 1);
                cursor = new ExportCursor(last.startedAt(), last.callId());
            }

            List<ToolCallRecord> expected = records.stream()
                    .filter(r -> !r.startedAt().isBefore(since) && r.startedAt().isBefore(until))
                    .sorted(java.util.Comparator.comparing(ToolCallRecord::startedAt).thenComparing(ToolCallRecord::callId))
                    .toList();
            assertThat(pages).isGreaterThan(5);
            assertThat(exported).as("each record of the range once, by start then call id").isEqualTo(expected);
            assertThat(exported.stream().map(ToolCallRecord::callId).filter(id -> id.startsWith("tie-")))
                    .containsExactly("tie-a", "tie-m", "tie-z");
            assertThat(store.exportAfter(since, until, cursor, 37)).as("the cursor at the end finds nothing").isEmpty();

            Path other = Files.createTempDirectory("toolyard-import-");
            try (JdbcToolCallStore imported = JdbcToolCallStore.sqlite(other.resolve("imported.db"))) {
                exported.forEach(imported::append);
                assertThat(imported.exportAfter(since, until, null, 100_000)).isEqualTo(expected);
            } finally {
                try (var files = Files.walk(other)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    @Nested
    class OnSqlite extends OnAStore {
        @TempDir
        Path dir;

        @Override
        DataSource database() throws Exception {
            Files.createDirectories(dir);
            org.sqlite.SQLiteDataSource ds = new org.sqlite.SQLiteDataSource();
            ds.setUrl("jdbc:sqlite:" + dir.resolve("calls.db"));
            return ds;
        }

        @Override
        JdbcToolCallStore open() {
            return JdbcToolCallStore.sqlite(dir.resolve("calls.db"));
        }

        @Override
        JdbcToolCallStore.Builder builder() {
            return JdbcToolCallStore.builder(dir.resolve("calls.db"));
        }

        @Override
        void checkLayout() {}

        @Override
        void checkPrune(PruneResult result) {
            assertThat(result.partitionsDropped()).isEmpty();
            assertThat(result.rowsDeleted()).isEqualTo(result.removed());
        }
    }

    @Nested
    class OnPostgresql extends OnAStore {
        @RegisterExtension
        final PostgresTestDatabase.PerTest postgres = new PostgresTestDatabase.PerTest();

        @Override
        DataSource database() {
            return postgres.dataSource();
        }

        @Override
        JdbcToolCallStore open() {
            return JdbcToolCallStore.of(postgres.dataSource());
        }

        @Override
        JdbcToolCallStore.Builder builder() {
            return JdbcToolCallStore.builder(postgres.dataSource());
        }

        @Override
        void checkLayout() throws Exception {
            try (Connection c = database().getConnection(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT relkind FROM pg_class WHERE oid = 'toolyard_call'::regclass")) {
                    rs.next();
                    assertThat(rs.getString(1)).as("partitioned").isEqualTo("p");
                }
                try (ResultSet rs = s.executeQuery("SELECT description FROM toolyard_schema_version WHERE version = 7")) {
                    rs.next();
                    assertThat(rs.getString(1)).contains("converted").contains("rows copied");
                }
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_inherits WHERE inhparent ="
                        + " 'toolyard_call'::regclass")) {
                    rs.next();
                    assertThat(rs.getInt(1)).as("12 days back, 7 ahead, before and after").isGreaterThan(20);
                }
            }
            track(open()); // reopening an upgraded store changes nothing
            assertThat(schemaVersion()).isEqualTo(dev.toolyard.store.jdbc.internal.Schema.CURRENT_VERSION);
        }

        @Override
        void checkPrune(PruneResult result) {
            assertThat(result.partitionsDropped()).as("the days wholly before the cut go whole").hasSizeGreaterThan(5)
                    .allMatch(p -> p.startsWith("toolyard_call_d"));
            assertThat(result.rowsInDroppedPartitions()).isPositive();
            assertThat(result.rowsDeleted()).as("the rest of the cut's day, row by row").isPositive();
        }
    }
}
