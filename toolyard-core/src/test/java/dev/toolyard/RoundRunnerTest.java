package dev.toolyard;

import dev.toolyard.spi.ToolCallStart;
import static dev.toolyard.Fixtures.context;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.spi.ToolCallStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link ToolExecutor#executeRound}, which {@link RoundRunner} runs, through a real executor and store. */
@Timeout(60) // a hang guard only: no test here asserts wall-clock speed
class RoundRunnerTest {
    @TempDir
    Path root;

    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolContext ctx;
    final AtomicInteger ran = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();

    @BeforeEach
    void setUp() {
        registry = new ToolRegistry();
        store = new InMemoryToolCallStore();
        ctx = context(root);
        registry.register(spec("echo").cooperative(true).build(), (args, c) -> {
            ran.incrementAndGet();
            return ToolOutput.of(args.string("text"));
        });
    }

    private static ToolCallRequest echo(int i) {
        return ToolCallRequest.of("echo", "{\"text\":\"" + i + "\"}");
    }

    /** Registers {@code name}: counts the calls in flight, and optionally waits at a barrier so lanes must overlap. */
    private void registerMeasured(String name, boolean cooperative, CyclicBarrier together) {
        registry.register(spec(name).cooperative(cooperative).build(), (args, c) -> {
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            try {
                if (together != null) {
                    together.await(20, TimeUnit.SECONDS);
                } else {
                    Thread.sleep(2);
                }
                return ToolOutput.of(args.string("text"));
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    @Test
    void aHundredCallsInOneRoundRunThirtyTwoAndRefuseTheOtherSixtyEightInRequestOrderAllRecorded() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            requests.add(echo(i));
        }

        List<ToolResult> results = executor.executeRound(requests, ctx);

        assertThat(results).hasSize(100);
        for (int i = 0; i < 32; i++) {
            assertThat(results.get(i).isOk()).isTrue();
            assertThat(results.get(i).content()).isEqualTo(String.valueOf(i));
        }
        for (int i = 32; i < 100; i++) {
            assertThat(results.get(i).reason()).contains(Reason.ROUND_LIMIT);
            assertThat(results.get(i).status()).isEqualTo(ToolStatus.REFUSED);
            assertThat(results.get(i).reasonDetail()).contains("100 calls").contains("at most 32").contains("fewer");
        }
        assertThat(ran).hasValue(32);
        assertThat(store.records()).hasSize(100);
        Map<String, ToolCallRecord> byId = new HashMap<>();
        store.records().forEach(r -> byId.put(r.callId(), r));
        for (ToolResult r : results) {
            assertThat(byId.get(r.callId()).status()).isEqualTo(r.status());
            assertThat(byId.get(r.callId()).reason()).isEqualTo(r.reason());
            assertThat(byId.get(r.callId()).toolName()).isEqualTo("echo");
        }
        assertThat(Reason.ROUND_LIMIT.wireName()).isEqualTo("round_limit");
    }

    @Test
    void aCallPastTheLimitIsNeverLookedUpSoEvenAnUnknownToolIsRefusedForTheLimit() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).maxCallsPerRound(1).build();

        List<ToolResult> results = executor.executeRound(List.of(echo(0), ToolCallRequest.of("ghost", "{}")), ctx);

        assertThat(results.get(0).isOk()).isTrue();
        assertThat(results.get(1).reason()).contains(Reason.ROUND_LIMIT);
    }

