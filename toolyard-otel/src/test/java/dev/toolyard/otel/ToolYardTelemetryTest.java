package dev.toolyard.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathAccess;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every outcome of a real {@link ToolExecutor} (real registry, {@link PathContainment}, in-memory store)
 * seen through the OpenTelemetry SDK and its in-memory exporter, as an application would wire them.
 */
@Timeout(30) // a hang guard only: nothing here asserts wall-clock speed
class ToolYardTelemetryTest {
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    static final AttributeKey<String> TOOL_DESCRIPTION = AttributeKey.stringKey("gen_ai.tool.description");
    static final AttributeKey<String> ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    static final AttributeKey<String> RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> STATUS = AttributeKey.stringKey("toolyard.status");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("toolyard.reason");
    static final AttributeKey<String> TIER = AttributeKey.stringKey("toolyard.isolation.tier");
    static final AttributeKey<String> INVOCATION = AttributeKey.stringKey("toolyard.invocation.id");
    static final AttributeKey<String> CALL_ID = AttributeKey.stringKey("toolyard.call.id");

    static final String NOTE_SCHEMA = """
            {"type":"object","properties":{"path":{"type":"string"}},
             "required":["path"],"additionalProperties":false}""";
    static final String TEXT_SCHEMA = """
            {"type":"object","properties":{"text":{"type":"string"}},
             "required":["text"],"additionalProperties":false}""";
    static final String SECRET = "hunter2-correct-horse-battery-staple";

    @TempDir
    Path root;

    InMemorySpanExporter exporter;
    SdkTracerProvider tracerProvider;
    OpenTelemetry otel;
    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolContext ctx;

    @BeforeEach
    void setUp() throws Exception {
        exporter = InMemorySpanExporter.create();
        tracerProvider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        otel = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
        store = new InMemoryToolCallStore();
        ctx = ToolContext.of("inv-otel", SandboxPaths.of(root));
        Files.writeString(root.resolve("today.md"), "Ship 0.1.0.");

        registry = new ToolRegistry();
        registry.register(spec("read_notes", NOTE_SCHEMA).description("Read one note from the workspace.")
                .pathArg("path", PathAccess.READ).build(), (a, c) -> ToolOutput.of(Files.readString(a.path("path"))));
        registry.register(spec("echo", TEXT_SCHEMA).build(), (a, c) -> ToolOutput.of(a.string("text")));
        registry.register(spec("vault", TEXT_SCHEMA).redactArgs(true).build(),
                (a, c) -> ToolOutput.of("stored " + a.string("text")));
        registry.register(spec("boom", TEXT_SCHEMA).build(), (a, c) -> {
            throw new IllegalStateException("a message the model never sees " + SECRET);
        });
        registry.register(spec("sleepy", TEXT_SCHEMA).build(), (a, c) -> {
            Thread.sleep(60_000);
            return ToolOutput.of("never");
        });
        registry.register(spec("fetcher", TEXT_SCHEMA).egress(EgressClass.ALLOWLISTED).build(),
                (a, c) -> ToolOutput.of("fetched"));
        registry.register(spec("runner", TEXT_SCHEMA).riskClass(RiskClass.EXECUTE).requiresIsolation(true).build(),
                (a, c) -> ToolOutput.of("ran"));
        registry.register(spec("outsider", TEXT_SCHEMA).build(), (a, c) -> ToolOutput.of("never allowlisted"));
    }

    @AfterEach
    void tearDown() {
        tracerProvider.close();
    }

