package dev.toolyard.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.spi.ToolCallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log record per finished call, through the real SDK and its in-memory log exporter. */
class ToolYardAuditLogTest {
    static final String SCHEMA = """
            {"type":"object","properties":{"text":{"type":"string"}},
             "required":["text"],"additionalProperties":false}""";
    static final String SECRET = "hunter2-correct-horse";

    @TempDir
    Path root;

    InMemoryLogRecordExporter logs;
    InMemorySpanExporter spans;
    OpenTelemetrySdk otel;
    InMemoryToolCallStore store;

    @BeforeEach
    void setUp() {
        logs = InMemoryLogRecordExporter.create();
        spans = InMemorySpanExporter.create();
        otel = OpenTelemetrySdk.builder()
                .setLoggerProvider(SdkLoggerProvider.builder().addLogRecordProcessor(SimpleLogRecordProcessor.create(logs))
                        .build())
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .build();
        store = new InMemoryToolCallStore();
    }

    @AfterEach
    void tearDown() {
        otel.close();
    }

    ToolExecutor executor(ToolCallObserver... observers) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("echo").description("Echoes.").argsSchema(SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(), (a, c) -> ToolOutput.of(a.string("text")));
        ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store);
        for (ToolCallObserver o : observers) {
            b.observer(o);
        }
        return b.build();
    }

    @Test
    void everyFinishedCallIsOneLogRecordWithItsOutcomeAndTheCallersTraceButNeverItsArgumentsOrOutput() {
        ToolExecutor executor = executor(ToolYardAuditLog.observer(otel));
        ToolContext ctx = ToolContext.of("inv-audit", SandboxPaths.of(root));
        Span parent = otel.getTracer("test").spanBuilder("agent turn").startSpan();
        ToolResult ok;
        ToolResult refused;
        try (Scope s = parent.makeCurrent()) {
            ok = executor.execute(ToolCallRequest.of("echo", "{\"text\":\"" + SECRET + "\"}"), ctx);
            refused = executor.execute(ToolCallRequest.of("rm_rf", "{}"), ctx);
        } finally {
            parent.end();
        }

        List<LogRecordData> records = logs.getFinishedLogRecordItems();
        assertThat(records).hasSize(2);
        LogRecordData first = records.get(0);
        ToolCallRecord stored = store.byInvocation("inv-audit").get(0);
        assertThat(first.getEventName()).isEqualTo(ToolYardAuditLog.EVENT_NAME);
        assertThat(first.getInstrumentationScopeInfo().getName()).isEqualTo(ToolYardAuditLog.SCOPE);
        assertThat(first.getSeverity()).isEqualTo(Severity.INFO);
        assertThat(first.getAttributes().get(ToolYardAuditLog.TOOL_NAME)).isEqualTo("echo");
        assertThat(first.getAttributes().get(ToolYardAuditLog.CALL_ID)).isEqualTo(ok.callId());
        assertThat(first.getAttributes().get(ToolYardAuditLog.INVOCATION_ID)).isEqualTo("inv-audit");
        assertThat(first.getAttributes().get(ToolYardAuditLog.STATUS)).isEqualTo("ok");
        assertThat(first.getAttributes().get(ToolYardAuditLog.ARGUMENTS_SHA256)).isEqualTo(stored.argumentsSha256());
        assertThat(first.getAttributes().get(ToolYardAuditLog.DURATION_NANOS)).isEqualTo(stored.duration().toNanos());
        assertThat(first.getAttributes().get(ToolYardAuditLog.ERROR_TYPE)).isNull();
        assertThat(first.getTimestampEpochNanos()).isEqualTo(stored.startedAt().plus(stored.duration()).getEpochSecond()
                * 1_000_000_000L + stored.startedAt().plus(stored.duration()).getNano());
        assertThat(first.getSpanContext().getTraceId()).isEqualTo(parent.getSpanContext().getTraceId());

        LogRecordData second = records.get(1);
        assertThat(second.getSeverity()).isEqualTo(Severity.WARN);
        assertThat(second.getAttributes().get(ToolYardAuditLog.CALL_ID)).isEqualTo(refused.callId());
        assertThat(second.getAttributes().get(ToolYardAuditLog.STATUS)).isEqualTo("refused");
        assertThat(second.getAttributes().get(ToolYardAuditLog.REASON)).isEqualTo("unknown_tool");
        assertThat(second.getAttributes().get(ToolYardAuditLog.ERROR_TYPE)).isEqualTo("unknown_tool");

        for (LogRecordData r : records) {
            assertThat(r.getBodyValue().asString() + r.getAttributes()).doesNotContain(SECRET);
        }
    }

    @Test
    void itIsOffByDefaultTheSpanObserverAloneLogsNothing() {
        ToolExecutor executor = executor(ToolYardTelemetry.observer(otel));
        executor.execute(ToolCallRequest.of("echo", "{\"text\":\"x\"}"), ToolContext.of("inv", SandboxPaths.of(root)));

        assertThat(spans.getFinishedSpanItems()).hasSize(1);
        assertThat(logs.getFinishedLogRecordItems()).isEmpty();
    }

    @Test
    void onTheNoopApiItDoesNothingAndThrowsNothing() {
        ToolExecutor executor = executor(ToolYardAuditLog.observer(OpenTelemetry.noop()));
        ToolResult r = executor.execute(ToolCallRequest.of("echo", "{\"text\":\"x\"}"),
                ToolContext.of("inv", SandboxPaths.of(root)));
        assertThat(r.status().wireName()).isEqualTo("ok");
    }
}
