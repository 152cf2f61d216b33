package dev.toolyard.policy;

import dev.toolyard.Reason;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed workload fixture is what {@link Workload} generates today. Regenerate it with
 * {@code mvn -pl toolyard-policy -am test -Dtest=WorkloadTest -Dtoolyard.policy.regenerate=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class WorkloadTest {
    @TempDir
    Path tmp;

    /** @return the committed fixture, copied to a temporary file (SQLite wants to write beside it) */
    static Path committed(Path dir) throws Exception {
        Path copy = dir.resolve("workload.db");
        try (InputStream in = WorkloadTest.class.getResourceAsStream(Workload.RESOURCE)) {
            assertThat(in).as("the committed fixture %s", Workload.RESOURCE).isNotNull();
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    static List<ToolCallRecord> records(Path db) {
        try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(db)) {
            return store.recent(Integer.MAX_VALUE);
        }
    }

    @Test
    void theCommittedFixtureIsWhatTheWorkloadGeneratesTodayAndStaysSmall() throws Exception {
        Path fresh = tmp.resolve("fresh.db");
        Files.createDirectories(tmp.resolve("ws"));
        Workload.generate(tmp.resolve("ws"), fresh);
        if (Boolean.getBoolean("toolyard.policy.regenerate")) {
            Path target = Path.of("src/test/resources" + Workload.RESOURCE);
            try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(fresh)) {
                store.recent(1); // open and close once more so the WAL is folded into the file
            }
            Files.copy(fresh, target, StandardCopyOption.REPLACE_EXISTING);
        }

        List<ToolCallRecord> committed = records(committed(tmp));
        assertThat(Workload.meaning(committed)).containsExactlyElementsOf(Workload.meaning(records(fresh)));
        assertThat(Files.size(committed(tmp))).as("the fixture stays small").isLessThan(1 << 20);
    }

    @Test
    void theWorkloadHasEveryPersonaAndTheOutcomesRealRunsHave() throws Exception {
        List<ToolCallRecord> records = records(committed(tmp));

        assertThat(records).extracting(ToolCallRecord::agent).containsOnly("docs-writer", "researcher", "reviewer");
        assertThat(records.stream().map(ToolCallRecord::invocationId).distinct().count()).isEqualTo(18);
        assertThat(records).extracting(ToolCallRecord::toolName)
                .contains("read_file", "write_file", "list_dir", "http_fetch");
        assertThat(records).anyMatch(r -> r.status() == ToolStatus.REFUSED && r.reason().map(Reason::wireName).filter("path_escape"::equals).isPresent());
        assertThat(records).anyMatch(r -> r.reason().map(Reason::wireName).filter("file_not_found"::equals).isPresent());
        assertThat(records).anyMatch(r -> r.reason().map(Reason::wireName).filter("http_status"::equals).isPresent());
        assertThat(records).anyMatch(r -> r.arguments().startsWith("{\"omitted\":true"));
        assertThat(records.stream().filter(r -> r.toolName().equals("http_fetch")).allMatch(r -> r.status() != ToolStatus.REFUSED))
                .as("every fetch reached the loopback server").isTrue();
    }
}
