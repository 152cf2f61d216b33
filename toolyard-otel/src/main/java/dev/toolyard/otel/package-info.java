/**
 * OpenTelemetry for ToolYard: {@link dev.toolyard.otel.ToolYardTelemetry} makes the
 * {@code ToolCallObserver} that turns each call into a GenAI {@code execute_tool} span.
 */
package dev.toolyard.otel;
