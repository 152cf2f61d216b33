package dev.toolyard;

import dev.toolyard.spi.ToolCallStart;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class InMemoryToolCallStoreTest {
    private final InMemoryToolCallStore store = new InMemoryToolCallStore();

    private static ToolCallStart start(String id, String invocation, String tool) {
        return new ToolCallStart(id, invocation, tool, "{}", "0".repeat(64), false, Instant.EPOCH);
    }

    private static ToolCallRecord record(String id, String invocation, String tool, ToolStatus status, Reason reason) {
        return new ToolCallRecord(id, invocation, tool, status, reason, "", "{}", "0".repeat(64), false, "",
                Instant.EPOCH, Duration.ofMillis(1));
    }

    @Test
    void aStartedCallWithNoCompletionReadsBackAsInterruptedInItsPlace() {
        store.append(record("a", "inv", "t", ToolStatus.REFUSED, Reason.UNKNOWN_TOOL));
        store.markStarted(start("b", "inv", "t"));
        store.append(record("c", "inv", "t", ToolStatus.REFUSED, Reason.NOT_ALLOWLISTED));
        assertThat(store.records()).extracting(ToolCallRecord::callId).containsExactly("a", "b", "c");
        assertThat(store.records().get(1).status()).isEqualTo(ToolStatus.INTERRUPTED);
        store.complete(record("b", "inv", "t", ToolStatus.OK, null));
        assertThat(store.records().get(1).status()).isEqualTo(ToolStatus.OK);
    }

    @Test
    void completingAnUnmarkedCallOrMarkingTwiceIsABug() {
        assertThatThrownBy(() -> store.complete(record("x", "i", "t", ToolStatus.OK, null)))
                .isInstanceOf(IllegalStateException.class);
        store.markStarted(start("y", "i", "t"));
        assertThatThrownBy(() -> store.markStarted(start("y", "i", "t"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theReadSideFiltersInAppendOrder() {
        store.append(record("1", "a", "read_file", ToolStatus.REFUSED, Reason.PATH_ESCAPE));
        store.append(record("2", "b", "read_file", ToolStatus.OK, null));
        store.append(record("3", "a", "list_dir", ToolStatus.OK, null));
        store.append(record("4", "a", "read_file", ToolStatus.OK, null));
        assertThat(store.byInvocation("a")).extracting(ToolCallRecord::callId).containsExactly("1", "3", "4");
        assertThat(store.recent(2)).extracting(ToolCallRecord::callId).containsExactly("3", "4");
        assertThat(store.recent(10)).hasSize(4);
        assertThat(store.byToolAndStatus("read_file", ToolStatus.OK)).extracting(ToolCallRecord::callId)
                .containsExactly("2", "4");
        assertThatThrownBy(() -> store.recent(0)).hasMessageContaining("limit");
    }

    /** Open calls are kept in stripes by id: every stripe still refuses a second mark and finds its completion. */
    @Test
    void manyOpenCallsAreEachFoundAndKeptInMarkOrder() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(UUID.randomUUID().toString());
            store.markStarted(start(ids.get(i), "inv", "t"));
        }
        for (String id : ids) {
            assertThatThrownBy(() -> store.markStarted(start(id, "inv", "t"))).isInstanceOf(IllegalStateException.class);
        }
        Thread other = new Thread(() -> ids.subList(0, 100).forEach(id -> store.complete(record(id, "inv", "t",
                ToolStatus.OK, null))));
        other.start();
        other.join();
        store.clear(); // the completed half goes, the open half stays
        assertThat(store.records()).extracting(ToolCallRecord::callId).containsExactlyElementsOf(ids.subList(100, 200));
        assertThat(store.records()).extracting(ToolCallRecord::status).containsOnly(ToolStatus.INTERRUPTED);
        ids.subList(100, 200).forEach(id -> store.complete(record(id, "inv", "t", ToolStatus.OK, null)));
        assertThat(store.records()).extracting(ToolCallRecord::status).containsOnly(ToolStatus.OK);
        assertThatThrownBy(() -> store.complete(record(ids.get(0), "inv", "t", ToolStatus.OK, null)))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * Entries are kept in lanes by the writing thread: calls written one after another on many threads,
     * each thread waiting for the one before, read back in the order they were written, and each
     * thread's own calls in its order.
     */
    @Test
    void callsWrittenOneAfterAnotherOnManyThreadsReadBackInTheOrderTheyWereWritten() throws Exception {
        List<String> written = new ArrayList<>();
        for (int t = 0; t < 40; t++) { // more threads than lanes, so some share one
            int thread = t;
            Thread writer = new Thread(() -> {
                for (int i = 0; i < 5; i++) {
                    String id = thread + "-" + i;
                    if (i % 2 == 0) {
                        store.markStarted(start(id, "inv", "t"));
                    } else {
                        store.append(record(id, "inv", "t", ToolStatus.REFUSED, Reason.UNKNOWN_TOOL));
                    }
                    written.add(id); // joined below before the list is read
                }
            });
            writer.start();
            writer.join();
        }
        assertThat(store.records()).extracting(ToolCallRecord::callId).containsExactlyElementsOf(written);
        assertThat(store.recent(3)).extracting(ToolCallRecord::callId).containsExactly("39-2", "39-3", "39-4");
        assertThat(store.byToolAndStatus("t", ToolStatus.INTERRUPTED)).hasSize(40 * 3);
    }
}
