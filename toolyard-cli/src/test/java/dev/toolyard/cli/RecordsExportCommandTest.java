package dev.toolyard.cli;

import java.util.Optional;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code toolyard records export} against a real SQLite store: pages of a cursor range, exported run
 * after run and imported back into a fresh store, give every record of the range exactly once, in
 * start-then-call-id order, each line one JSON object with its export version.
 */
class RecordsExportCommandTest {
    static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @TempDir
    Path tmp;

    static ToolCallRecord at(String id, Instant startedAt, String summary) {
        boolean failed = id.hashCode() % 3 == 0;
        return new ToolCallRecord(id, "inv-" + id.length(), "read_file", failed ? ToolStatus.FAILED : ToolStatus.OK,
                failed ? Optional.of(Reason.FILE_NOT_FOUND) : Optional.empty(), failed ? "no such file" : "", "{\"n\":\"" + id + "\"}",
                RecordsCommandTest.SHA, false, summary, startedAt, Duration.ofMillis(7), "req-" + id, "", "agent-a", "", "");
    }

    /** The calls of the range: 3 starting at the same instant (the call id orders them), others spread over 9 days. */
    static List<ToolCallRecord> inRange() {
        List<ToolCallRecord> calls = new ArrayList<>();
        Instant tie = NOW.minus(Duration.ofDays(3));
        calls.add(at("tie-c", tie, "third"));
        calls.add(at("tie-a", tie, "first of the tie, caf\u00e9 \u2028 line separator, \u65e5\u672c"));
        calls.add(at("tie-b", tie, "second\nwith a line break"));
        for (int i = 0; i < 22; i++) {
            calls.add(at("c" + i, NOW.minus(Duration.ofHours(2 + 9L * i)), "call " + i));
        }
        return calls;
    }

    static ToolCallRecord parse(JsonNode n) {
        ToolStatus status = ToolStatus.fromWireName(n.get("status").asString());
        return new ToolCallRecord(n.get("callId").asString(), n.get("invocationId").asString(),
                n.get("toolName").asString(), status,
                n.get("reason").isNull() ? Optional.empty() : Optional.of(Reason.fromRecord(n.get("reason").asString(), status)),
                n.get("reasonDetail").asString(), n.get("arguments").asString(), n.get("argumentsSha256").asString(),
                n.get("argumentsRedacted").asBoolean(), n.get("summary").asString(),
                Instant.parse(n.get("startedAt").asString()), Duration.parse(n.get("duration").asString()),
                n.get("requestCallId").asString(), n.get("approver").asString(), n.get("agent").asString(),
                n.get("shadowDenial").asString(), n.has("network") ? n.get("network").asString() : "");
    }

    @Test
    void pagesOfACursorRangeExportedRunAfterRunAndImportedBackGiveEachRecordOnceInOrder() throws Exception {
        List<ToolCallRecord> range = inRange();
        List<ToolCallRecord> all = new ArrayList<>(range);
        all.add(at("too-old", NOW.minus(Duration.ofDays(30)), "before --since"));
        all.add(at("too-new", NOW.minus(Duration.ofMinutes(10)), "after the default --until, an hour ago"));
        Path store = RecordsCommandTest.storeWith(tmp.resolve("records.db"), all);
        Path cursor = tmp.resolve("cursor.json");

        List<String> lines = new ArrayList<>();
        List<Integer> perRun = new ArrayList<>();
        for (int run = 0; run < 5; run++) {
            CliRun r = CliRun.of("records", "export", "--store", store.toString(), "--since", "20d", "--cursor",
                    cursor.toString(), "--limit", "10");
            assertThat(r.exit()).as(r.err()).isZero();
            List<String> out = r.out().lines().toList();
            perRun.add(out.size());
            lines.addAll(out);
        }

        assertThat(perRun).containsExactly(10, 10, 5, 0, 0);
        List<ToolCallRecord> exported = new ArrayList<>();
        for (String line : lines) {
            JsonNode n = Json.MAPPER.readTree(line);
            assertThat(n.get("exportVersion").asInt()).isEqualTo(1);
            exported.add(parse(n));
        }
        List<ToolCallRecord> expected = new ArrayList<>(range);
        expected.sort(Comparator.comparing(ToolCallRecord::startedAt).thenComparing(ToolCallRecord::callId));
        assertThat(exported).as("each record of the range once, by start then call id").isEqualTo(expected);
        assertThat(exported.subList(14, 17)).extracting(ToolCallRecord::callId)
                .containsExactly("tie-a", "tie-b", "tie-c");

        // Imported into a fresh store, the export reads back as the original records.
        try (JdbcToolCallStore imported = JdbcToolCallStore.sqlite(tmp.resolve("imported.db"))) {
            exported.forEach(imported::append);
            for (ToolCallRecord r : range) {
                assertThat(imported.byCallId(r.callId())).contains(r);
            }
        }

        // Calls recorded after the last run are the only ones the next run ships.
        try (JdbcToolCallStore s = JdbcToolCallStore.sqlite(store)) {
            s.append(at("later-1", NOW.minus(Duration.ofMinutes(90)), "later"));
            s.append(at("later-2", NOW.minus(Duration.ofMinutes(80)), "later"));
        }
        CliRun next = CliRun.of("records", "export", "--store", store.toString(), "--since", "20d", "--cursor",
                cursor.toString());
        assertThat(next.exit()).as(next.err()).isZero();
        assertThat(next.out().lines().map(l -> Json.MAPPER.readTree(l).get("callId").asString()))
                .containsExactly("later-1", "later-2");
        assertThat(Files.readString(cursor)).contains("later-2");
    }

    @Test
    void anExplicitUntilBoundsTheRangeAndBadOptionsOrCursorsExitTwo() throws Exception {
        Path store = RecordsCommandTest.storeWith(tmp.resolve("records.db"), inRange());
        CliRun r = CliRun.of("records", "export", "--store", store.toString(), "--since", "20d", "--until",
                NOW.minus(Duration.ofDays(3)).toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines().map(l -> Json.MAPPER.readTree(l).get("callId").asString()))
                .as("the tie starts exactly at --until, which is exclusive").doesNotContain("tie-a", "tie-b", "tie-c")
                .hasSize(14);

        Path badCursor = tmp.resolve("bad.json");
        Files.writeString(badCursor, "{\"startedAt\":\"yesterday\"}");
        for (String[] args : new String[][] {
                {"records", "export", "--store", store.toString()},
                {"records", "export", "--store", store.toString(), "--since", "soon"},
                {"records", "export", "--store", store.toString(), "--since", "1d", "--until", "later"},
                {"records", "export", "--store", store.toString(), "--since", "1d", "--limit", "0"},
                {"records", "export", "--store", store.toString(), "--since", "1d", "--cursor", badCursor.toString()},
                {"records", "export", "--store", tmp.resolve("none.db").toString(), "--since", "1d"}}) {
            assertThat(CliRun.of(args).exit()).as(String.join(" ", args)).isEqualTo(2);
        }
    }
}
