package dev.toolyard.store.jdbc;

import static dev.toolyard.store.jdbc.TestRecords.finished;
import static dev.toolyard.store.jdbc.TestRecords.ok;
import static dev.toolyard.store.jdbc.TestRecords.refused;
import static dev.toolyard.store.jdbc.TestRecords.start;
import static dev.toolyard.store.jdbc.TestRecords.withApprover;
import static dev.toolyard.store.jdbc.TestRecords.withRequestCallId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.toolyard.EgressClass;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.internal.Dialect;
import dev.toolyard.store.jdbc.internal.Schema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class JdbcToolCallStoreTest {

    /** What every database the store runs on must show. */
    abstract class Contract {
        private final List<JdbcToolCallStore> opened = new ArrayList<>();

        /** @return the data source of this test's own, initially empty, database */
        abstract DataSource database();

        /** @return a store on this test's database, closed after the test */
        JdbcToolCallStore open() {
            return track(JdbcToolCallStore.of(database()));
        }

        /** @return this test's database, ready to be written by hand before any store opened it */
        DataSource databaseForHandWrittenRows() throws IOException {
            return database();
        }

        JdbcToolCallStore track(JdbcToolCallStore store) {
            opened.add(store);
            return store;
        }

        @AfterEach
        void closeStores() {
            for (JdbcToolCallStore s : opened) {
                s.close();
            }
            opened.clear();
        }

        @Test
        void everyFieldOfEveryKindOfRecordRoundTripsExactly() {
            JdbcToolCallStore store = open();
            List<ToolCallRecord> written = new ArrayList<>();
            int i = 0;
            for (Reason reason : Reason.values()) {
                written.add(new ToolCallRecord("call-" + i, "inv-" + (i % 3), "tool_" + (i % 4), reason.status(), reason,
                        "detail " + i, "{\"n\":" + i + "}", TestRecords.SHA, i % 2 == 0, "summary " + i,
                        Instant.ofEpochSecond(1_700_000_000L + i, 999_999_999 - i), Duration.ofSeconds(i, i * 7),
                        i % 3 == 0 ? "" : "call_" + i + "\u0000\ud800 framework id",
                        i % 2 == 0 ? "" : "reviewer " + i + " \u0000\ud800 \u00e9"));
                i++;
            }
            written.add(ok("call-ok", "inv-x", "read_notes"));
            written.add(new ToolCallRecord("call-interrupted-appended", "inv-x", "run_command", ToolStatus.INTERRUPTED,
                    null, "copied from another store", "{}", TestRecords.SHA, false, "", TestRecords.T0, Duration.ZERO));
            written.add(new ToolCallRecord("call-extremes", "inv-x", "t", ToolStatus.OK, null, "", "", "", false, "",
                    Instant.MIN, Duration.ofSeconds(Long.MIN_VALUE)));
            written.add(new ToolCallRecord("call-extremes-2", "inv-x", "t", ToolStatus.OK, null, "", "", "", false, "",
                    Instant.MAX, Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)));
            written.add(new ToolCallRecord("call-before-1970", "inv-x", "t", ToolStatus.OK, null, "", "", "", false, "",
                    Instant.ofEpochSecond(-1, 1), Duration.ofNanos(-1)));
            for (ToolCallRecord r : written) {
                store.append(r);
            }

            assertThat(store.recent(1_000)).containsExactlyElementsOf(written);
            assertThat(track(JdbcToolCallStore.of(database())).recent(1_000)).containsExactlyElementsOf(written);
        }

        @Test
        void textThatDatabasesCannotHoldAsItIsRoundTripsExactly() {
            JdbcToolCallStore store = open();
            String nul = "before\u0000after";
            String loneHigh = "x\uD800y";
            String loneLow = "\uDC00";
            String markFirst = "\uE000\\0 looks escaped but is not";
            String emoji = "caf\u00e9 \uD83D\uDE00 \\ back\\slash \\u0000";
            ToolCallRecord r = new ToolCallRecord(nul, loneHigh, markFirst, ToolStatus.FAILED, Reason.HANDLER_ERROR,
                    emoji + nul, "{\"text\":\"" + nul + loneLow + "\"}", loneLow, false, markFirst + loneHigh + nul,
                    TestRecords.T0, Duration.ofMillis(3));
            store.append(r);

            assertThat(store.recent(10)).containsExactly(r);
            assertThat(store.byInvocation(loneHigh)).containsExactly(r);
            assertThat(store.byToolAndStatus(markFirst, ToolStatus.FAILED)).containsExactly(r);
            assertThat(store.byInvocation("x?y")).isEmpty();
        }

        @Test
        void redactedArgumentsStayRedacted() {
            JdbcToolCallStore store = open();
            ToolCallStart mark = new ToolCallStart("c1", "inv", "login", "{\"redacted\":true}", TestRecords.SHA, true,
                    TestRecords.T0);
            store.markStarted(mark);
            assertThat(store.recent(1).get(0).arguments()).isEqualTo("{\"redacted\":true}");
            assertThat(store.recent(1).get(0).argumentsRedacted()).isTrue();
            store.complete(finished(mark, ToolStatus.OK, null));

            ToolCallRecord back = store.recent(1).get(0);
            assertThat(back.arguments()).isEqualTo("{\"redacted\":true}");
            assertThat(back.argumentsRedacted()).isTrue();
            assertThat(back.argumentsSha256()).isEqualTo(TestRecords.SHA);
        }

        @Test
        void aMarkReadsBackAsInterruptedUntilCompletedAndKeepsItsPlaceInAppendOrder() {
            JdbcToolCallStore store = open();
            ToolCallStart mark = start("long", "inv", "run_command");
            store.append(ok("before", "inv", "read_file"));
            store.markStarted(mark);
            store.append(ok("after", "inv", "read_file"));

            assertThat(store.byInvocation("inv")).containsExactly(ok("before", "inv", "read_file"),
                    ToolCallRecord.interrupted(mark), ok("after", "inv", "read_file"));
            assertThat(store.byToolAndStatus("run_command", ToolStatus.INTERRUPTED))
                    .containsExactly(ToolCallRecord.interrupted(mark));

            ToolCallRecord done = finished(mark, ToolStatus.TIMEOUT, Reason.TIMEOUT);
            store.complete(done);

            assertThat(store.byInvocation("inv")).containsExactly(ok("before", "inv", "read_file"), done,
                    ok("after", "inv", "read_file"));
            assertThat(store.byToolAndStatus("run_command", ToolStatus.INTERRUPTED)).isEmpty();
            assertThat(store.byToolAndStatus("run_command", ToolStatus.TIMEOUT)).containsExactly(done);
        }

        @Test
        void readsFilterByInvocationAndByToolAndStatusInAppendOrder() {
            JdbcToolCallStore store = open();
            ToolCallRecord a = ok("a", "inv-1", "read_file");
            ToolCallRecord b = refused("b", "inv-2", "read_file", Reason.PATH_ESCAPE);
            ToolCallRecord c = ok("c", "inv-1", "list_dir");
            ToolCallRecord d = refused("d", "inv-1", "read_file", Reason.PATH_ESCAPE);
            ToolCallRecord e = ok("e", "inv-2", "read_file");
            for (ToolCallRecord r : List.of(a, b, c, d, e)) {
                store.append(r);
            }

            assertThat(store.byInvocation("inv-1")).containsExactly(a, c, d);
            assertThat(store.byInvocation("inv-2")).containsExactly(b, e);
            assertThat(store.byInvocation("inv-3")).isEmpty();
            assertThat(store.byToolAndStatus("read_file", ToolStatus.REFUSED)).containsExactly(b, d);
            assertThat(store.byToolAndStatus("read_file", ToolStatus.OK)).containsExactly(a, e);
            assertThat(store.byToolAndStatus("list_dir", ToolStatus.FAILED)).isEmpty();
        }

        @Test
        void recentReturnsTheNewestCallsOldestFirst() {
            JdbcToolCallStore store = open();
            List<ToolCallRecord> all = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                all.add(ok("c" + i, "inv", "t"));
                store.append(all.get(i));
            }

            assertThat(store.recent(3)).containsExactlyElementsOf(all.subList(4, 7));
            assertThat(store.recent(7)).containsExactlyElementsOf(all);
            assertThat(store.recent(Integer.MAX_VALUE)).containsExactlyElementsOf(all);
            assertThatThrownBy(() -> store.recent(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("limit must be positive, got 0");
            assertThatThrownBy(() -> store.recent(-1)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void completingACallThatWasNotMarkedThrowsAndChangesNothing() {
            JdbcToolCallStore store = open();
            store.append(ok("done", "inv", "t"));

            assertThatThrownBy(() -> store.complete(ok("never-marked", "inv", "t")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("never-marked");
            assertThatThrownBy(() -> store.complete(ok("done", "inv", "t")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not marked as started");
            ToolCallStart mark = start("m", "inv", "t");
            store.markStarted(mark);
            store.complete(finished(mark, ToolStatus.OK, null));
            assertThatThrownBy(() -> store.complete(finished(mark, ToolStatus.FAILED, Reason.HANDLER_ERROR)))
                    .isInstanceOf(IllegalStateException.class);

            assertThat(store.recent(10)).containsExactly(ok("done", "inv", "t"), finished(mark, ToolStatus.OK, null));
        }

        @Test
        void recordingACallIdTwiceThrowsAndKeepsTheFirst() {
            JdbcToolCallStore store = open();
            store.append(ok("same", "inv", "first"));

            assertThatThrownBy(() -> store.append(ok("same", "inv", "second")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already recorded");
            assertThatThrownBy(() -> store.markStarted(start("same", "inv", "third")))
                    .isInstanceOf(IllegalStateException.class);
            store.append(ok("other", "inv", "fourth"));

            assertThat(store.recent(10)).containsExactly(ok("same", "inv", "first"), ok("other", "inv", "fourth"));
        }

        @Test
        void recordsSurviveReopeningAndTheSchemaIsCreatedOnce() throws SQLException {
            JdbcToolCallStore first = open();
            first.append(ok("a", "inv", "t"));
            first.markStarted(start("b", "inv", "t"));
            first.close();

            JdbcToolCallStore second = open();
            assertThat(second.recent(10)).containsExactly(ok("a", "inv", "t"), ToolCallRecord.interrupted(start("b", "inv", "t")));
            second.complete(finished(start("b", "inv", "t"), ToolStatus.OK, null));
            assertThat(second.recent(10)).containsExactly(ok("a", "inv", "t"), finished(start("b", "inv", "t"), ToolStatus.OK, null));

            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT version, description FROM toolyard_schema_version ORDER BY version")) {
                for (int version = 1; version <= Schema.CURRENT_VERSION; version++) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(version);
                    assertThat(rs.getString(2)).isNotBlank();
                }
                assertThat(rs.next()).as("one row per applied version").isFalse();
            }
        }

        @Test
        void aVersionOneDatabaseIsUpgradedInPlaceAndItsRowsReadBackWithNoRequestCallId() throws Exception {
            try (Connection c = databaseForHandWrittenRows().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("CREATE TABLE toolyard_schema_version (version INTEGER NOT NULL PRIMARY KEY, "
                        + "description VARCHAR(200) NOT NULL, applied_at_epoch_milli BIGINT NOT NULL)");
                for (String ddl : Dialect.of(c).schemaVersion1()) {
                    s.execute(ddl);
                }
                s.execute("INSERT INTO toolyard_schema_version VALUES (1, 'version 1', 0)");
                // A row exactly as version 1 wrote it: fifteen columns, no request_call_id.
                s.execute("INSERT INTO toolyard_call (call_id, invocation_id, tool_name, status, reason, reason_detail, "
                        + "arguments, arguments_sha256, arguments_redacted, summary, started_at_epoch_second, "
                        + "started_at_nano, duration_second, duration_nano, completed) VALUES ('old', 'inv', 'read_notes', "
                        + "'ok', NULL, '', '{\"path\":\"notes.md\"}', '" + TestRecords.SHA + "', FALSE, 'read 12 bytes', "
                        + TestRecords.T0.getEpochSecond() + ", " + TestRecords.T0.getNano() + ", 0, 1234567, TRUE)");
            }

            JdbcToolCallStore store = open();
            ToolCallRecord fresh = withRequestCallId(ok("new", "inv", "read_notes"), "call_abc123");
            store.append(fresh);

            assertThat(store.byInvocation("inv")).containsExactly(ok("old", "inv", "read_notes"), fresh);
            assertThat(store.byInvocation("inv").get(0).requestCallIdOptional()).isEmpty();
            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT MAX(version) FROM toolyard_schema_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(Schema.CURRENT_VERSION);
            }
            assertThat(store.byInvocation("inv").get(0).agentOptional()).as("a version 1 row names no agent").isEmpty();
            assertThat(store.byInvocation("inv").get(0).shadowDenialOptional()).isEmpty();
        }

        @Test
        void aShadowDenialSurvivesTheMarkAndTheCompletion() {
            JdbcToolCallStore store = open();
            String note = "rule read_file argument path: not under an allowed prefix";
            ToolCallStart mark = new ToolCallStart("m", "inv", "t", "{}", TestRecords.SHA, false, TestRecords.T0, "",
                    "", "", note);

            store.markStarted(mark);
            assertThat(store.recent(1).get(0).shadowDenial()).isEqualTo(note);
            ToolCallRecord done = finished(mark, ToolStatus.OK, null);
            store.complete(new ToolCallRecord(done.callId(), done.invocationId(), done.toolName(), done.status(),
                    done.reason(), done.reasonDetail(), done.arguments(), done.argumentsSha256(),
                    done.argumentsRedacted(), done.summary(), done.startedAt(), done.duration(), "", "", "", note, ""));
            assertThat(store.recent(1).get(0).shadowDenialOptional()).contains(note);
        }

        @Test
        void aCommandsNetworkRecordIsWrittenWithTheCompletionAndReadBack() {
            JdbcToolCallStore store = open();
            String network = "{\"connections\":2,\"refused\":1,\"bytes_up\":120,\"bytes_down\":900,\"destinations\":"
                    + "[{\"host\":\"pypi.test\",\"port\":443,\"address\":\"127.0.0.1\",\"outcome\":\"reached\","
                    + "\"connections\":1,\"bytes_up\":120,\"bytes_down\":900}]}";
            ToolCallStart mark = start("m", "inv", "run_command");
            store.markStarted(mark);
            assertThat(store.recent(1).get(0).network()).as("a mark has none yet").isEmpty();
            ToolCallRecord done = finished(mark, ToolStatus.OK, null);
            ToolCallRecord networked = new ToolCallRecord(done.callId(), done.invocationId(), done.toolName(), done.status(),
                    done.reason(), done.reasonDetail(), done.arguments(), done.argumentsSha256(),
                    done.argumentsRedacted(), done.summary(), done.startedAt(), done.duration(), "", "", "", "", network);
            store.complete(networked);
            assertThat(store.recent(1)).containsExactly(networked);
            ToolCallRecord appended = new ToolCallRecord("a", "inv", "run_command", ToolStatus.OK, java.util.Optional.empty(), "", "{}",
                    TestRecords.SHA, false, "ran", TestRecords.T0, Duration.ofMillis(3), "", "", "", "", network);
            store.append(appended);
            assertThat(store.byInvocation("inv")).containsExactly(networked, appended);
        }

        @Test
        void aVersionSevenStoreGainsTheNetworkColumnInPlace() throws Exception {
            try (Connection c = databaseForHandWrittenRows().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("CREATE TABLE toolyard_schema_version (version INTEGER NOT NULL PRIMARY KEY, "
                        + "description VARCHAR(200) NOT NULL, applied_at_epoch_milli BIGINT NOT NULL)");
                Dialect d = Dialect.of(c);
                for (List<String> ddl : List.of(d.schemaVersion1(), d.schemaVersion2(), d.schemaVersion3(),
                        d.schemaVersion4(), d.schemaVersion5(), d.schemaVersion6())) {
                    for (String sql : ddl) {
                        s.execute(sql);
                    }
                }
                for (int v = 1; v <= 7; v++) {
                    s.execute("INSERT INTO toolyard_schema_version VALUES (" + v + ", 'version " + v + "', 0)");
                }
                s.execute("INSERT INTO toolyard_call (call_id, invocation_id, tool_name, status, reason, reason_detail, "
                        + "arguments, arguments_sha256, arguments_redacted, summary, started_at_epoch_second, "
                        + "started_at_nano, duration_second, duration_nano, completed) VALUES ('old', 'inv', 'read_notes', "
                        + "'ok', NULL, '', '{\"path\":\"notes.md\"}', '" + TestRecords.SHA + "', FALSE, 'read 12 bytes', "
                        + TestRecords.T0.getEpochSecond() + ", " + TestRecords.T0.getNano() + ", 0, 1234567, TRUE)");
            }
            JdbcToolCallStore store = open();
            assertThat(store.byInvocation("inv")).singleElement().satisfies(r -> assertThat(r.network()).isEmpty());
            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT MAX(version) FROM toolyard_schema_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(Schema.CURRENT_VERSION).isEqualTo(8);
            }
        }

        @Test
        void theContextsAgentNameSurvivesTheMarkAndTheCompletion() {
            JdbcToolCallStore store = open();
            ToolCallStart mark = new ToolCallStart("m", "inv", "t", "{}", TestRecords.SHA, false, TestRecords.T0, "",
                    "", "release-bot", "");

            store.markStarted(mark);
            assertThat(store.recent(1).get(0).agent()).isEqualTo("release-bot");
            ToolCallRecord done = finished(mark, ToolStatus.OK, null);
            store.complete(new ToolCallRecord(done.callId(), done.invocationId(), done.toolName(), done.status(),
                    done.reason(), done.reasonDetail(), done.arguments(), done.argumentsSha256(),
                    done.argumentsRedacted(), done.summary(), done.startedAt(), done.duration(), "", "", "release-bot", "", ""));
            assertThat(store.recent(1).get(0).agent()).isEqualTo("release-bot");
            assertThat(store.recent(1).get(0).status()).isEqualTo(ToolStatus.OK);
        }

        @Test
        void aVersionTwoDatabaseIsUpgradedInPlaceAndItsRowsReadBackWithNoApprover() throws Exception {
            try (Connection c = databaseForHandWrittenRows().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("CREATE TABLE toolyard_schema_version (version INTEGER NOT NULL PRIMARY KEY, "
                        + "description VARCHAR(200) NOT NULL, applied_at_epoch_milli BIGINT NOT NULL)");
                for (String ddl : Dialect.of(c).schemaVersion1()) {
                    s.execute(ddl);
                }
                for (String ddl : Dialect.of(c).schemaVersion2()) {
                    s.execute(ddl);
                }
                s.execute("INSERT INTO toolyard_schema_version VALUES (1, 'version 1', 0)");
                s.execute("INSERT INTO toolyard_schema_version VALUES (2, 'version 2', 0)");
                // A row exactly as version 2 wrote it: sixteen columns, no approver.
                s.execute("INSERT INTO toolyard_call (call_id, invocation_id, tool_name, status, reason, reason_detail, "
                        + "arguments, arguments_sha256, arguments_redacted, summary, started_at_epoch_second, "
                        + "started_at_nano, duration_second, duration_nano, completed, request_call_id) VALUES ('old', "
                        + "'inv', 'read_notes', 'ok', NULL, '', '{\"path\":\"notes.md\"}', '" + TestRecords.SHA
                        + "', FALSE, 'read 12 bytes', " + TestRecords.T0.getEpochSecond() + ", " + TestRecords.T0.getNano()
                        + ", 0, 1234567, TRUE, 'tc_old')");
            }

            JdbcToolCallStore store = open();
            ToolCallRecord fresh = withApprover(ok("new", "inv", "read_notes"), "reviewer-1");
            store.append(fresh);

            assertThat(store.byInvocation("inv")).containsExactly(withRequestCallId(ok("old", "inv", "read_notes"),
                    "tc_old"), fresh);
            assertThat(store.byInvocation("inv").get(0).approverOptional()).isEmpty();
            assertThat(store.byInvocation("inv").get(1).approver()).isEqualTo("reviewer-1");
            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT MAX(version) FROM toolyard_schema_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(Schema.CURRENT_VERSION);
            }
        }

        @Test
        void aVersionThreeDatabaseIsUpgradedInPlaceAndItsRowsReadBackWithNoAgentAndNoShadowDenial() throws Exception {
            try (Connection c = databaseForHandWrittenRows().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("CREATE TABLE toolyard_schema_version (version INTEGER NOT NULL PRIMARY KEY, "
                        + "description VARCHAR(200) NOT NULL, applied_at_epoch_milli BIGINT NOT NULL)");
                Dialect dialect = Dialect.of(c);
                for (List<String> version : List.of(dialect.schemaVersion1(), dialect.schemaVersion2(),
                        dialect.schemaVersion3())) {
                    for (String ddl : version) {
                        s.execute(ddl);
                    }
                }
                for (int version = 1; version <= 3; version++) {
                    s.execute("INSERT INTO toolyard_schema_version VALUES (" + version + ", 'version " + version
                            + "', 0)");
                }
                // A row exactly as version 3 wrote it: seventeen columns, no agent, no shadow_denial.
                s.execute("INSERT INTO toolyard_call (call_id, invocation_id, tool_name, status, reason, reason_detail, "
                        + "arguments, arguments_sha256, arguments_redacted, summary, started_at_epoch_second, "
                        + "started_at_nano, duration_second, duration_nano, completed, request_call_id, approver) VALUES "
                        + "('old', 'inv', 'read_notes', 'ok', NULL, '', '{\"path\":\"notes.md\"}', '" + TestRecords.SHA
                        + "', FALSE, 'read 12 bytes', " + TestRecords.T0.getEpochSecond() + ", " + TestRecords.T0.getNano()
                        + ", 0, 1234567, TRUE, 'tc_old', 'reviewer-0')");
            }

            JdbcToolCallStore store = open();
            ToolCallRecord old = withApprover(withRequestCallId(ok("old", "inv", "read_notes"), "tc_old"), "reviewer-0");
            ToolCallRecord fresh = new ToolCallRecord("new", "inv", "read_notes", ToolStatus.OK, java.util.Optional.empty(), "", "{}",
                    TestRecords.SHA, false, "", TestRecords.T0, java.time.Duration.ZERO, "tc_new", "reviewer-1",
                    "release-bot", "rule read_notes: would deny", "");
            store.append(fresh);

            assertThat(store.byInvocation("inv")).containsExactly(old, fresh);
            assertThat(store.byInvocation("inv").get(0).agentOptional()).as("a version 3 row names no agent").isEmpty();
            assertThat(store.byInvocation("inv").get(0).shadowDenialOptional()).isEmpty();
            assertThat(store.byInvocation("inv").get(0).approver()).isEqualTo("reviewer-0");
            try (Connection c = database().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT MAX(version) FROM toolyard_schema_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(Schema.CURRENT_VERSION);
            }
        }

        @Test
        void theApproverSurvivesTheMarkAndTheCompletion() {
            JdbcToolCallStore store = open();
            ToolCallStart mark = new ToolCallStart("m", "inv", "t", "{}", TestRecords.SHA, false, TestRecords.T0, "tc_1",
                    "reviewer-1");

            store.markStarted(mark);
            assertThat(store.recent(1).get(0).approver()).isEqualTo("reviewer-1");
            assertThat(store.recent(1).get(0).status()).isEqualTo(ToolStatus.INTERRUPTED);
            store.complete(withApprover(withRequestCallId(finished(mark, ToolStatus.OK, null), "tc_1"), "reviewer-1"));
            assertThat(store.recent(1).get(0).approver()).isEqualTo("reviewer-1");
            assertThat(store.recent(1).get(0).status()).isEqualTo(ToolStatus.OK);
        }

        @Test
        void theFrameworksCallIdSurvivesTheMarkAndTheCompletion() {
            JdbcToolCallStore store = open();
            ToolCallStart mark = new ToolCallStart("m", "inv", "t", "{}", TestRecords.SHA, false, TestRecords.T0, "tc_1");

            store.markStarted(mark);
            assertThat(store.recent(1).get(0).requestCallId()).isEqualTo("tc_1");
            store.complete(withRequestCallId(finished(mark, ToolStatus.OK, null), "tc_1"));
            assertThat(store.recent(1).get(0).requestCallId()).isEqualTo("tc_1");
            assertThat(store.recent(1).get(0).status()).isEqualTo(ToolStatus.OK);
        }

        @Test
        void aDatabaseWithANewerSchemaIsRefused() throws SQLException {
            open().close();
            try (Connection c = database().getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("INSERT INTO toolyard_schema_version (version, description, applied_at_epoch_milli)"
                        + " VALUES (" + (Schema.CURRENT_VERSION + 1) + ", 'from the future', 0)");
            }

            assertThatThrownBy(() -> open()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("schema version " + (Schema.CURRENT_VERSION + 1)).hasMessageContaining("newer");
        }

        @Test
        void sixteenThreadsAppendingFiveThousandCallsEachAreReadBackExactlyOnceEachInItsOwnOrder() throws Exception {
            JdbcToolCallStore store = open();
            int threads = 16;
            int perThread = 5_000;
            CountDownLatch go = new CountDownLatch(1);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> appenders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Thread appender = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            store.append(ok("t" + thread + "-" + i, "thread-" + thread, "tool_" + (i % 3)));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                appender.start();
                appenders.add(appender);
            }
            long begin = System.nanoTime();
            go.countDown();
            for (Thread appender : appenders) {
                appender.join();
            }
            System.out.printf("%s: %,d appends from %d threads in %,d transactions (%.1f per commit), %.1f s%n",
                    store, threads * perThread, threads, store.transactions(),
                    (double) threads * perThread / store.transactions(), (System.nanoTime() - begin) / 1e9);

            assertThat(failures).isEmpty();
            List<ToolCallRecord> all = store.recent(Integer.MAX_VALUE);
            assertThat(all).hasSize(threads * perThread);
            assertThat(all.stream().map(ToolCallRecord::callId).collect(Collectors.toSet())).hasSize(threads * perThread);
            for (int t = 0; t < threads; t++) {
                List<String> ids = store.byInvocation("thread-" + t).stream().map(ToolCallRecord::callId).toList();
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    expected.add("t" + t + "-" + i);
                }
                assertThat(ids).as("thread %d's calls, in its order", t).isEqualTo(expected);
            }
            assertThat(store.transactions()).as("appenders waiting together share a transaction")
                    .isLessThan(threads * perThread);
        }

        @Test
        void twoStoresOnOneDatabaseTakeTurnsAndKeepEveryCall() throws Exception {
            List<JdbcToolCallStore> stores = List.of(open(), open());
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> appenders = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                JdbcToolCallStore store = stores.get(t % 2);
                Thread appender = new Thread(() -> {
                    try {
                        for (int i = 0; i < 150; i++) {
                            ToolCallStart mark = start("s" + thread + "-" + i, "thread-" + thread, "t");
                            store.markStarted(mark);
                            store.complete(finished(mark, ToolStatus.OK, null));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                appender.start();
                appenders.add(appender);
            }
            for (Thread appender : appenders) {
                appender.join();
            }

            assertThat(failures).isEmpty();
            for (int t = 0; t < 8; t++) {
                assertThat(stores.get((t + 1) % 2).byInvocation("thread-" + t)).hasSize(150)
                        .allSatisfy(r -> assertThat(r.status()).isEqualTo(ToolStatus.OK));
            }
        }

        @Test
        void everyCallThroughARealExecutorIsRecordedWithItsMarkCompleted(@TempDir Path workspace) {
            JdbcToolCallStore store = open();
            ToolExecutor executor = executor(store, new AtomicBoolean());
            ToolContext context = ToolContext.of("inv-exec", SandboxPaths.of(workspace));

            ToolResult ran = executor.execute(ToolCallRequest.of("touch", "{\"secret\":\"hunter2\"}"), context);
            ToolResult unknown = executor.execute(ToolCallRequest.of("rm_rf", "{}"), context);
            ToolResult invalid = executor.execute(ToolCallRequest.of("touch", "{\"secret\":"), context);

            List<ToolCallRecord> records = store.byInvocation("inv-exec");
            assertThat(records).extracting(ToolCallRecord::callId)
                    .containsExactly(ran.callId(), unknown.callId(), invalid.callId());
            assertThat(records).extracting(ToolCallRecord::status)
                    .containsExactly(ToolStatus.OK, ToolStatus.REFUSED, ToolStatus.REFUSED);
            assertThat(records).extracting(rec -> rec.reason().orElse(null))
                    .containsExactly(null, Reason.UNKNOWN_TOOL, Reason.ARGS_INVALID);
            assertThat(records.get(0).arguments()).isEqualTo("{\"redacted\":true}").doesNotContain("hunter2");
            assertThat(records.get(0).argumentsRedacted()).isTrue();
            assertThat(records.get(0).argumentsSha256()).hasSize(64);
            assertThat(records.get(0).duration()).isEqualTo(ran.duration());
        }

        @Test
        void aFailedCallsOutputKeptForTheRecordReadsBackWholeUpToTheContentCap(@TempDir Path workspace) {
            JdbcToolCallStore store = open();
            // 65,530 bytes with text no database column holds as it is: within the default 65,536-byte cap
            String raw = "{\"count\":\"two\"}\u0000\ud800 caf\u00e9 " + "\uD83D\uDE00".repeat(16_373);
            ToolRegistry registry = new ToolRegistry();
            registry.register(ToolSpec.builder("strict").description("Fails its own output check.")
                    .argsSchema("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}")
                    .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(),
                    (args, ctx) -> ToolOutput.failedWithRecordedOutput(Reason.HANDLER_ERROR, "$.count: fails", raw));
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("strict"))
                    .store(store).build();

            ToolResult r = executor.execute(ToolCallRequest.of("strict", "{}"),
                    ToolContext.of("inv-raw", SandboxPaths.of(workspace)));

            assertThat(r.content()).isEqualTo("Tool 'strict' - handler_error: $.count: fails");
            ToolCallRecord kept = track(JdbcToolCallStore.of(database())).byCallId(r.callId()).orElseThrow();
            assertThat(kept.status()).isEqualTo(ToolStatus.FAILED);
            assertThat(kept.reasonDetail()).isEqualTo("$.count: fails");
            assertThat(kept.summary()).isEqualTo(raw);
        }

        @Test
        void findSelectsByEveryCriterionTogetherAndKeepsTheNewestWithinTheLimit() {
            JdbcToolCallStore store = open();
            List<ToolCallRecord> all = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                Instant at = TestRecords.T0.plusSeconds(i / 2).plusNanos(i % 2);
                boolean refusedCall = i % 3 == 0;
                all.add(new ToolCallRecord("c" + i, "inv-" + (i % 2), i % 4 == 0 ? "list_dir" : "read_file",
                        refusedCall ? ToolStatus.REFUSED : ToolStatus.OK, refusedCall ? Reason.PATH_ESCAPE : null,
                        "", "{}", TestRecords.SHA, false, "s" + i, at, Duration.ofMillis(i)));
                store.append(all.get(i));
            }

            assertThat(store.find(CallQuery.newest(100))).containsExactlyElementsOf(all);
            assertThat(store.find(CallQuery.newest(2))).containsExactlyElementsOf(all.subList(10, 12));
            assertThat(store.find(CallQuery.newest(100).invocationId("inv-1")))
                    .extracting(ToolCallRecord::callId).containsExactly("c1", "c3", "c5", "c7", "c9", "c11");
            assertThat(store.find(CallQuery.newest(100).toolName("list_dir")))
                    .extracting(ToolCallRecord::callId).containsExactly("c0", "c4", "c8");
            assertThat(store.find(CallQuery.newest(100).status(ToolStatus.REFUSED)))
                    .extracting(ToolCallRecord::callId).containsExactly("c0", "c3", "c6", "c9");
            assertThat(store.find(CallQuery.newest(100).toolName("read_file").status(ToolStatus.REFUSED)
                    .invocationId("inv-1"))).extracting(ToolCallRecord::callId).containsExactly("c3", "c9");
            // c7 starts at T0+3s and 1 ns: the bound compares seconds and nanoseconds both
            assertThat(store.find(CallQuery.newest(100).startedAtOrAfter(TestRecords.T0.plusSeconds(3).plusNanos(1))))
                    .extracting(ToolCallRecord::callId).containsExactly("c7", "c8", "c9", "c10", "c11");
            assertThat(store.find(CallQuery.newest(1).startedAtOrAfter(TestRecords.T0).status(ToolStatus.OK)))
                    .extracting(ToolCallRecord::callId).containsExactly("c11");
            assertThat(store.find(CallQuery.newest(100).toolName("no_such_tool"))).isEmpty();
        }

        @Test
        void byCallIdFindsTheWholeRecordOrNothing() {
            JdbcToolCallStore store = open();
            ToolCallRecord odd = new ToolCallRecord("id\0-with-nul", "inv", "t", ToolStatus.OK, null, "", "{}",
                    TestRecords.SHA, false, "", TestRecords.T0, Duration.ZERO);
            store.append(ok("a", "inv", "read_file"));
            store.append(odd);
            assertThat(store.byCallId("a")).contains(ok("a", "inv", "read_file"));
            assertThat(store.byCallId("id\0-with-nul")).contains(odd);
            assertThat(store.byCallId("missing")).isEmpty();
        }

        @Test
        void aClosedStoreRefusesWritesAndReads() {
            JdbcToolCallStore store = open();
            store.close();
            store.close();

            assertThatThrownBy(() -> store.append(ok("late", "inv", "t"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThatThrownBy(() -> store.recent(1)).isInstanceOf(IllegalStateException.class);
        }

        /** A failed mark: the executor throws and the handler never runs; a failed append: the executor throws. */
        void assertStoreFailureStopsTheExecutor(JdbcToolCallStore store, Path workspace) {
            AtomicBoolean handlerRan = new AtomicBoolean();
            ToolExecutor executor = executor(store, handlerRan);
            ToolContext context = ToolContext.of("inv-broken", SandboxPaths.of(workspace));

            assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("touch", "{}"), context))
                    .isInstanceOf(StoreFailureException.class);
            assertThat(handlerRan).as("the handler must not run when its mark could not be written").isFalse();
            assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("rm_rf", "{}"), context))
                    .isInstanceOf(StoreFailureException.class);
            assertThatThrownBy(() -> store.append(ok("direct", "inv", "t"))).isInstanceOf(StoreFailureException.class);
        }
    }

    static ToolExecutor executor(JdbcToolCallStore store, AtomicBoolean handlerRan) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("touch")
                .description("Notes that it ran.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"secret\":{\"type\":\"string\"}},"
                        + "\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .redactArgs(true)
                .build(), (args, ctx) -> {
                    handlerRan.set(true);
                    return ToolOutput.of("touched");
                });
        return ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("touch")).store(store).build();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("gave up waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @Nested
    class OnSqlite extends Contract {
        @TempDir
        Path dir;
        Path file;

        @BeforeEach
        void name() {
            file = dir.resolve("records").resolve("calls.db");
        }

        @Override
        DataSource database() {
            org.sqlite.SQLiteDataSource ds = new org.sqlite.SQLiteDataSource();
            ds.setUrl("jdbc:sqlite:" + file);
            return ds;
        }

        @Override
        JdbcToolCallStore open() {
            return track(JdbcToolCallStore.sqlite(file));
        }

        @Override
        DataSource databaseForHandWrittenRows() throws IOException {
            Files.createDirectories(file.getParent());
            return database();
        }

        Connection raw() throws SQLException {
            return DriverManager.getConnection("jdbc:sqlite:" + file);
        }

        @Test
        void theFileIsInWalModeAndItsDirectoryIsCreated() throws SQLException {
            open();

            assertThat(file).isRegularFile();
            try (Connection c = raw(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("wal");
            }
        }

        @Test
        void aStoreOpenedThroughADataSourceOnSqliteWorksToo() throws IOException {
            Files.createDirectories(file.getParent());
            JdbcToolCallStore store = track(JdbcToolCallStore.of(database()));
            store.append(ok("a", "inv", "t"));

            assertThat(store.recent(1)).containsExactly(ok("a", "inv", "t"));
            assertThat(store.toString()).contains("SQLite");
        }

        @Test
        void aDirectoryOrAPathWithAQuestionMarkIsRefusedAsTheFile() {
            assertThatThrownBy(() -> JdbcToolCallStore.sqlite(dir)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("directory");
            assertThatThrownBy(() -> JdbcToolCallStore.sqlite(dir.resolve("a?mode=memory")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'?'");
        }

        @Test
        void aStoreWhoseFileIsDeletedThrowsAndAFailedMarkStopsTheHandler() throws IOException {
            JdbcToolCallStore store = open();
            store.append(ok("before", "inv", "t"));
            for (String suffix : List.of("", "-wal", "-shm")) {
                Files.deleteIfExists(Path.of(file + suffix));
            }

            assertStoreFailureStopsTheExecutor(store, dir);
            assertThat(file).as("a missing file is a failure, never a fresh empty database").doesNotExist();
        }

        @Test
        void aStoreWhoseFileIsReplacedThrows() throws IOException {
            JdbcToolCallStore store = open();
            store.append(ok("before", "inv", "t"));
            Path elsewhere = dir.resolve("copy.db");
            Files.copy(file, elsewhere);
            Files.move(elsewhere, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);

            assertThatThrownBy(() -> store.append(ok("after", "inv", "t"))).isInstanceOf(StoreFailureException.class)
                    .hasMessageContaining("replaced");
        }

        @Test
        void aFailedBatchFailsEveryCallerInItAndLeavesNoRowOfIt() throws Exception {
            JdbcToolCallStore store = open();
            try (Connection locker = raw(); Statement s = locker.createStatement()) {
                s.execute("CREATE TRIGGER poison BEFORE INSERT ON toolyard_call WHEN NEW.tool_name = 'poison'"
                        + " BEGIN SELECT RAISE(ABORT, 'poisoned row'); END");
                locker.setAutoCommit(false);
                s.execute("DELETE FROM toolyard_schema_version WHERE version < 0"); // holds SQLite's write lock

                Map<String, Throwable> outcomes = new ConcurrentHashMap<>();
                List<Thread> callers = new ArrayList<>();
                callers.add(append(store, ok("first", "inv", "t"), outcomes));
                await("the writer to take the first call alone", () -> store.transactions() == 1);
                for (String id : List.of("b1", "b2", "b3", "b4")) {
                    callers.add(append(store, ok(id, "inv", "t"), outcomes));
                }
                callers.add(append(store, ok("b5", "inv", "poison"), outcomes));
                await("five calls to queue behind the first", () -> store.queuedWrites() == 5);
                locker.rollback(); // lets the writer go: the first batch commits, the second meets the poison
                for (Thread caller : callers) {
                    caller.join();
                }

                assertThat(outcomes.get("first")).isInstanceOf(Success.class);
                for (String id : List.of("b1", "b2", "b3", "b4", "b5")) {
                    assertThat(outcomes.get(id)).as(id).isInstanceOf(StoreFailureException.class)
                            .hasMessageContaining("poisoned row");
                }
                assertThat(store.transactions()).isEqualTo(2);
            }
            assertThat(store.recent(10)).containsExactly(ok("first", "inv", "t"));
            store.append(ok("later", "inv", "t"));
            assertThat(store.recent(10)).extracting(ToolCallRecord::callId).containsExactly("first", "later");
        }

        @Test
        void aChildJvmKilledWhileAppendingLosesNoAcknowledgedCallAndItsRunningCallReadsBackInterrupted()
                throws Exception {
            Files.createDirectories(file.getParent());
            Path stderr = dir.resolve("child-stderr.txt");
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), AppendingChild.class.getName(), file.toString(), "8")
                    .redirectError(stderr.toFile())
                    .start();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicBoolean blocking = new AtomicBoolean();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.equals("blocking")) {
                            blocking.set(true);
                        } else if (line.startsWith("ack ") && line.length() == 4 + 36) {
                            acknowledged.add(line.substring(4)); // a line cut by the kill is shorter: ignored
                        }
                    }
                } catch (IOException e) {
                    // the pipe closes when the child dies
                }
            });
            reader.start();
            try {
                await("the child to run its blocking call and acknowledge 2,000 calls (stderr: " + stderr + ")",
                        () -> !child.isAlive() || (blocking.get() && acknowledged.size() >= 2_000));
                assertThat(child.isAlive()).as("the child is still running; see " + stderr).isTrue();
            } finally {
                child.destroyForcibly(); // SIGKILL, mid-append
                child.waitFor(60, TimeUnit.SECONDS);
                reader.join(60_000);
            }
            Set<String> acked = new HashSet<>(acknowledged);

            try (Connection c = raw(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("ok");
            }
            JdbcToolCallStore store = open();
            Map<String, ToolCallRecord> byId = store.recent(Integer.MAX_VALUE).stream()
                    .collect(Collectors.toMap(ToolCallRecord::callId, r -> r));
            assertThat(byId.keySet()).as("every call acknowledged before the kill").containsAll(acked);
            for (String id : acked) {
                assertThat(byId.get(id).status()).isIn(ToolStatus.OK, ToolStatus.REFUSED);
            }
            List<ToolCallRecord> running = store.byInvocation(AppendingChild.BLOCKER_INVOCATION);
            assertThat(running).hasSize(1);
            assertThat(running.get(0).status()).isEqualTo(ToolStatus.INTERRUPTED);
            assertThat(running.get(0).toolName()).isEqualTo("hold");
            assertThat(store.byToolAndStatus("hold", ToolStatus.INTERRUPTED)).containsExactlyElementsOf(running);
        }
    }

    /** Marks, in a map of outcomes, a call that returned normally. */
    static final class Success extends Throwable {
        private static final long serialVersionUID = 1L;
    }

    static Thread append(JdbcToolCallStore store, ToolCallRecord record, Map<String, Throwable> outcomes) {
        Thread t = new Thread(() -> {
            try {
                store.append(record);
                outcomes.put(record.callId(), new Success());
            } catch (Throwable e) {
                outcomes.put(record.callId(), e);
            }
        });
        t.start();
        return t;
    }

    @Nested
    class OnPostgresql extends Contract {
        @RegisterExtension
        final PostgresTestDatabase.PerTest postgres = new PostgresTestDatabase.PerTest();

        @Override
        DataSource database() {
            return postgres.dataSource();
        }

        @Test
        void theStandardSqlFallbackWorksTooButADuplicateFailsItsWholeBatch() {
            JdbcToolCallStore store = track(JdbcToolCallStore.of(database(), Dialect.STANDARD));
            ToolCallStart mark = start("m", "inv", "run_command");
            store.append(ok("a", "inv", "t"));
            store.markStarted(mark);
            assertThat(store.byToolAndStatus("run_command", ToolStatus.INTERRUPTED))
                    .containsExactly(ToolCallRecord.interrupted(mark));
            store.complete(finished(mark, ToolStatus.OK, null));

            assertThatThrownBy(() -> store.append(ok("a", "inv", "again"))).isInstanceOf(StoreFailureException.class);
            assertThat(store.recent(10)).containsExactly(ok("a", "inv", "t"), finished(mark, ToolStatus.OK, null));
        }

        @Test
        void aStoreWhoseDatabaseIsDroppedThrowsAndAFailedMarkStopsTheHandler(@TempDir Path workspace)
                throws SQLException {
            String name = "toolyard_gone_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            try (Connection admin = postgres.database().admin(); Statement s = admin.createStatement()) {
                s.execute("CREATE DATABASE " + name);
            }
            JdbcToolCallStore store = track(JdbcToolCallStore.of(postgres.database().dataSource(name)));
            store.append(ok("before", "inv", "t"));
            assertThat(store.recent(1)).hasSize(1);
            try (Connection admin = postgres.database().admin(); Statement s = admin.createStatement()) {
                s.execute("DROP DATABASE " + name + " WITH (FORCE)");
            }

            assertStoreFailureStopsTheExecutor(store, workspace);
            assertThatThrownBy(() -> store.recent(1)).isInstanceOf(StoreFailureException.class);
        }
    }
}
