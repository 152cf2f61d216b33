package dev.toolyard.otel.internal;

import dev.toolyard.Reason;
import static dev.toolyard.otel.internal.ExecuteToolConventions.CALL_ID;
import static dev.toolyard.otel.internal.ExecuteToolConventions.ERROR_TYPE;
import static dev.toolyard.otel.internal.ExecuteToolConventions.EXECUTE_TOOL;
import static dev.toolyard.otel.internal.ExecuteToolConventions.FUNCTION;
import static dev.toolyard.otel.internal.ExecuteToolConventions.INVOCATION_ID;
import static dev.toolyard.otel.internal.ExecuteToolConventions.ISOLATION_TIER;
import static dev.toolyard.otel.internal.ExecuteToolConventions.OPERATION_NAME;
import static dev.toolyard.otel.internal.ExecuteToolConventions.REASON;
import static dev.toolyard.otel.internal.ExecuteToolConventions.STATUS;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_CALL_ARGUMENTS;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_CALL_ID;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_CALL_RESULT;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_DESCRIPTION;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_NAME;
import static dev.toolyard.otel.internal.ExecuteToolConventions.TOOL_TYPE;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The observer {@code ToolYardTelemetry} builds: one {@code execute_tool} span per call.
 *
 * <p>A call that reaches its handler gets its span in {@link #onStart}, under the caller's current
 * context (carried to other threads by {@link #carry}), and the span waits in a map keyed by call id
 * until {@link #onEnd} removes and ends it. A
 * refused call has no {@code onStart}: its span is made whole in {@code onEnd}. Either way the span
 * starts at the record's {@code startedAt} and ends {@code duration} later, explicit timestamps, so it
 * tells the same times as the record. The map is bounded ({@link #MAX_OPEN_SPANS}): past the bound a
 * started call is not held, and its span is made whole at its end instead, so a caller that never ended
 * its calls (the port promises it does) costs at most the bound.
 *
 * <p>Public only so {@code dev.toolyard.otel} can build it; this package is not exported. Thread-safe.
 */
public final class ExecuteToolObserver implements ToolCallObserver {
    /** Calls held between start and end at most; a call past it gets its span at its end. */
    static final int MAX_OPEN_SPANS = 16_384;

    private static final String UNKNOWN_TOOL_SPAN_NAME = EXECUTE_TOOL;

    private final Tracer tracer;
    private final boolean captureArguments;
    private final boolean captureResults;
    private final int captureLimitBytes;
    private final ConcurrentHashMap<String, Span> open = new ConcurrentHashMap<>();

    /**
     * @param openTelemetry the application's; never {@code null}
     * @param captureArguments whether to write {@code gen_ai.tool.call.arguments} where it is safe
     * @param captureResults whether to write {@code gen_ai.tool.call.result} where it is safe
     * @param captureLimitBytes cap on each captured value, in UTF-8 bytes; at least 256
     */
    public ExecuteToolObserver(OpenTelemetry openTelemetry, boolean captureArguments, boolean captureResults,
            int captureLimitBytes) {
        this.tracer = openTelemetry.getTracer(ExecuteToolConventions.SCOPE);
        this.captureArguments = captureArguments;
        this.captureResults = captureResults;
        this.captureLimitBytes = captureLimitBytes;
    }

    @Override
    public void onStart(ToolCallEvent call) {
        if (open.size() >= MAX_OPEN_SPANS) {
            return;
        }
        Span earlier = open.put(call.callId(), start(call));
        if (earlier != null) {
            earlier.end(); // call ids are unique; ended rather than lost if one ever repeats
        }
    }

    @Override
    public void onEnd(ToolCallEvent call, ToolCallRecord record) {
        Span span = open.remove(call.callId());
        if (span == null) {
            span = start(call);
        }
        finish(span, call, record);
    }

    /**
     * A round's helper lane, or an adapter's framework thread, runs its calls in the context current
     * where the work was handed over, so their spans join the caller's trace under its span.
     */
    @Override
    public Runnable carry(Runnable task) {
        return Context.current().wrap(task);
    }

    /** @return how many started calls wait for their end; for tests */
    int openSpans() {
        return open.size();
    }

    private Span start(ToolCallEvent call) {
        ToolSpec spec = call.spec().orElse(null);
        // A registered name is one of few; a name a model made up is not, and a span name must stay low-cardinality.
        String name = spec != null ? EXECUTE_TOOL + ' ' + spec.name() : UNKNOWN_TOOL_SPAN_NAME;
        String frameworkId = call.requestCallId().orElse(null);
        // Everything known before the handler runs goes on the builder, so a sampler can see it.
        SpanBuilder builder = tracer.spanBuilder(name)
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(Context.current())
                .setStartTimestamp(call.startedAt())
                .setAttribute(OPERATION_NAME, EXECUTE_TOOL)
                .setAttribute(TOOL_NAME, call.toolName())
                .setAttribute(TOOL_TYPE, FUNCTION)
                .setAttribute(TOOL_CALL_ID, frameworkId != null ? frameworkId : call.callId())
                .setAttribute(INVOCATION_ID, call.invocationId())
                .setAttribute(ISOLATION_TIER, call.isolationTier().wireName());
        if (frameworkId != null) {
            builder.setAttribute(CALL_ID, call.callId());
        }
        if (spec != null) {
            builder.setAttribute(TOOL_DESCRIPTION, spec.description());
        }
        return builder.startSpan();
    }

    private void finish(Span span, ToolCallEvent call, ToolCallRecord record) {
        ToolStatus status = record.status();
        span.setAttribute(STATUS, status.wireName());
        if (status != ToolStatus.OK) {
            String type = record.reason().map(Reason::wireName).orElse(status.wireName());
            if (record.reason().isPresent()) {
                span.setAttribute(REASON, type);
            }
            span.setAttribute(ERROR_TYPE, type);
            span.setStatus(StatusCode.ERROR);
        }
        // Only a registered spec that does not redact says the plaintext may leave the process.
        boolean mayCapture = call.spec().isPresent() && !call.spec().get().redactArgs() && !record.argumentsRedacted();
        if (mayCapture && captureArguments) {
            span.setAttribute(TOOL_CALL_ARGUMENTS, arguments(record.arguments()));
        }
        if (mayCapture && captureResults && status == ToolStatus.OK) {
            span.setAttribute(TOOL_CALL_RESULT, result(record.summary()));
        }
        span.end(record.startedAt().plus(record.duration()));
    }

    private String arguments(String kept) {
        long bytes = utf8Length(kept);
        if (bytes <= captureLimitBytes) {
            return kept;
        }
        return "{\"omitted\":true,\"bytes\":" + bytes + "}"; // the record's own form for arguments too large to keep
    }

    private String result(String summary) {
        long bytes = utf8Length(summary);
        if (bytes <= captureLimitBytes) {
            return summary;
        }
        // The label states both sizes, so a reader knows the text was cut rather than ended. Sized with the
        // total in place of the kept figure, which is never longer.
        int budget = captureLimitBytes - label(bytes, bytes).length();
        int end = prefixWithin(summary, budget);
        return summary.substring(0, end) + label(utf8Length(summary.substring(0, end)), bytes);
    }

    private static String label(long kept, long total) {
        return " [cut: first " + kept + " of " + total + " UTF-8 bytes]";
    }

    /** @return the UTF-8 length of {@code s}; a lone surrogate counts as the 3 bytes of its replacement */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** @return the length in chars of the longest prefix of {@code s} within {@code budget} UTF-8 bytes, never splitting a pair */
    static int prefixWithin(String s, int budget) {
        long n = 0;
        int i = 0;
        for (int len = s.length(); i < len; ) {
            char c = s.charAt(i);
            int chars = 1;
            int bytes;
            if (c < 0x80) {
                bytes = 1;
            } else if (c < 0x800) {
                bytes = 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes = 4;
                chars = 2;
            } else {
                bytes = 3;
            }
            if (n + bytes > budget) {
                break;
            }
            n += bytes;
            i += chars;
        }
        return i;
    }
}
