/**
 * ToolYard's OpenTelemetry module: every call the executor runs or refuses becomes a GenAI
 * {@code execute_tool} span. It compiles on the OpenTelemetry API only; the application brings the SDK.
 */
module dev.toolyard.otel {
    requires transitive dev.toolyard.core;
    requires transitive io.opentelemetry.api;
    requires io.opentelemetry.context;

    exports dev.toolyard.otel;
}
