package dev.toolyard.otel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.EgressClass;
import dev.toolyard.IsolationTier;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallEvent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The observer driven directly, the way the executor drives it, for what a real executor never does:
 * an end with no start, more calls in flight than the bound, a call id that repeats.
 */
class ExecuteToolObserverTest {
    static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
    static final ToolSpec ECHO = ToolSpec.builder("echo").description("Echoes.").argsSchema("""
            {"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}""")
            .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build();

    InMemorySpanExporter exporter;
    SdkTracerProvider provider;
    OpenTelemetry otel;

    @BeforeEach
    void setUp() {
        exporter = InMemorySpanExporter.create();
        provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    }

    @AfterEach
    void tearDown() {
        provider.close();
    }

    static ToolCallEvent event(String callId) {
        return ToolCallEvent.of(callId, "", "echo", ECHO, "inv", T0, IsolationTier.IN_PROCESS);
    }

    static ToolCallRecord ok(String callId, Duration took) {
        return new ToolCallRecord(callId, "inv", "echo", ToolStatus.OK, null, "", "{\"text\":\"a\"}",
                "0".repeat(64), false, "a", T0, took);
    }

    ExecuteToolObserver observer() {
        return new ExecuteToolObserver(otel, true, true, 4_096);
    }

    @Test
    void anEndWithNoStartMakesOneWholeSpanAtTheRecordsTimes() {
        ExecuteToolObserver observer = observer();
        ToolCallRecord refused = new ToolCallRecord("c1", "inv", "echo", ToolStatus.REFUSED, Reason.ARGS_INVALID,
                "$: fails", "{}", "0".repeat(64), false, "refused", T0, Duration.ofMillis(3));
        observer.onEnd(event("c1"), refused);
        assertThat(exporter.getFinishedSpanItems()).singleElement().satisfies(s -> {
            assertThat(s.getEndEpochNanos() - s.getStartEpochNanos()).isEqualTo(3_000_000L);
            assertThat(s.getAttributes().asMap()).containsEntry(ExecuteToolConventions.ERROR_TYPE, "args_invalid");
        });
        assertThat(observer.openSpans()).isZero();
    }

    @Test
    void aStartedCallIsHeldUntilItsEndAndThenReleased() {
        ExecuteToolObserver observer = observer();
        ToolCallEvent call = event("c1");
        observer.onStart(call);
        assertThat(observer.openSpans()).isOne();
        assertThat(exporter.getFinishedSpanItems()).as("nothing is exported before the end").isEmpty();
        observer.onEnd(call, ok("c1", Duration.ofMillis(5)));
        assertThat(observer.openSpans()).isZero();
        assertThat(exporter.getFinishedSpanItems()).hasSize(1);
    }

    @Test
    void pastTheBoundAStartedCallIsNotHeldAndItsEndStillMakesExactlyOneSpan() {
        ExecuteToolObserver observer = observer();
        int n = ExecuteToolObserver.MAX_OPEN_SPANS + 10;
        List<ToolCallEvent> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ToolCallEvent call = event("c" + i);
            calls.add(call);
            observer.onStart(call);
        }
        assertThat(observer.openSpans()).isEqualTo(ExecuteToolObserver.MAX_OPEN_SPANS);
        for (ToolCallEvent call : calls) {
            observer.onEnd(call, ok(call.callId(), Duration.ofMillis(1)));
        }
        assertThat(observer.openSpans()).isZero();
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(n);
        assertThat(spans).extracting(s -> s.getAttributes().get(ExecuteToolConventions.TOOL_CALL_ID))
                .doesNotHaveDuplicates();
    }

    @Test
    void aRepeatedCallIdEndsTheEarlierSpanRatherThanLosingIt() {
        ExecuteToolObserver observer = observer();
        observer.onStart(event("same"));
        observer.onStart(event("same"));
        observer.onEnd(event("same"), ok("same", Duration.ZERO));
        assertThat(exporter.getFinishedSpanItems()).hasSize(2);
        assertThat(observer.openSpans()).isZero();
    }

    @Test
    void utf8LengthCountsLikeTheEncoderAndALoneSurrogateAsTheThreeBytesOfItsWidestReplacement() {
        for (String s : List.of("", "abc", "é", "€", "😀", "a😀é€")) {
            assertThat(ExecuteToolObserver.utf8Length(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        }
        // The JDK writes '?' (1 byte) for a lone surrogate, other encoders U+FFFD (3): the cap holds for both.
        assertThat(ExecuteToolObserver.utf8Length("\uD83D")).isEqualTo(3);
        assertThat(ExecuteToolObserver.utf8Length("x\uDE00y")).isEqualTo(5);
    }

    @Test
    void aPrefixNeverSplitsASurrogatePairAndStaysWithinItsBudget() {
        String s = "a😀b";
        assertThat(ExecuteToolObserver.prefixWithin(s, 1)).isEqualTo(1);
        assertThat(ExecuteToolObserver.prefixWithin(s, 4)).isEqualTo(1);
        assertThat(ExecuteToolObserver.prefixWithin(s, 5)).isEqualTo(3);
        assertThat(ExecuteToolObserver.prefixWithin(s, 6)).isEqualTo(4);
        assertThat(ExecuteToolObserver.prefixWithin(s, 0)).isZero();
    }
}
