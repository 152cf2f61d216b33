package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code toolyard records prune --older-than AGE} against a real SQLite store. */
class RecordsPruneCommandTest {
    @TempDir
    Path tmp;

    static ToolCallRecord at(String id, Instant startedAt) {
        return new ToolCallRecord(id, "inv", "read_file", ToolStatus.OK, null, "", "{}", RecordsCommandTest.SHA, false,
                "ok", startedAt, Duration.ofMillis(1));
    }

    @Test
    void theCallsOlderThanTheAgeAreRemovedAndTheOthersKept() {
        Instant now = Instant.now();
        Path store = RecordsCommandTest.storeWith(tmp.resolve("records.db"), List.of(at("d40", now.minus(Duration.ofDays(40))),
                at("d31", now.minus(Duration.ofDays(31))), at("d29", now.minus(Duration.ofDays(29))),
                at("h1", now.minus(Duration.ofHours(1)))));

        CliRun r = CliRun.of("records", "prune", "--store", store.toString(), "--older-than", "30d");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("removed 2 call(s) started before ").contains(store.toString());
        CliRun left = CliRun.of("records", "--store", store.toString());
        assertThat(left.out()).contains("d29").contains("h1").doesNotContain("d31").doesNotContain("d40");
    }

    @Test
    void aBadOrMissingAgeOrAMissingStoreIsTheUsersToFixWithExitTwo() {
        Path store = RecordsCommandTest.storeWith(tmp.resolve("records.db"), List.of(at("a", Instant.now())));
        for (String age : List.of("30", "2026-12-01T00:00:00Z", "-5d", "0d", "PT0S", "soon")) {
            CliRun r = CliRun.of("records", "prune", "--store", store.toString(), "--older-than", age);
            assertThat(r.exit()).as(age).isEqualTo(2);
            assertThat(r.err()).as(age).contains("--older-than");
        }
        assertThat(CliRun.of("records", "prune", "--store", store.toString()).exit()).isEqualTo(2);
        CliRun none = CliRun.of("records", "prune", "--store", tmp.resolve("none.db").toString(), "--older-than", "1d");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("no store at");
        assertThat(CliRun.of("records", "--store", store.toString()).out()).contains(" a");
    }
}