    static ToolSpec.Builder spec(String name, String schema) {
        return ToolSpec.builder(name).description("The " + name + " tool.").argsSchema(schema)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE);
    }

    ToolExecutor executor(ToolCallObserver... observers) {
        ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_notes", "echo", "vault", "boom", "sleepy", "fetcher", "runner"))
                .store(store);
        for (ToolCallObserver o : observers) {
            b.observer(o);
        }
        return b.build();
    }

    /** Runs one call and returns the one span it made, checked against the call's own record. */
    SpanData onlySpanOf(ToolExecutor executor, ToolCallRequest request, ToolContext context) {
        exporter.reset();
        ToolResult result = executor.execute(request, context);
        ToolCallRecord record = lastRecord();
        assertThat(record.callId()).isEqualTo(result.callId());
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).as("exactly one span per call").hasSize(1);
        SpanData span = spans.get(0);
        assertMatchesRecord(span, record, context);
        return span;
    }

    ToolCallRecord lastRecord() {
        List<ToolCallRecord> records = store.records();
        return records.get(records.size() - 1);
    }

    /** The attributes every span carries, whatever the outcome, and its times, which are the record's. */
    static void assertMatchesRecord(SpanData span, ToolCallRecord record, ToolContext context) {
        Attributes a = span.getAttributes();
        assertThat(span.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(span.getInstrumentationScopeInfo().getName()).isEqualTo("dev.toolyard.otel");
        assertThat(a.get(OPERATION)).isEqualTo("execute_tool");
        assertThat(a.get(TOOL_NAME)).isEqualTo(record.toolName());
        assertThat(a.get(TOOL_TYPE)).isEqualTo("function");
        assertThat(a.get(INVOCATION)).isEqualTo(context.invocationId());
        assertThat(a.get(STATUS)).isEqualTo(record.status().wireName());
        assertThat(a.get(TIER)).isNotNull();
        assertThat(span.getStartEpochNanos()).isEqualTo(epochNanos(record.startedAt()));
        assertThat(span.getEndEpochNanos() - span.getStartEpochNanos()).isEqualTo(record.duration().toNanos());
        assertThat(span.hasEnded()).isTrue();
        if (record.status() == ToolStatus.OK) {
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(a.get(ERROR_TYPE)).isNull();
            assertThat(a.get(REASON)).isNull();
        } else {
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(a.get(ERROR_TYPE)).isEqualTo(record.reason().get().wireName());
            assertThat(a.get(REASON)).isEqualTo(record.reason().get().wireName());
        }
    }

    static long epochNanos(Instant t) {
        return TimeUnit.SECONDS.toNanos(t.getEpochSecond()) + t.getNano();
    }

    // --- the outcomes ---------------------------------------------------------------------------------

    @Test
    void anOkCallIsOneExecuteToolSpanWithTheConventionsAttributes() {
        SpanData span = onlySpanOf(executor(ToolYardTelemetry.observer(otel)),
                ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), ctx);
        ToolCallRecord record = lastRecord();
        assertThat(record.status()).isEqualTo(ToolStatus.OK);
        assertThat(span.getName()).isEqualTo("execute_tool read_notes");
        Attributes a = span.getAttributes();
        assertThat(a.get(TOOL_NAME)).isEqualTo("read_notes");
        assertThat(a.get(TOOL_DESCRIPTION)).isEqualTo("Read one note from the workspace.");
        assertThat(a.get(TOOL_CALL_ID)).as("no framework id: ToolYard's").isEqualTo(record.callId());
        assertThat(a.get(CALL_ID)).as("written only beside a framework id").isNull();
        assertThat(a.get(TIER)).isEqualTo("in_process");
        assertThat(a.get(STATUS)).isEqualTo("ok");
    }

    @ParameterizedTest
    @ValueSource(strings = {"unknown_tool", "not_allowlisted", "not_approved", "args_invalid", "egress_not_permitted",
            "isolation_unavailable", "path_escape"})
    void eachRefusalTheExecutorMakesIsOneErrorSpanWhoseErrorTypeIsTheReason(String wireName) {
        Reason reason = Reason.fromWireName(wireName);
        ToolContext context = ctx;
        ToolCallRequest request = switch (wireName) {
            case "unknown_tool" -> ToolCallRequest.of("rm_rf", "{}");
            case "not_allowlisted" -> ToolCallRequest.of("outsider", "{\"text\":\"a\"}");
            case "not_approved" -> {
                context = ToolContext.builder("inv-otel", SandboxPaths.of(root)).approvedTools(Set.of("read_notes"))
                        .build();
                yield ToolCallRequest.of("echo", "{\"text\":\"a\"}");
            }
            case "args_invalid" -> ToolCallRequest.of("echo", "{\"text\":\"a\",\"extra\":true}");
            case "egress_not_permitted" -> ToolCallRequest.of("fetcher", "{\"text\":\"a\"}");
            case "isolation_unavailable" -> ToolCallRequest.of("runner", "{\"text\":\"a\"}");
            case "path_escape" -> ToolCallRequest.of("read_notes", "{\"path\":\"../../etc/passwd\"}");
            default -> throw new AssertionError(wireName);
        };
        SpanData span = onlySpanOf(executor(ToolYardTelemetry.observer(otel)), request, context);
        ToolCallRecord record = lastRecord();
        assertThat(record.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(record.reason()).contains(reason);
        Attributes a = span.getAttributes();
        assertThat(a.get(ERROR_TYPE)).isEqualTo(reason.wireName());
        assertThat(a.get(STATUS)).isEqualTo("refused");
        assertThat(a.get(TOOL_CALL_ID)).isEqualTo(record.callId());
        if (reason == Reason.UNKNOWN_TOOL) {
            assertThat(span.getName()).as("a made-up name never becomes a span name").isEqualTo("execute_tool");
            assertThat(a.get(TOOL_NAME)).isEqualTo("rm_rf");
            assertThat(a.get(TOOL_DESCRIPTION)).isNull();
        } else {
            assertThat(span.getName()).isEqualTo("execute_tool " + request.name());
            assertThat(a.get(TOOL_DESCRIPTION)).isEqualTo(request.name().equals("read_notes")
                    ? "Read one note from the workspace." : "The " + request.name() + " tool.");
        }
        assertThat(a.get(TIER)).isEqualTo(reason == Reason.ISOLATION_UNAVAILABLE ? "unavailable" : "in_process");
    }

    @Test
    void aHandlerErrorIsOneErrorSpanAndCarriesNeitherTheMessageNorAStackTrace() {
        SpanData span = onlySpanOf(executor(ToolYardTelemetry.builder(otel).captureArguments(true)
                .captureResults(true).build()), ToolCallRequest.of("boom", "{\"text\":\"a\"}"), ctx);
        assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("handler_error");
        assertThat(span.getAttributes().get(STATUS)).isEqualTo("failed");
        assertThat(span.getAttributes().get(RESULT)).as("a result only for a successful execution").isNull();
        assertThat(span.getEvents()).as("no exception event: the record keeps the class").isEmpty();
        assertThat(span.toString()).doesNotContain(SECRET);
    }

    @Test
    void aTimeoutIsOneErrorSpanWithErrorTypeTimeout() {
        ToolContext quick = ToolContext.builder("inv-otel", SandboxPaths.of(root)).timeout(Duration.ofMillis(100))
                .build();
        SpanData span = onlySpanOf(executor(ToolYardTelemetry.observer(otel)),
                ToolCallRequest.of("sleepy", "{\"text\":\"a\"}"), quick);
        assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("timeout");
        assertThat(span.getAttributes().get(STATUS)).isEqualTo("timeout");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    }

    @Test
    void aStoreThatCannotRecordStillEndsTheCallsSpan() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(new ToolCallStore() {
                    @Override
                    public void markStarted(ToolCallStart start) {
                        throw new IllegalStateException("disk full");
                    }

                    @Override
                    public void complete(ToolCallRecord record) {
                        throw new IllegalStateException("disk full");
                    }

                    @Override
                    public void append(ToolCallRecord record) {
                        throw new IllegalStateException("disk full");
                    }
                })
                .observer(ToolYardTelemetry.observer(otel)).build();
        assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("nope", "{}"), ctx))
                .isInstanceOf(StoreFailureException.class);
        assertThat(exporter.getFinishedSpanItems()).singleElement()
                .satisfies(s -> assertThat(s.getAttributes().get(ERROR_TYPE)).isEqualTo("unknown_tool"));
    }

    // --- ids and times --------------------------------------------------------------------------------

    @Test
    void theFrameworksCallIdIsTheGenAiCallIdAndToolYardsIsKeptBesideIt() {
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        SpanData ok = onlySpanOf(executor,
                ToolCallRequest.of("echo", "{\"text\":\"a\"}").withCallId("call_mszuSIzqtI65i1wAUOE8w5H4"), ctx);
        assertThat(ok.getAttributes().get(TOOL_CALL_ID)).isEqualTo("call_mszuSIzqtI65i1wAUOE8w5H4");
        assertThat(ok.getAttributes().get(CALL_ID)).isEqualTo(lastRecord().callId());
        SpanData refused = onlySpanOf(executor, ToolCallRequest.of("ghost", "{}").withCallId("call_2"), ctx);
        assertThat(refused.getAttributes().get(TOOL_CALL_ID)).isEqualTo("call_2");
        assertThat(refused.getAttributes().get(CALL_ID)).isEqualTo(lastRecord().callId());
    }

    @Test
    void spansTellTheRecordsTimesNotTheTracersClock() {
        Instant fixed = Instant.parse("2026-01-02T03:04:05.123456789Z");
        ToolContext frozen = ToolContext.builder("inv-otel", SandboxPaths.of(root))
                .clock(Clock.fixed(fixed, ZoneOffset.UTC)).build();
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        SpanData started = onlySpanOf(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}"), frozen);
        SpanData refused = onlySpanOf(executor, ToolCallRequest.of("ghost", "{}"), frozen);
        assertThat(started.getStartEpochNanos()).isEqualTo(epochNanos(fixed));
        assertThat(refused.getStartEpochNanos()).isEqualTo(epochNanos(fixed));
        assertThat(Instant.ofEpochSecond(0, started.getEndEpochNanos())).isAfterOrEqualTo(fixed)
                .isBefore(fixed.plus(30, ChronoUnit.SECONDS));
    }

    @Test
    void theSpanNestsUnderTheCallersCurrentSpanWhetherItRanOrWasRefused() {
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        Span turn = otel.getTracer("agent").spanBuilder("chat gpt-test").startSpan();
        try (Scope ignored = turn.makeCurrent()) {
            executor.execute(ToolCallRequest.of("echo", "{\"text\":\"a\"}"), ctx);
            executor.execute(ToolCallRequest.of("ghost", "{}"), ctx);
        } finally {
            turn.end();
        }
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(3);
        List<SpanData> tools = spans.stream().filter(s -> s.getName().startsWith("execute_tool")).toList();
        assertThat(tools).hasSize(2).allSatisfy(s -> {
            assertThat(s.getParentSpanId()).isEqualTo(turn.getSpanContext().getSpanId());
            assertThat(s.getTraceId()).isEqualTo(turn.getSpanContext().getTraceId());
        });
        assertThat(Span.current()).as("the caller's context is left as it was").isSameAs(Span.getInvalid());
    }

    @Test
    void withNoCurrentSpanEachCallIsTheRootOfItsOwnTrace() {
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        executor.execute(ToolCallRequest.of("echo", "{\"text\":\"a\"}"), ctx);
        executor.execute(ToolCallRequest.of("echo", "{\"text\":\"b\"}"), ctx);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(2).allSatisfy(s -> assertThat(s.getParentSpanContext().isValid()).isFalse());
        assertThat(spans.get(0).getTraceId()).isNotEqualTo(spans.get(1).getTraceId());
        assertThat(Context.current()).isSameAs(Context.root());
    }

    // --- content --------------------------------------------------------------------------------------

    @Test
    void argumentsAndResultsAreNeverWrittenByDefaultWhateverTheOutcome() {
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        executor.execute(ToolCallRequest.of("echo", "{\"text\":\"" + SECRET + "\"}"), ctx);
        executor.execute(ToolCallRequest.of("echo", "{\"text\":\"" + SECRET + "\",\"x\":1}"), ctx);
        executor.execute(ToolCallRequest.of("boom", "{\"text\":\"" + SECRET + "\"}"), ctx);
        executor.execute(ToolCallRequest.of("ghost", "{\"text\":\"" + SECRET + "\"}"), ctx);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(4).allSatisfy(s -> {
            assertThat(s.getAttributes().get(ARGUMENTS)).isNull();
            assertThat(s.getAttributes().get(RESULT)).isNull();
            assertThat(s.toString()).doesNotContain(SECRET);
        });
    }

    @Test
    void withCaptureOnTheArgumentsAndTheResultOfAnOkCallAreWrittenAsTheRecordKeepsThem() {
        ToolExecutor executor = executor(ToolYardTelemetry.builder(otel).captureArguments(true)
                .captureResults(true).build());
        SpanData ok = onlySpanOf(executor, ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), ctx);
        assertThat(ok.getAttributes().get(ARGUMENTS)).isEqualTo("{\"path\":\"today.md\"}");
        assertThat(ok.getAttributes().get(RESULT)).isEqualTo("Ship 0.1.0.").isEqualTo(lastRecord().summary());
        SpanData refused = onlySpanOf(executor, ToolCallRequest.of("read_notes", "{\"path\":\"../../etc\"}"), ctx);
        assertThat(refused.getAttributes().get(ARGUMENTS)).isEqualTo("{\"path\":\"../../etc\"}");
        assertThat(refused.getAttributes().get(RESULT)).as("a result only for a successful execution").isNull();
    }

    @Test
    void aSpecThatRedactsItsArgumentsNeverLeaksThemEvenWithCaptureOn() {
        ToolExecutor executor = executor(ToolYardTelemetry.builder(otel).captureArguments(true)
                .captureResults(true).build());
        SpanData ok = onlySpanOf(executor, ToolCallRequest.of("vault", "{\"text\":\"" + SECRET + "\"}"), ctx);
        SpanData refused = onlySpanOf(executor,
                ToolCallRequest.of("vault", "{\"text\":\"" + SECRET + "\",\"x\":1}"), ctx);
        assertThat(List.of(ok, refused)).allSatisfy(s -> {
            assertThat(s.getAttributes().get(ARGUMENTS)).isNull();
            assertThat(s.getAttributes().get(RESULT)).isNull();
            assertThat(s.toString()).doesNotContain(SECRET).doesNotContain("hunter2");
        });
        assertThat(ok.getAttributes().get(STATUS)).isEqualTo("ok");
    }

    @Test
    void anUnknownToolNeverHasItsArgumentsWrittenEvenWithCaptureOn() {
        SpanData span = onlySpanOf(executor(ToolYardTelemetry.builder(otel).captureArguments(true).build()),
                ToolCallRequest.of("ghost", "{\"text\":\"" + SECRET + "\"}"), ctx);
        assertThat(span.getAttributes().get(ARGUMENTS)).isNull();
        assertThat(span.toString()).doesNotContain(SECRET);
    }

    @Test
    void capturedValuesAreCappedArgumentsInTheRecordsOmittedFormResultsCutWithALabel() {
        ToolExecutor executor = executor(ToolYardTelemetry.builder(otel).captureArguments(true)
                .captureResults(true).captureLimitBytes(256).build());
        String big = "é".repeat(300); // 600 UTF-8 bytes
        String arguments = "{\"text\":\"" + big + "\"}";
        SpanData span = onlySpanOf(executor, ToolCallRequest.of("echo", arguments), ctx);
        assertThat(span.getAttributes().get(ARGUMENTS)).isEqualTo("{\"omitted\":true,\"bytes\":611}");
        String result = span.getAttributes().get(RESULT);
        assertThat(result.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(256);
        assertThat(result).startsWith("éé").matches("é+ \\[cut: first \\d+ of 600 UTF-8 bytes]");
    }

    // --- observers never change outcomes --------------------------------------------------------------

    /**
     * Issue 24, item 5: a round's helper lanes are threads of the executor's own, where no context is
     * current; the observer carries the caller's, so every span of the round keeps the caller's parent.
     * Two calls wait for each other, so at least one of them ran on a helper lane.
     */
    @Test
    void everySpanOfARoundKeepsTheCallersParentOnWhicheverLaneItRan() throws Exception {
        java.util.concurrent.CountDownLatch together = new java.util.concurrent.CountDownLatch(2);
        java.util.Set<String> lanes = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ToolRegistry roundTools = new ToolRegistry();
        roundTools.register(spec("meet", TEXT_SCHEMA).build(), (a, c) -> {
            together.countDown();
            together.await(10, TimeUnit.SECONDS);
            return ToolOutput.of("met");
        });
        roundTools.register(spec("echo", TEXT_SCHEMA).build(), (a, c) -> ToolOutput.of(a.string("text")));
        List<ToolCallRequest> calls = new ArrayList<>();
        calls.add(ToolCallRequest.of("meet", "{\"text\":\"a\"}"));
        calls.add(ToolCallRequest.of("meet", "{\"text\":\"b\"}"));
        for (int i = 0; i < 10; i++) {
            calls.add(ToolCallRequest.of(i % 3 == 0 ? "invented" : "echo", "{\"text\":\"" + i + "\"}"));
        }
        ToolCallObserver lanesSeen = new ToolCallObserver() {
            @Override
            public void onEnd(ToolCallEvent call, ToolCallRecord record) {
                lanes.add(Thread.currentThread().getName());
            }
        };
        Span agent = otel.getTracer("agent").spanBuilder("invoke_agent").startSpan();
        try (ToolExecutor executor = ToolExecutor.builder(roundTools, new PathContainment())
                .allowlist(Set.of("meet", "echo")).store(store).roundParallelism(4)
                .observer(ToolYardTelemetry.observer(otel)).observer(lanesSeen).build();
                Scope ignored = agent.makeCurrent()) {
            assertThat(executor.executeRound(calls, ctx)).hasSize(12);
        } finally {
            agent.end();
        }

        assertThat(together.getCount()).as("both meet calls ran at once, so a helper lane ran one").isZero();
        assertThat(lanes).anyMatch(name -> name.startsWith("toolyard-round-"));
        List<SpanData> tools = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("execute_tool")).toList();
        assertThat(tools).hasSize(12).allSatisfy(s -> {
            assertThat(s.getTraceId()).isEqualTo(agent.getSpanContext().getTraceId());
            assertThat(s.getParentSpanId()).isEqualTo(agent.getSpanContext().getSpanId());
        });
    }

    @Test
    void anObserverThatThrowsChangesNeitherTheOutcomeNorTheRecord() {
        SpanProcessor broken = new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {
                throw new IllegalStateException("a broken span processor");
            }

            @Override
            public boolean isStartRequired() {
                return true;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                throw new IllegalStateException("a broken span processor");
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        };
        SdkTracerProvider brokenProvider = SdkTracerProvider.builder().addSpanProcessor(broken).build();
        ToolCallObserver throwsOutright = new ToolCallObserver() {
            @Override
            public void onStart(ToolCallEvent call) {
                throw new IllegalStateException("onStart");
            }

            @Override
            public void onEnd(ToolCallEvent call, ToolCallRecord record) {
                throw new IllegalStateException("onEnd");
            }
        };
        List<ToolCallRequest> calls = List.of(ToolCallRequest.of("echo", "{\"text\":\"a\"}"),
                ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), ToolCallRequest.of("ghost", "{}"),
                ToolCallRequest.of("echo", "{\"x\":1}"), ToolCallRequest.of("boom", "{\"text\":\"a\"}"));
        try {
            List<String> plain = run(executor(), calls);
            List<String> observed = run(executor(throwsOutright,
                    ToolYardTelemetry.observer(OpenTelemetrySdk.builder().setTracerProvider(brokenProvider).build()),
                    ToolYardTelemetry.observer(otel)), calls);
            assertThat(observed).isEqualTo(plain);
            assertThat(exporter.getFinishedSpanItems()).as("a healthy observer after broken ones still works")
                    .hasSize(calls.size());
        } finally {
            brokenProvider.close();
        }
    }

    /** Each outcome and its record, without what differs between two runs of the same call. */
    private List<String> run(ToolExecutor executor, List<ToolCallRequest> calls) {
        List<String> seen = new ArrayList<>();
        for (ToolCallRequest call : calls) {
            ToolResult r = executor.execute(call, ctx);
            ToolCallRecord c = lastRecord();
            seen.add(r.status() + "|" + r.reason() + "|" + r.reasonDetail() + "|" + r.content() + "|" + r.truncated()
                    + "|" + c.toolName() + "|" + c.status() + "|" + c.reason() + "|" + c.reasonDetail() + "|"
                    + c.arguments() + "|" + c.argumentsSha256() + "|" + c.argumentsRedacted() + "|" + c.summary());
        }
        return seen;
    }

    // --- the documentation ----------------------------------------------------------------------------

    @Test
    void theTraceDocsObservabilityShowsIsWhatARealRunRecords() throws Exception {
        ToolExecutor executor = executor(ToolYardTelemetry.builder(otel).captureArguments(true)
                .captureResults(true).build());
        ToolContext turn = ToolContext.builder("inv-1", SandboxPaths.of(root)).timeout(Duration.ofMillis(100)).build();
        Span agent = otel.getTracer("my-agent-framework").spanBuilder("invoke_agent notes-agent")
                .setAttribute("gen_ai.operation.name", "invoke_agent").setAttribute("gen_ai.agent.name", "notes-agent")
                .startSpan();
        try (Scope ignored = agent.makeCurrent()) {
            executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}").withCallId("call_1"), turn);
            executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"../../etc/passwd\"}").withCallId("call_2"),
                    turn);
            executor.execute(ToolCallRequest.of("rm_rf", "{\"path\":\"/\"}").withCallId("call_3"), turn);
            executor.execute(ToolCallRequest.of("vault", "{\"text\":\"" + SECRET + "\"}").withCallId("call_4"), turn);
            executor.execute(ToolCallRequest.of("sleepy", "{\"text\":\"a\"}").withCallId("call_5"), turn);
        } finally {
            agent.end();
        }
        String dump = SpanDump.render(exporter.getFinishedSpanItems());
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "span-dump.txt"), dump); // to refresh the page: paste this file
        String page = Files.readString(Path.of("..", "docs", "observability.md"));
        int marker = page.indexOf("<!-- span-dump -->");
        assertThat(marker).as("docs/observability.md marks its dump with <!-- span-dump -->").isNotNegative();
        int start = page.indexOf("```text\n", marker) + "```text\n".length();
        String shown = page.substring(start, page.indexOf("```", start));
        assertThat(SpanDump.masked(shown)).isEqualTo(SpanDump.masked(dump));
        assertThat(dump).doesNotContain(SECRET);
    }

    // --- the builder ----------------------------------------------------------------------------------

    @Test
    void theCaptureCapHasAFloorAndTheBuilderNamesTheParameter() {
        assertThatThrownBy(() -> ToolYardTelemetry.builder(otel).captureLimitBytes(255))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("captureLimitBytes");
        assertThatThrownBy(() -> ToolYardTelemetry.observer(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("openTelemetry");
    }

    @Test
    void onTheNoopApiTheObserverDoesNothingAndCallsEndAsWithoutIt() {
        ToolCallObserver onNoop = ToolYardTelemetry.observer(OpenTelemetry.noop());
        assertThat(onNoop).isNotInstanceOf(dev.toolyard.otel.internal.ExecuteToolObserver.class);
        assertThat(ToolYardTelemetry.observer(otel)).isInstanceOf(dev.toolyard.otel.internal.ExecuteToolObserver.class);
        List<ToolCallRequest> calls = List.of(ToolCallRequest.of("echo", "{\"text\":\"a\"}"),
                ToolCallRequest.of("ghost", "{}"));
        assertThat(run(executor(onNoop), calls)).isEqualTo(run(executor(), calls));
    }

    @Test
    void theIssuesContractExampleCompilesAndRuns() {
        OpenTelemetry otel = this.otel;
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_notes"))
                .store(store)
                .observer(ToolYardTelemetry.observer(otel))
                .build();
        ToolCallObserver withArgs = ToolYardTelemetry.builder(otel).captureArguments(true).captureResults(true).build();
        assertThat(withArgs).isNotNull();
        assertThat(executor.execute(ToolCallRequest.of("read_notes", "{\"path\":\"today.md\"}"), ctx).isOk()).isTrue();
        assertThat(exporter.getFinishedSpanItems()).hasSize(1);
    }
}
