package dev.toolyard;

import static dev.toolyard.Fixtures.context;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link StreamedRound}: a turn whose calls arrive one at a time is capped as it arrives. */
@Timeout(60) // a hang guard only
class StreamedRoundTest {
    @TempDir
    Path root;

    final ToolRegistry registry = new ToolRegistry();
    final InMemoryToolCallStore store = new InMemoryToolCallStore();
    final AtomicInteger ran = new AtomicInteger();
    ToolExecutor executor;

    @BeforeEach
    void setUp() {
        registry.register(spec("echo").build(), (args, c) -> {
            ran.incrementAndGet();
            return ToolOutput.of(args.string("text"));
        });
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo")).store(store)
                .maxCallsPerRound(32).build();
    }

    private static ToolCallRequest call(String name, int i) {
        return ToolCallRequest.of(name, "{\"text\":\"" + i + "\"}").withCallId("call-" + i);
    }

    @Test
    void fortyCallsArrivingOneAtATimeRunTheFirstThirtyTwoAndRefuseTheLastEightAllRecorded() {
        StreamedRound round = executor.openRound(context(root));
        List<ToolResult> results = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            results.add(round.execute(call(i == 5 || i == 35 ? "invented" : "echo", i)));
        }

        for (int i = 0; i < 40; i++) {
            ToolResult r = results.get(i);
            if (i >= 32) {
                assertThat(r.reason()).as("call %d", i).contains(Reason.ROUND_LIMIT);
                assertThat(r.content()).contains("at most 32 run in one round");
            } else if (i == 5) {
                assertThat(r.reason()).contains(Reason.UNKNOWN_TOOL); // an unknown name counts like any call
            } else {
                assertThat(r.isOk()).as("call %d", i).isTrue();
            }
        }
        assertThat(ran).hasValue(31);
        assertThat(round.arrived()).isEqualTo(40);
        assertThat(store.records()).hasSize(40);
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT)
                .extracting(ToolCallRecord::requestCallId)
                .containsExactlyInAnyOrder("call-32", "call-33", "call-34", "call-35", "call-36", "call-37",
                        "call-38", "call-39");
    }

    @Test
    void callsArrivingOnManyThreadsAtOnceNeverRunMoreThanTheCap() throws Exception {
        StreamedRound round = executor.openRound(context(root));
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<ToolResult>> futures = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                futures.add(threads.submit(() -> round.execute(call("echo", n))));
            }
            int limited = 0;
            for (Future<ToolResult> f : futures) {
                if (f.get().reason().filter(r -> r == Reason.ROUND_LIMIT).isPresent()) {
                    limited++;
                }
            }
            assertThat(limited).isEqualTo(168);
        } finally {
            threads.shutdownNow();
        }
        assertThat(ran).hasValue(32);
        assertThat(store.records()).hasSize(200);
    }

    @Test
    void aClosedExecutorOpensNoRoundAndAnOpenRoundStopsWithIt() {
        StreamedRound round = executor.openRound(context(root));
        executor.close();
        assertThatThrownBy(() -> round.execute(call("echo", 0))).isInstanceOf(IllegalStateException.class);
        for (int i = 1; i < 40; i++) {
            int n = i;
            assertThatThrownBy(() -> round.execute(call("echo", n))).isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> executor.openRound(context(root))).isInstanceOf(IllegalStateException.class);
        assertThat(store.records()).isEmpty();
    }
}