    @ParameterizedTest
    @EnumSource(value = HandlerMode.class, names = {"CALLER_THREAD", "HANDOFF"})
    void theCallsOfARoundOverlapUpToTheParallelismAndNeverBeyondIt(HandlerMode mode) {
        registerMeasured("measured", true, new CyclicBarrier(4)); // four must be in flight at once to pass it
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("measured"))
                .store(store).handlerMode(mode).roundParallelism(4).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            requests.add(ToolCallRequest.of("measured", "{\"text\":\"" + i + "\"}"));
        }

        List<ToolResult> results = executor.executeRound(requests, ctx);

        assertThat(results).allMatch(ToolResult::isOk, "every call passed the barrier, so four lanes overlapped");
        assertThat(maxInFlight).hasValue(4);
        for (int i = 0; i < 24; i++) {
            assertThat(results.get(i).content()).isEqualTo(String.valueOf(i));
        }
    }

    @Test
    void aRoundOnASmallHandlerPoolNeitherDeadlocksNorSaturatesItsTool() throws Exception {
        registerMeasured("handed", false, null);
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("handed"))
                .store(store).handlerMode(HandlerMode.HANDOFF).maxHandlers(2).maxHandlersPerTool(2)
                .roundParallelism(8).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            requests.add(ToolCallRequest.of("handed", "{\"text\":\"" + i + "\"}"));
        }

        List<ToolResult> alone = executor.executeRound(requests, ctx);

        assertThat(alone).allMatch(ToolResult::isOk, "a round alone never saturates: its lanes are capped at the tool's bound");
        assertThat(maxInFlight.get()).isLessThanOrEqualTo(2);

        ExecutorService callers = Executors.newFixedThreadPool(3);
        try {
            List<Future<List<ToolResult>>> rounds = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                rounds.add(callers.submit(() -> executor.executeRound(requests, ctx)));
            }
            for (Future<List<ToolResult>> round : rounds) {
                List<ToolResult> results = round.get(30, TimeUnit.SECONDS);
                assertThat(results).hasSize(32).allSatisfy(r -> assertThat(r.isOk()
                        || r.reason().orElseThrow() == Reason.TOOL_SATURATED).isTrue());
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(maxInFlight.get()).isLessThanOrEqualTo(2);
        assertThat(store.records()).hasSize(32 * 4);
    }

    @Test
    void helperLanesAreBoundedAcrossRoundsAndARoundWithoutHelpersStillFinishesOnTheCallersThread() throws Exception {
        registerMeasured("measured", true, null);
        // maxHandlers bounds the helper lanes of all rounds together: one here, so concurrent rounds share it.
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("measured"))
                .store(store).maxHandlers(1).maxHandlersPerTool(1).roundParallelism(4).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            requests.add(ToolCallRequest.of("measured", "{\"text\":\"" + i + "\"}"));
        }
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<ToolResult>>> rounds = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                rounds.add(callers.submit(() -> executor.executeRound(requests, ctx)));
            }
            for (Future<List<ToolResult>> round : rounds) {
                assertThat(round.get(30, TimeUnit.SECONDS)).hasSize(16).allMatch(ToolResult::isOk);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(maxInFlight.get()).as("four callers, each its own lane, and no helper lane beyond them")
                .isLessThanOrEqualTo(4);
    }

    @Test
    void nothingAModelSendsMakesExecuteRoundThrow() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        String hugeName = "x".repeat(100_000);
        for (int i = 0; i < 10_000; i++) {
            switch (i % 6) {
                case 0 -> requests.add(null);
                case 1 -> requests.add(ToolCallRequest.of(hugeName, "{\"text\":\"a\"}").withCallId(hugeName));
                case 2 -> requests.add(ToolCallRequest.of("echo", "{\"text\":" + "[".repeat(5_000)));
                case 3 -> requests.add(ToolCallRequest.of("echo", Map.of("text", new Object())));
                case 4 -> requests.add(ToolCallRequest.of("", "\u0000\ud800"));
                default -> requests.add(echo(i));
            }
        }
        List<ToolResult>[] holder = new List[1];

        assertThatCode(() -> holder[0] = executor.executeRound(requests, ctx)).doesNotThrowAnyException();

        List<ToolResult> results = holder[0];
        assertThat(results).hasSize(10_000).doesNotContainNull();
        assertThat(store.records()).hasSize(10_000);
        Set<String> ids = new HashSet<>();
        results.forEach(r -> ids.add(r.callId()));
        assertThat(ids).hasSize(10_000);
        assertThat(results.get(0).reason()).contains(Reason.UNKNOWN_TOOL);
        assertThat(results.get(0).reasonDetail()).contains("no tool call");
        assertThat(results.get(1).reason()).contains(Reason.UNKNOWN_TOOL);
        assertThat(results.get(1).toolName().length()).isLessThan(200);
        assertThat(results.get(2).reason()).contains(Reason.ARGS_INVALID);
        assertThat(results.get(3).reason()).contains(Reason.ARGS_INVALID);
        assertThat(results.get(5).isOk()).isTrue();
        assertThat(results.subList(32, 10_000)).allMatch(r -> r.reason().orElseThrow() == Reason.ROUND_LIMIT
                || r.reasonDetail().contains("no tool call"));
        assertThat(executor.executeRound(List.of(), ctx)).isEmpty();
    }

    @Test
    void aNullListOrContextIsACallerBugAndAClosedExecutorRefusesRounds() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).build();
        assertThatThrownBy(() -> executor.executeRound(null, ctx)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.executeRound(List.of(echo(1)), null)).isInstanceOf(NullPointerException.class);
        executor.close();
        assertThatThrownBy(() -> executor.executeRound(List.of(echo(1)), ctx)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void roundOptionsAreValidatedAtBuildNamingTheParameter() {
        ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment());
        assertThatThrownBy(() -> b.maxCallsPerRound(0)).hasMessageContaining("maxCallsPerRound");
        assertThatThrownBy(() -> b.roundParallelism(0)).hasMessageContaining("roundParallelism");
        assertThat(ToolExecutor.DEFAULT_MAX_CALLS_PER_ROUND).isEqualTo(32);
    }

    @Test
    void aStoreThatCannotRecordMakesTheRoundThrowOnceEveryCallTakenHasEnded() {
        AtomicInteger appended = new AtomicInteger();
        ToolCallStore failing = new ToolCallStore() {
            @Override
            public void markStarted(ToolCallStart start) {}

            @Override
            public void complete(ToolCallRecord record) {}

            @Override
            public void append(ToolCallRecord record) {
                appended.incrementAndGet();
                throw new IllegalStateException("disk full");
            }
        };
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(failing).build();
        List<ToolCallRequest> ghosts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ghosts.add(ToolCallRequest.of("ghost", "{}"));
        }

        assertThatThrownBy(() -> executor.executeRound(ghosts, ctx)).isInstanceOf(StoreFailureException.class);
        assertThat(appended).hasValue(10);
    }
}
