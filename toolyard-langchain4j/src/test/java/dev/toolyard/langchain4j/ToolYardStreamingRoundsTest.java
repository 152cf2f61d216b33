package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.observability.api.listener.AiServiceResponseReceivedListener;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 24, item 1, for an AI service returning a {@code TokenStream}, through LangChain4j's real streaming
 * loop over a scripted streaming model: a turn of 40 calls runs 32 and answers 8 {@code round_limit}, all
 * 40 recorded under one invocation, whether LangChain4j runs the calls after the response is complete
 * (sequentially) or starts each as it streams in ({@code executeToolsConcurrently()}).
 */
@Timeout(120) // a hang guard only: no test here asserts wall-clock speed
class ToolYardStreamingRoundsTest {
    interface Assistant {
        TokenStream chat(String message);
    }

    private static final String TICK_SCHEMA = """
            {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}""";
    /** The 4 invented names of the turn: three inside the cap, one past it. */
    private static final Set<Integer> INVENTED = Set.of(3, 10, 20, 35);
    private static final IntPredicate NONE_INVENTED = i -> false;

    @TempDir
    Path work;
    final ToolRegistry registry = new ToolRegistry();
    final InMemoryToolCallStore store = new InMemoryToolCallStore();
    final AtomicInteger ran = new AtomicInteger();
    ToolExecutor executor;
    ExecutorService oneThread;

    @BeforeEach
    void tools() {
        registry.register(ToolSpec.builder("tick").description("Counts one call.").argsSchema(TICK_SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(), (args, ctx) -> {
                    ran.incrementAndGet();
                    return ToolOutput.of("tick " + args.integer("n"));
                });
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("tick")).store(store)
                .maxCallsPerRound(32).build();
        oneThread = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        executor.close();
        oneThread.shutdownNow();
    }

    private ToolYardToolProvider provider() {
        return ToolYardToolProvider.builder(registry, executor,
                ic -> ToolContext.of(ic.invocationId().toString(), SandboxPaths.of(work))).build();
    }

    /** One turn of {@code count} calls: {@code tick} with n = its place, an invented name where {@code invented}. */
    private static ChatResponse turn(int count, IntPredicate invented) {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            calls.add(ToolExecutionRequest.builder().id("call-" + i)
                    .name(invented.test(i) ? "invented_" + i : "tick").arguments("{\"n\":" + i + "}").build());
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
    }

    private static ChatResponse done() {
        return ChatResponse.builder().aiMessage(AiMessage.from("done")).build();
    }

    private static String stream(Assistant assistant) throws Exception {
        CompletableFuture<ChatResponse> answered = new CompletableFuture<>();
        assistant.chat("go").onCompleteResponse(answered::complete).onError(answered::completeExceptionally).start();
        return answered.get(60, TimeUnit.SECONDS).aiMessage().text();
    }

    private static List<ToolExecutionResultMessage> told(ScriptedStreamingChatModel model) {
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        for (ChatMessage m : model.requests.get(1).messages()) {
            if (m instanceof ToolExecutionResultMessage r) {
                results.add(r);
            }
        }
        return results;
    }

