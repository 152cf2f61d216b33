package dev.toolyard.otel;

import dev.toolyard.otel.internal.ExecuteToolObserver;
import dev.toolyard.spi.ToolCallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.TracerProvider;
import java.util.Objects;

/**
 * Makes the {@link ToolCallObserver} that turns every call an executor runs or refuses into one
 * OpenTelemetry GenAI {@code execute_tool} span, nested under the caller's current span. Give it to
 * {@code ToolExecutor.Builder.observer}.
 *
 * <p>By default no argument and no result is written: the conventions mark both sensitive and opt-in.
 * Even when opted in, nothing is written for a tool whose spec redacts its arguments, nor for an unknown
 * tool (no spec says it is safe), and each value is capped (default 4,096 UTF-8 bytes). See
 * {@code docs/observability.md} for every attribute.
 *
 * <p>The observers made here are thread-safe. Stateless utility; not instantiable.
 */
public final class ToolYardTelemetry {
    /** Default cap on a captured argument or result value, in UTF-8 bytes. */
    static final int DEFAULT_CAPTURE_LIMIT_BYTES = 4_096;
    /** The smallest cap that may be configured, in UTF-8 bytes. */
    static final int MIN_CAPTURE_LIMIT_BYTES = 256;

    /** What an observer on the no-op API does: nothing; the port's default methods. */
    private static final ToolCallObserver NOTHING = new ToolCallObserver() {
        @Override
        public String toString() {
            return "ToolYardTelemetry.observer(no-op tracer provider)";
        }
    };

    private ToolYardTelemetry() {}

    /**
     * The observer with the defaults: no arguments, no results.
     *
     * @param openTelemetry the application's; never {@code null}
     * @return the observer; never {@code null}
     * @throws NullPointerException if {@code openTelemetry} is {@code null}
     */
    public static ToolCallObserver observer(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * @param openTelemetry the application's; never {@code null}
     * @return a builder with the defaults
     * @throws NullPointerException if {@code openTelemetry} is {@code null}
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /** Builds an observer. Not thread-safe; {@link #build()} may be called more than once. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private boolean captureArguments;
        private boolean captureResults;
        private int captureLimitBytes = DEFAULT_CAPTURE_LIMIT_BYTES;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * Writes {@code gen_ai.tool.call.arguments}: the arguments as the call's record keeps them. Never
         * for a tool whose spec redacts its arguments, nor for an unknown tool. Arguments over the cap are
         * written as {@code {"omitted":true,"bytes":N}}, the form the record itself uses, so a reader
         * never parses a cut JSON text.
         *
         * @param capture whether to write them; default {@code false}
         * @return this builder
         */
        public Builder captureArguments(boolean capture) {
            this.captureArguments = capture;
            return this;
        }

        /**
         * Writes {@code gen_ai.tool.call.result} for a call that ended {@code OK}: the summary its record
         * keeps (the handler's output unless it gave a summary of its own), cut on a character boundary at
         * the cap. Never for a tool whose spec redacts its arguments, nor for an unknown tool.
         *
         * @param capture whether to write them; default {@code false}
         * @return this builder
         */
        public Builder captureResults(boolean capture) {
            this.captureResults = capture;
            return this;
        }

        /**
         * @param bytes cap on each captured value, in UTF-8 bytes; at least 256; default 4,096
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is below 256
         */
        public Builder captureLimitBytes(int bytes) {
            if (bytes < MIN_CAPTURE_LIMIT_BYTES) {
                throw new IllegalArgumentException(
                        "captureLimitBytes must be at least " + MIN_CAPTURE_LIMIT_BYTES + ", got " + bytes);
            }
            this.captureLimitBytes = bytes;
            return this;
        }

        /**
         * @return the observer; on the API's no-op tracer provider (no SDK installed) one that does
         *     nothing at all, since every span it made would be dropped; never {@code null}
         */
        public ToolCallObserver build() {
            if (openTelemetry.getTracerProvider() == TracerProvider.noop()) {
                return NOTHING;
            }
            return new ExecuteToolObserver(openTelemetry, captureArguments, captureResults, captureLimitBytes);
        }
    }
}
