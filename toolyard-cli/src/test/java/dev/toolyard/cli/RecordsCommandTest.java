package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.Json;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code toolyard records} against a real SQLite store written with known records. */
class RecordsCommandTest {
    static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");
    static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @TempDir
    Path tmp;

    Path store;

    /** Six calls, a minute apart: inv-a and inv-b alternate; read_file, http_fetch; OK, refused, failed. */
    static List<ToolCallRecord> sixCalls() {
        List<ToolCallRecord> calls = new ArrayList<>();
        calls.add(record("c0", "inv-a", "read_file", ToolStatus.OK, null, 0));
        calls.add(record("c1", "inv-b", "http_fetch", ToolStatus.REFUSED, Reason.HOST_NOT_ALLOWED, 1));
        calls.add(record("c2", "inv-a", "read_file", ToolStatus.REFUSED, Reason.PATH_ESCAPE, 2));
        calls.add(record("c3", "inv-b", "http_fetch", ToolStatus.OK, null, 3));
        calls.add(record("c4", "inv-a", "read_file", ToolStatus.FAILED, Reason.FILE_NOT_FOUND, 4));
        calls.add(record("c5", "inv-b", "read_file", ToolStatus.OK, null, 5));
        return calls;
    }

    static ToolCallRecord record(String id, String inv, String tool, ToolStatus status, Reason reason, int minute) {
        return new ToolCallRecord(id, inv, tool, status, reason, reason == null ? "" : "detail of " + id,
                "{\"n\":" + minute + "}", SHA, false, "summary of " + id, T0.plus(Duration.ofMinutes(minute)),
                Duration.ofMillis(10 + minute));
    }

    static Path storeWith(Path file, List<ToolCallRecord> calls) {
        try (JdbcToolCallStore s = JdbcToolCallStore.sqlite(file)) {
            calls.forEach(s::append);
        }
        return file;
    }

    @BeforeEach
    void writeStore() {
        store = storeWith(tmp.resolve("records.db"), sixCalls());
    }

    private List<String> ids(String... filters) {
        List<String> args = new ArrayList<>(List.of("records", "--store", store.toString(), "--json"));
        args.addAll(List.of(filters));
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return r.out().lines().map(l -> Json.MAPPER.readTree(l).get("callId").asString()).toList();
    }

    @Test
    void withoutFiltersTheNewestCallsAreListedOldestFirst() {
        assertThat(ids()).containsExactly("c0", "c1", "c2", "c3", "c4", "c5");
        CliRun table = CliRun.of("records", "--store", store.toString());
        assertThat(table.exit()).isZero();
        assertThat(table.out()).contains("6 record(s) in " + store).doesNotContain("raise --limit");
        assertThat(table.out().lines().skip(2).limit(6).map(l -> l.substring(l.lastIndexOf(' ') + 1)))
                .containsExactly("c0", "c1", "c2", "c3", "c4", "c5");
    }

    @Test
    void theTableShowsWhoApprovedEachCallAndTheFrameworksIdBesideToolYardsWhole() {
        String longId = "call_" + "x".repeat(60);
        String longApprover = "a reviewer whose name runs on and on";
        List<ToolCallRecord> calls = new ArrayList<>();
        calls.add(approved("d0", "call_4f2a9c", "alice@ops", 0));
        calls.add(approved("d1", longId, longApprover, 1));
        calls.add(approved("d2", "", "", 2)); // no framework id, no reviewer
        Path approvals = storeWith(tmp.resolve("approvals.db"), calls);

        CliRun table = CliRun.of("records", "--store", approvals.toString());

        assertThat(table.exit()).as(table.err()).isZero();
        List<String> lines = table.out().lines().toList();
        assertThat(lines.get(0)).matches("started \\(UTC\\) +invocation +tool +status +reason +ms +approver"
                + " +request id +call id");
        assertThat(lines.get(2)).contains("alice@ops").contains("call_4f2a9c").endsWith("d0");
        // Long values are clipped, so the call id stays on the line, whole and last.
        assertThat(lines.get(3)).contains(longApprover.substring(0, 23) + "…")
                .contains(longId.substring(0, 31) + "…").doesNotContain(longId).endsWith("d1");
        assertThat(lines.get(4)).endsWith("d2");
        assertThat(lines.get(4).indexOf("d2")).isEqualTo(lines.get(2).indexOf("d0"));
        // records show and --json keep both whole.
        CliRun json = CliRun.of("records", "--store", approvals.toString(), "--json", "--limit", "2");
        JsonNode second = Json.MAPPER.readTree(json.out().lines().toList().get(0));
        assertThat(second.get("requestCallId").asString()).isEqualTo(longId);
        assertThat(second.get("approver").asString()).isEqualTo(longApprover);
    }

    @Test
    void clippingNeverSplitsACharacterOutsideTheBasicPlane() {
        String id = "x".repeat(30) + "\uD83D\uDE00" + "y";
        assertThat(RecordsCommand.clip(id, 32)).isEqualTo("x".repeat(30) + "…");
        assertThat(RecordsCommand.clip("short", 32)).isEqualTo("short");
    }

    private static ToolCallRecord approved(String id, String requestCallId, String approver, int minute) {
        return new ToolCallRecord(id, "inv-a", "deploy", ToolStatus.OK, null, "", "{}", SHA, false, "deployed",
                T0.plus(Duration.ofMinutes(minute)), Duration.ofMillis(5), requestCallId, approver);
    }

    @Test
    void invocationKeepsOnlyThatInvocationsCalls() {
        assertThat(ids("--invocation", "inv-a")).containsExactly("c0", "c2", "c4");
        assertThat(ids("--invocation", "inv-none")).isEmpty();
    }