    /** Makes the model wait, before completing its response, until {@code count} calls are recorded. */
    private Runnable untilRecorded(int count) {
        return () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store.records().size() < count) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + store.records().size() + " of " + count
                            + " calls were recorded while the response streamed");
                }
                Thread.onSpinWait();
            }
        };
    }

    private static List<String> ids(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "call-" + i).toList();
    }

    private void assertFortyRecordedUnderOneInvocation() {
        List<ToolCallRecord> records = store.records();
        assertThat(records).extracting(ToolCallRecord::requestCallId).containsExactlyInAnyOrderElementsOf(ids(0, 40));
        assertThat(records).extracting(ToolCallRecord::invocationId).containsOnly(records.get(0).invocationId());
    }

    /**
     * Sequentially LangChain4j runs a streamed turn's calls once the response is complete; with
     * {@code executeToolsConcurrently()} it may still be that no call reaches ToolYard before then (here an
     * executor holds them until the response was received). Either way the whole turn is known, and it is
     * one {@code executeRound}: exactly the first 32 in the model's order, unknown names counted like any
     * call, exactly as without streaming.
     */
    @ParameterizedTest(name = "concurrently, held until the response: {0}")
    @ValueSource(booleans = {false, true})
    void aStreamedTurnKnownWholeIsOneRoundOfTheFirstThirtyTwoInTheModelsOrder(boolean concurrent) throws Exception {
        ScriptedStreamingChatModel model = new ScriptedStreamingChatModel(first -> turn(40, INVENTED::contains),
                second -> done());
        ToolYardToolProvider tools = provider();
        List<Runnable> held = new ArrayList<>();
        AiServices<Assistant> services = AiServices.builder(Assistant.class).streamingChatModel(model);
        if (concurrent) {
            services.executeToolsConcurrently(task -> {
                synchronized (held) {
                    held.add(task);
                }
            });
        }
        tools.configure(services);
        if (concurrent) {
            // Registered after configure, so ToolYard has learnt the turn when this releases the calls.
            services.registerListener((AiServiceResponseReceivedListener) e -> {
                synchronized (held) {
                    held.forEach(oneThread::execute);
                    held.clear();
                }
            });
        }

        assertThat(stream(services.build())).isEqualTo("done");

        List<ToolExecutionResultMessage> told = told(model);
        assertThat(told).extracting(ToolExecutionResultMessage::id).containsExactlyElementsOf(ids(0, 40));
        for (int i = 0; i < 40; i++) {
            String text = told.get(i).text();
            if (i >= 32) {
                assertThat(text).as("call %d", i).contains("round_limit").contains("at most 32 run in one round");
            } else if (INVENTED.contains(i)) {
                assertThat(text).as("call %d", i).contains("unknown_tool");
            } else {
                assertThat(text).as("call %d", i).isEqualTo("tick " + i);
            }
        }
        assertThat(ran).hasValue(29);
        assertFortyRecordedUnderOneInvocation();
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT)
                .extracting(ToolCallRecord::requestCallId).containsExactlyInAnyOrderElementsOf(ids(32, 40));
        assertThat(tools.keptTurns()).isZero();
    }

    /**
     * With {@code executeToolsConcurrently()} on one thread, LangChain4j starts each call as it streams in,
     * in the model's order, and here every one is answered before the response is complete: the turn is
     * counted as it arrives, so the first 32 run and the last 8 are {@code round_limit}, in order.
     */
    @Test
    void callsStartedAsTheyStreamInAreCountedInArrivalOrderWhichIsTheModelsOrder() throws Exception {
        ScriptedStreamingChatModel model = new ScriptedStreamingChatModel(first -> turn(40, NONE_INVENTED),
                second -> done());
        model.beforeComplete = untilRecorded(40);
        ToolYardToolProvider tools = provider();
        Assistant assistant = tools.configure(AiServices.builder(Assistant.class).streamingChatModel(model)
                .executeToolsConcurrently(oneThread)).build();

        assertThat(stream(assistant)).isEqualTo("done");

        List<ToolExecutionResultMessage> told = told(model);
        assertThat(told).extracting(ToolExecutionResultMessage::id).containsExactlyElementsOf(ids(0, 40));
        for (int i = 0; i < 40; i++) {
            String text = told.get(i).text();
            if (i >= 32) {
                assertThat(text).as("call %d", i).contains("round_limit").contains("at most 32 run in one round");
            } else {
                assertThat(text).as("call %d", i).isEqualTo("tick " + i);
            }
        }
        assertThat(ran).hasValue(32);
        assertFortyRecordedUnderOneInvocation();
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT)
                .extracting(ToolCallRecord::requestCallId).containsExactlyInAnyOrderElementsOf(ids(32, 40));
        assertThat(tools.keptTurns()).isZero();
    }

    /**
     * With LangChain4j's default executor every streamed call starts on a thread of its own, in whatever
     * order those threads get to ToolYard; every known name is answered before the response is complete.
     * Still exactly 32 calls of the turn pass and 8 are {@code round_limit}. The invented names are
     * counted when the response is complete (the hallucinated-name strategy is given no invocation, so
     * they wait for the response that holds them), here after the 36 others: all four are past the cap.
     */
    @ParameterizedTest(name = "streamed calls rebuilt, as LangChain4j's OpenAI model does: {0}")
    @ValueSource(booleans = {false, true})
    void callsStartedOnManyThreadsAsTheyStreamInNeverRunMoreThanTheCapAndInventedNamesCount(boolean rebuilt)
            throws Exception {
        ScriptedStreamingChatModel model = new ScriptedStreamingChatModel(first -> turn(40, INVENTED::contains),
                second -> done());
        model.rebuild = rebuilt;
        model.beforeComplete = untilRecorded(36);
        ToolYardToolProvider tools = provider();
        Assistant assistant = tools.configure(AiServices.builder(Assistant.class).streamingChatModel(model)
                .executeToolsConcurrently()).build();

        assertThat(stream(assistant)).isEqualTo("done");

        List<ToolExecutionResultMessage> told = told(model);
        assertThat(told).extracting(ToolExecutionResultMessage::id).containsExactlyElementsOf(ids(0, 40));
        assertThat(told).filteredOn(m -> m.text().contains("round_limit")).hasSize(8);
        for (int i : INVENTED) {
            assertThat(told.get(i).text()).as("call %d", i).contains("round_limit");
        }
        assertThat(told).filteredOn(m -> m.text().startsWith("tick ")).hasSize(32);
        assertThat(ran).hasValue(32);
        assertFortyRecordedUnderOneInvocation();
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT).hasSize(8);
        assertThat(tools.keptTurns()).isZero();
    }

    /**
     * Whether LangChain4j's threads reach ToolYard before the response is complete, after it, or both, is
     * a race the adapter does not control: whichever way it goes, exactly 32 of the turn pass ToolYard's
     * checks and 8 are {@code round_limit}, and each of the 40 is answered and recorded exactly once.
     */
    @ParameterizedTest(name = "run {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void whicheverWayTheStreamRacesItsCallsTheCapHoldsAndEveryCallIsAnsweredOnce(int run) throws Exception {
        ScriptedStreamingChatModel model = new ScriptedStreamingChatModel(first -> turn(40, INVENTED::contains),
                second -> done());
        model.rebuild = run % 2 == 0;
        ToolYardToolProvider tools = provider();
        Assistant assistant = tools.configure(AiServices.builder(Assistant.class).streamingChatModel(model)
                .executeToolsConcurrently()).build();

        assertThat(stream(assistant)).isEqualTo("done");

        List<ToolExecutionResultMessage> told = told(model);
        assertThat(told).extracting(ToolExecutionResultMessage::id).containsExactlyElementsOf(ids(0, 40));
        assertThat(told).filteredOn(m -> m.text().contains("round_limit")).hasSize(8);
        assertThat(ran.get()).isBetween(28, 32);
        assertFortyRecordedUnderOneInvocation();
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT).hasSize(8);
        assertThat(tools.keptTurns()).isZero();
    }
}
