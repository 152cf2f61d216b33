package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code toolyard records show CALL_ID} against a real SQLite store. */
class RecordsShowCommandTest {
    @TempDir
    Path tmp;

    Path store;

    @BeforeEach
    void writeStore() {
        List<ToolCallRecord> calls = new ArrayList<>(RecordsCommandTest.sixCalls());
        calls.add(new ToolCallRecord("secret", "inv-c", "login", ToolStatus.OK, null, "", "{\"redacted\":true}",
                RecordsCommandTest.SHA, true, "logged in", RecordsCommandTest.T0, Duration.ofMillis(3)));
        calls.add(new ToolCallRecord("hostile", "inv-c", "read_file", ToolStatus.FAILED, Reason.NOT_UTF8,
                "bytes \u001b[2J at 3", "{}", RecordsCommandTest.SHA, false, "line one\nline two \u001b]0;title\u0007",
                RecordsCommandTest.T0, Duration.ofMillis(3)));
        store = RecordsCommandTest.storeWith(tmp.resolve("records.db"), calls);
    }

    @Test
    void theWholeRecordIsPrintedFieldByFieldWithItsTimings() {
        CliRun r = CliRun.of("records", "show", "--store", store.toString(), "c2");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines()).containsExactly(
                "callId:            c2",
                "invocationId:      inv-a",
                "toolName:          read_file",
                "status:            refused",
                "reason:            path_escape",
                "reasonDetail:      detail of c2",
                "arguments:         {\"n\":2}",
                "argumentsSha256:   " + RecordsCommandTest.SHA,
                "argumentsRedacted: false",
                "summary:           summary of c2",
                "startedAt:         2026-12-01T07:02:00Z",
                "duration:          12.000 ms",
                "requestCallId:     ",
                "approver:          ",
                "agent:             ",
                "shadowDenial:      ",
                "network:           ",
                "endedAt:           2026-12-01T07:02:00.012Z");
    }

    @Test
    void aCommandsNetworkIsShownOneDestinationPerLine() {
        String network = "{\"connections\":3,\"refused\":1,\"bytes_up\":120,\"bytes_down\":900,\"destinations\":["
                + "{\"host\":\"pypi.test\",\"port\":443,\"address\":\"127.0.0.1\",\"outcome\":\"reached\","
                + "\"connections\":2,\"bytes_up\":120,\"bytes_down\":900},"
                + "{\"host\":\"meta.test\",\"port\":80,\"address\":\"169.254.169.254\",\"outcome\":\"link_local_address\","
                + "\"connections\":1,\"bytes_up\":0,\"bytes_down\":0}]}";
        List<ToolCallRecord> calls = List.of(new ToolCallRecord("net", "inv-n", "run_command", ToolStatus.OK, java.util.Optional.empty(), "",
                "{}", RecordsCommandTest.SHA, false, "ran curl", RecordsCommandTest.T0, Duration.ofMillis(3), "", "", "",
                "", network));
        Path db = RecordsCommandTest.storeWith(tmp.resolve("net.db"), calls);
        CliRun r = CliRun.of("records", "show", "--store", db.toString(), "net");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("network:           3 connections, 1 refused, up 120 B, down 900 B\n"
                + "                   reached pypi.test:443 127.0.0.1 x2 up 120 B down 900 B\n"
                + "                   link_local_address meta.test:80 169.254.169.254 x1 up 0 B down 0 B\n");
        CliRun j = CliRun.of("records", "show", "net", "--json", "--store", db.toString());
        assertThat(Json.MAPPER.readTree(j.out()).get("network").asString()).isEqualTo(network);
    }

    @Test
    void redactedArgumentsShowOnlyTheirDigest() {
        CliRun r = CliRun.of("records", "show", "--store", store.toString(), "secret");
        assertThat(r.out()).contains("arguments:         {\"redacted\":true}")
                .contains("argumentsSha256:   " + RecordsCommandTest.SHA).contains("argumentsRedacted: true");
    }

    @Test
    void controlCharactersAModelOrHandlerChoseAreShownEscapedNeverSentToTheTerminal() {
        CliRun r = CliRun.of("records", "show", "--store", store.toString(), "hostile");
        assertThat(r.out()).doesNotContain("\u001b").doesNotContain("\u0007")
                .contains("reasonDetail:      bytes \\u001b[2J at 3")
                .contains("summary:           line one\n                   line two \\u001b]0;title\\u0007");
    }

    @Test
    void jsonPrintsTheOneRecordAsAnObject() {
        CliRun r = CliRun.of("records", "show", "c4", "--json", "--store", store.toString());
        assertThat(r.exit()).isZero();
        JsonNode o = Json.MAPPER.readTree(r.out());
        assertThat(o.get("callId").asString()).isEqualTo("c4");
        assertThat(o.get("status").asString()).isEqualTo("failed");
        assertThat(o.get("reason").asString()).isEqualTo("file_not_found");
        assertThat(o.get("durationNanos").asLong()).isEqualTo(14_000_000L);
    }

    @Test
    void anUnknownCallIdIsAUserMistakeWithAClearMessage() {
        CliRun r = CliRun.of("records", "show", "--store", store.toString(), "c9");
        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().strip()).isEqualTo("toolyard: no call with id 'c9' in " + store
                + " (./toolyard records --store " + store + " lists the call ids)");
        CliRun none = CliRun.of("records", "show", "--store", store.toString());
        assertThat(none.exit()).isEqualTo(Main.USAGE);
        assertThat(none.err()).contains("Missing required parameter: 'CALL_ID'");
    }
}
