package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
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
import dev.toolyard.otel.ToolYardTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 24, items 1 and 5, through LangChain4j's real {@code AiServices} loop: one model turn is one
 * ToolYard round whether LangChain4j runs the turn's calls one after another or with
 * {@code executeToolsConcurrently()}, and every {@code execute_tool} span joins the caller's trace under
 * the caller's span, whichever thread ran the call.
 */
class ToolYardRoundsTest {
    interface Assistant {
        String chat(String message);
    }

    private static final String TICK_SCHEMA = """
            {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}""";
    /** The 4 invented names of the user's turn: three inside the cap, one past it. */
    private static final Set<Integer> INVENTED = Set.of(3, 10, 20, 35);

    @TempDir
    Path work;
    final ToolRegistry registry = new ToolRegistry();
    final InMemoryToolCallStore store = new InMemoryToolCallStore();
    final AtomicInteger ran = new AtomicInteger();
    final Set<String> handlerThreads = ConcurrentHashMap.newKeySet();
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    SdkTracerProvider tracerProvider;
    OpenTelemetrySdk openTelemetry;
    ToolExecutor executor;

    @BeforeEach
    void toolsAndTelemetry() {
        registry.register(ToolSpec.builder("tick").description("Counts one call.").argsSchema(TICK_SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(), (args, ctx) -> {
                    ran.incrementAndGet();
                    handlerThreads.add(Thread.currentThread().getName());
                    return ToolOutput.of("tick " + args.integer("n"));
                });
        tracerProvider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
        openTelemetry = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("tick")).store(store)
                .maxCallsPerRound(32).observer(ToolYardTelemetry.observer(openTelemetry)).build();
    }

    @AfterEach
    void close() {
        executor.close();
        tracerProvider.close();
    }

    private ToolYardToolProvider provider() {
        return ToolYardToolProvider.builder(registry, executor,
                ic -> ToolContext.of(ic.invocationId().toString(), SandboxPaths.of(work))).build();
    }

    private Assistant assistant(ToolYardToolProvider tools, ScriptedChatModel model, boolean concurrent) {
        AiServices<Assistant> services = AiServices.builder(Assistant.class).chatModel(model);
        if (concurrent) {
            services.executeToolsConcurrently();
        }
        return tools.configure(services).build();
    }

    /** One turn of {@code count} calls: {@code tick} with n = its place, an invented name at {@link #INVENTED}. */
    private static ChatResponse turn(int count) {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            calls.add(ToolExecutionRequest.builder().id("call-" + i)
                    .name(INVENTED.contains(i) ? "invented_" + i : "tick").arguments("{\"n\":" + i + ".0}").build());
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
    }

    private static List<ToolExecutionResultMessage> results(ChatRequest request) {
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        for (ChatMessage m : request.messages()) {
            if (m instanceof ToolExecutionResultMessage r) {
                results.add(r);
            }
        }
        return results;
    }

    @ParameterizedTest(name = "concurrently: {0}")
    @ValueSource(booleans = {false, true})
    void aTurnOfFortyCallsRunsThirtyTwoAndTheLastEightAreRoundLimitInOrderAllRecordedUnknownNamesIncluded(
            boolean concurrent) {
        ScriptedChatModel model = new ScriptedChatModel(first -> turn(40),
                second -> ChatResponse.builder().aiMessage(AiMessage.from("done")).build());
        ToolYardToolProvider tools = provider();

        assertThat(assistant(tools, model, concurrent).chat("go")).isEqualTo("done");

        // What the model was told, in its own order: 32 answers, then 8 round_limit refusals.
        List<ToolExecutionResultMessage> told = results(model.requests.get(1));
        assertThat(told).extracting(ToolExecutionResultMessage::id)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 40).mapToObj(i -> "call-" + i).toList());
        for (int i = 0; i < 40; i++) {
            String text = told.get(i).text();
            if (i >= 32) {
                assertThat(text).as("call %d", i).contains("round_limit")
                        .contains("at most 32 run in one round");
            } else if (INVENTED.contains(i)) {
                assertThat(text).as("call %d", i).contains("unknown_tool");
            } else {
                assertThat(text).as("call %d", i).isEqualTo("tick " + i); // 5.0 reached the handler as 5
            }
        }
        // What ran: the 32 calls of the cap, of which 3 were invented names, so 29 handlers.
        assertThat(ran).hasValue(29);
        // What was recorded: all 40 under the framework's ids, the 4 invented names too.
        List<ToolCallRecord> records = store.records();
        assertThat(records).hasSize(40);
        assertThat(records).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT).extracting(ToolCallRecord::requestCallId)
                .containsExactlyInAnyOrder("call-32", "call-33", "call-34", "call-35", "call-36", "call-37",
                        "call-38", "call-39");
        assertThat(records).filteredOn(r -> r.reason().orElse(null) == Reason.UNKNOWN_TOOL).extracting(ToolCallRecord::requestCallId)
                .containsExactlyInAnyOrder("call-3", "call-10", "call-20");
        assertThat(records).filteredOn(r -> r.toolName().startsWith("invented_")).hasSize(4);
        assertThat(records).extracting(ToolCallRecord::invocationId).containsOnly(records.get(0).invocationId());
        assertThat(tools.keptTurns()).isZero();
    }

    @ParameterizedTest(name = "concurrently: {0}")
    @ValueSource(booleans = {false, true})
    void everyExecuteToolSpanJoinsTheCallersTraceUnderTheAgentSpanWhicheverThreadRanIt(boolean concurrent) {
        ScriptedChatModel model = new ScriptedChatModel(first -> turn(16),
                second -> ChatResponse.builder().aiMessage(AiMessage.from("done")).build());
        Assistant assistant = assistant(provider(), model, concurrent);
        String caller = Thread.currentThread().getName();

        Span agent = openTelemetry.getTracer("agent").spanBuilder("invoke_agent").startSpan();
        try (Scope ignored = agent.makeCurrent()) {
            assertThat(assistant.chat("go")).isEqualTo("done");
        } finally {
            agent.end();
        }

        List<SpanData> tools = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("execute_tool")).toList();
        assertThat(tools).hasSize(16);
        assertThat(tools).allSatisfy(s -> {
            assertThat(s.getTraceId()).isEqualTo(agent.getSpanContext().getTraceId());
            assertThat(s.getParentSpanId()).isEqualTo(agent.getSpanContext().getSpanId());
        });
        if (concurrent) {
            // LangChain4j handed the turn to its own threads: none of the handlers ran on the caller's.
            assertThat(handlerThreads).isNotEmpty().doesNotContain(caller);
        }
    }
}
