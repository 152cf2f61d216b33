package dev.toolyard.otel;

import dev.toolyard.IsolationTier;
import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.context.Context;
import java.time.Instant;
import java.util.Objects;

/**
 * One OpenTelemetry log record per finished call (the Logs API), for audit pipelines that read logs
 * rather than spans. Off by default: nothing is logged unless the application adds
 * {@link #observer(OpenTelemetry)} to {@code ToolExecutor.Builder.observer}; it works beside or
 * without the span observer of {@link ToolYardTelemetry}.
 *
 * <p>Each record has the event name {@value #EVENT_NAME}, the call's end as its timestamp, the current
 * context (so the trace and span ids of the caller's span), severity {@code INFO} for a call that
 * ended {@code ok} and {@code WARN} otherwise, and the attributes listed in
 * {@code docs/observability.md}: who (tool, call and invocation ids, agent, approver), how it ended
 * (status, reason, shadow denial) and the arguments' SHA-256, never the arguments or the output
 * themselves (the store keeps those). The observer is thread-safe.
 */
public final class ToolYardAuditLog {
    /** The event name of every record. */
    public static final String EVENT_NAME = "toolyard.tool_call";
    /** The instrumentation scope name. */
    public static final String SCOPE = "dev.toolyard.audit";

    static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    static final AttributeKey<String> INVOCATION_ID = AttributeKey.stringKey("toolyard.invocation.id");
    static final AttributeKey<String> STATUS = AttributeKey.stringKey("toolyard.status");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("toolyard.reason");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> ARGUMENTS_SHA256 = AttributeKey.stringKey("toolyard.arguments.sha256");
    static final AttributeKey<Boolean> ARGUMENTS_REDACTED = AttributeKey.booleanKey("toolyard.arguments.redacted");
    static final AttributeKey<Long> DURATION_NANOS = AttributeKey.longKey("toolyard.duration_ns");
    static final AttributeKey<String> REQUEST_CALL_ID = AttributeKey.stringKey("toolyard.request_call_id");
    static final AttributeKey<String> APPROVER = AttributeKey.stringKey("toolyard.approver");
    static final AttributeKey<String> AGENT = AttributeKey.stringKey("toolyard.agent");
    static final AttributeKey<String> SHADOW_DENIAL = AttributeKey.stringKey("toolyard.shadow_denial");
    static final AttributeKey<String> ISOLATION_TIER = AttributeKey.stringKey("toolyard.isolation.tier");

    private ToolYardAuditLog() {}

    /**
     * @param openTelemetry the application's; its logs bridge receives the records; never {@code null}
     * @return the observer; never {@code null}
     * @throws NullPointerException if {@code openTelemetry} is {@code null}
     */
    public static ToolCallObserver observer(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        return new AuditLogObserver(openTelemetry.getLogsBridge().loggerBuilder(SCOPE).build());
    }

    /** Emits the record at each call's end. */
    static final class AuditLogObserver implements ToolCallObserver {
        private final Logger logger;

        AuditLogObserver(Logger logger) {
            this.logger = logger;
        }

        @Override
        public void onEnd(ToolCallEvent call, ToolCallRecord r) {
            boolean ok = r.status() == ToolStatus.OK;
            var b = logger.logRecordBuilder()
                    .setEventName(EVENT_NAME)
                    .setContext(Context.current())
                    .setTimestamp(end(r))
                    .setObservedTimestamp(Instant.now())
                    .setSeverity(ok ? Severity.INFO : Severity.WARN)
                    .setSeverityText(ok ? "INFO" : "WARN")
                    .setBody("tool call " + r.status().wireName())
                    .setAttribute(TOOL_NAME, r.toolName())
                    .setAttribute(CALL_ID, r.callId())
                    .setAttribute(INVOCATION_ID, r.invocationId())
                    .setAttribute(STATUS, r.status().wireName())
                    .setAttribute(ARGUMENTS_SHA256, r.argumentsSha256())
                    .setAttribute(ARGUMENTS_REDACTED, r.argumentsRedacted())
                    .setAttribute(ISOLATION_TIER, call.isolationTier() == null ? IsolationTier.IN_PROCESS.wireName() : call.isolationTier().wireName());
            try {
                b.setAttribute(DURATION_NANOS, r.duration().toNanos());
            } catch (ArithmeticException e) {
                // a duration past 292 years has no nanosecond count; the timestamp still says when it ended
            }
            if (r.reason().isPresent()) {
                b.setAttribute(REASON, r.reason().get().wireName());
            }
            if (!ok) {
                b.setAttribute(ERROR_TYPE, r.reason().map(Reason::wireName).orElse(r.status().wireName()));
            }
            putIfSet(b, REQUEST_CALL_ID, r.requestCallId());
            putIfSet(b, APPROVER, r.approver());
            putIfSet(b, AGENT, r.agent());
            putIfSet(b, SHADOW_DENIAL, r.shadowDenial());
            b.emit();
        }

        private static void putIfSet(io.opentelemetry.api.logs.LogRecordBuilder b, AttributeKey<String> key,
                String value) {
            if (!value.isEmpty()) {
                b.setAttribute(key, value);
            }
        }

        private static Instant end(ToolCallRecord r) {
            try {
                return r.startedAt().plus(r.duration());
            } catch (RuntimeException e) {
                return r.startedAt();
            }
        }

        @Override
        public String toString() {
            return "ToolYardAuditLog.observer(" + logger + ")";
        }
    }
}
