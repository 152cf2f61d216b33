package dev.toolyard.otel.internal;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The names this module writes, kept here rather than taken from {@code semconv-incubating}, which has
 * no constants for the tool call's arguments and result and whose GenAI names still move.
 *
 * <p>They follow the "Execute tool span" of the OpenTelemetry GenAI semantic conventions in
 * {@code open-telemetry/semantic-conventions-genai}, {@code docs/gen-ai/gen-ai-spans.md}, as of commit
 * {@code 002c8a6ea1c8} (unreleased: that repository has published no version since the conventions
 * left semantic-conventions 1.41). {@code error.type} is the stable attribute of semantic-conventions
 * 1.41.1; every {@code gen_ai.*} name is Development status. The {@code toolyard.*} names are ours.
 */
public final class ExecuteToolConventions {
    private ExecuteToolConventions() {}

    /** The conventions followed, as a human reads them. */
    public static final String FOLLOWS = "semantic-conventions-genai@002c8a6ea1c8 (Execute tool span)";

    /** The instrumentation scope every span is created under. */
    public static final String SCOPE = "dev.toolyard.otel";

    /** {@code gen_ai.operation.name}: Required; set when the span is created, so samplers see it. */
    public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    /** The only value of {@link #OPERATION_NAME} this module writes. */
    public static final String EXECUTE_TOOL = "execute_tool";
    /** {@code gen_ai.tool.name}: Required. */
    public static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    /** {@code gen_ai.tool.call.id}: Recommended if available. */
    public static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    /** {@code gen_ai.tool.type}: Recommended if available. */
    public static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    /** The value of {@link #TOOL_TYPE}: a predefined function the application runs for the agent. */
    public static final String FUNCTION = "function";
    /** {@code gen_ai.tool.description}: Recommended if available. */
    public static final AttributeKey<String> TOOL_DESCRIPTION = AttributeKey.stringKey("gen_ai.tool.description");
    /** {@code gen_ai.tool.call.arguments}: Opt-In, sensitive; recorded as a JSON string. */
    public static final AttributeKey<String> TOOL_CALL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    /** {@code gen_ai.tool.call.result}: Opt-In, sensitive; only when the execution was successful. */
    public static final AttributeKey<String> TOOL_CALL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    /** {@code error.type}: Stable; Conditionally Required when the operation ended in an error. */
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** {@code toolyard.status}: how the call ended, {@code ok}, {@code refused}, {@code failed}, {@code timeout}. */
    public static final AttributeKey<String> STATUS = AttributeKey.stringKey("toolyard.status");
    /** {@code toolyard.reason}: the reason's wire name, for every status but {@code ok}. */
    public static final AttributeKey<String> REASON = AttributeKey.stringKey("toolyard.reason");
    /** {@code toolyard.isolation.tier}: {@code gvisor}, {@code container}, {@code bwrap}, {@code unavailable} or {@code in_process}. */
    public static final AttributeKey<String> ISOLATION_TIER = AttributeKey.stringKey("toolyard.isolation.tier");
    /** {@code toolyard.invocation.id}: the invocation the call belongs to. */
    public static final AttributeKey<String> INVOCATION_ID = AttributeKey.stringKey("toolyard.invocation.id");
    /** {@code toolyard.call.id}: ToolYard's own id, written when {@link #TOOL_CALL_ID} carries the framework's. */
    public static final AttributeKey<String> CALL_ID = AttributeKey.stringKey("toolyard.call.id");
}