    @Test
    void toolKeepsOnlyCallsOfThatToolName() {
        assertThat(ids("--tool", "http_fetch")).containsExactly("c1", "c3");
    }

    @Test
    void statusKeepsOnlyCallsThatEndedSoAndAnUnknownStatusIsAUserMistake() {
        assertThat(ids("--status", "refused")).containsExactly("c1", "c2");
        assertThat(ids("--status", "failed")).containsExactly("c4");
        CliRun bad = CliRun.of("records", "--store", store.toString(), "--status", "REFUSED!");
        assertThat(bad.exit()).isEqualTo(Main.USAGE);
        assertThat(bad.err().strip()).isEqualTo(
                "toolyard: --status must be one of ok, refused, failed, timeout, interrupted; got 'REFUSED!'");
    }

    @Test
    void sinceTakesAnInstantOrAnAgeAndABadValueIsAUserMistake() {
        assertThat(ids("--since", "2026-12-01T07:03:00Z")).containsExactly("c3", "c4", "c5");
        assertThat(ids("--since", "2026-12-01T08:02:00+01:00")).containsExactly("c2", "c3", "c4", "c5");
        // The fixed records are in the past; an age reaching back before them shows all, a short one none.
        assertThat(ids("--since", "36500d")).hasSize(6);
        assertThat(ids("--since", "1s")).isEmpty();
        CliRun bad = CliRun.of("records", "--store", store.toString(), "--since", "last tuesday");
        assertThat(bad.exit()).isEqualTo(Main.USAGE);
        assertThat(bad.err()).startsWith("toolyard: --since takes an instant");
    }

    @Test
    void limitKeepsTheNewestMatchingCallsAndSaysWhenItCut() {
        assertThat(ids("--limit", "2")).containsExactly("c4", "c5");
        assertThat(ids("--limit", "2", "--tool", "read_file")).containsExactly("c4", "c5");
        CliRun table = CliRun.of("records", "--store", store.toString(), "--limit", "3");
        assertThat(table.out()).contains("3 record(s) in " + store + " (the newest 3 that match; older ones may exist:"
                + " raise --limit)");
        for (String bad : new String[] {"0", "-1"}) {
            CliRun r = CliRun.of("records", "--store", store.toString(), "--limit", bad);
            assertThat(r.exit()).isEqualTo(Main.USAGE);
            assertThat(r.err().strip()).isEqualTo("toolyard: --limit must be positive, got " + bad);
        }
        assertThat(CliRun.of("records", "--store", store.toString(), "--limit", "many").exit()).isEqualTo(Main.USAGE);
    }

    @Test
    void filtersCombineAsAnd() {
        assertThat(ids("--invocation", "inv-a", "--tool", "read_file", "--status", "refused",
                "--since", "2026-12-01T07:01:00Z")).containsExactly("c2");
        assertThat(ids("--invocation", "inv-b", "--status", "ok", "--limit", "1")).containsExactly("c5");
    }

    @Test
    void jsonPrintsOneObjectPerLineWithEveryFieldOfTheRecord() {
        CliRun r = CliRun.of("records", "--store", store.toString(), "--json", "--status", "refused", "--tool",
                "read_file");
        assertThat(r.out().lines()).hasSize(1);
        JsonNode o = Json.MAPPER.readTree(r.out().lines().findFirst().orElseThrow());
        for (var component : ToolCallRecord.class.getRecordComponents()) {
            assertThat(o.has(component.getName())).as(component.getName()).isTrue();
        }
        assertThat(o.get("callId").asString()).isEqualTo("c2");
        assertThat(o.get("invocationId").asString()).isEqualTo("inv-a");
        assertThat(o.get("toolName").asString()).isEqualTo("read_file");
        assertThat(o.get("status").asString()).isEqualTo("refused");
        assertThat(o.get("reason").asString()).isEqualTo("path_escape");
        assertThat(o.get("reasonDetail").asString()).isEqualTo("detail of c2");
        assertThat(o.get("arguments").asString()).isEqualTo("{\"n\":2}");
        assertThat(o.get("argumentsSha256").asString()).isEqualTo(SHA);
        assertThat(o.get("argumentsRedacted").asBoolean()).isFalse();
        assertThat(o.get("summary").asString()).isEqualTo("summary of c2");
        assertThat(o.get("startedAt").asString()).isEqualTo("2026-12-01T07:02:00Z");
        assertThat(o.get("duration").asString()).isEqualTo("PT0.012S");
        assertThat(o.get("durationNanos").asLong()).isEqualTo(12_000_000L);
        CliRun ok = CliRun.of("records", "--store", store.toString(), "--json", "--limit", "1");
        assertThat(Json.MAPPER.readTree(ok.out().strip()).get("reason").isNull()).isTrue();
    }

    @Test
    void aMissingStoreOrAFileThatIsNotAStoreIsAUserMistake() throws Exception {
        CliRun none = CliRun.of("records", "--store", tmp.resolve("none.db").toString());
        Path text = Files.writeString(tmp.resolve("text.db"), "not a database");
        CliRun wrong = CliRun.of("records", "--store", text.toString(), "--tool", "read_file");
        assertThat(none.exit()).isEqualTo(Main.USAGE);
        assertThat(none.err()).startsWith("toolyard: no store at ");
        assertThat(wrong.exit()).isEqualTo(Main.USAGE);
        assertThat(wrong.err()).startsWith("toolyard: cannot read ").doesNotContain("\tat ");
    }
}
