package dev.toolyard;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One tool call as a model asked for it: the tool's name and its arguments, either as the raw JSON
 * string the model emitted or as a map an application already parsed. Nothing here is trusted or
 * checked: the executor checks it. It may carry the agent framework's own id of the call
 * ({@link #withCallId}), which the record keeps beside ToolYard's id. Immutable. Thread-safe.
 */
public final class ToolCallRequest {
    private final String name;
    private final String argumentsJson;
    private final Map<String, Object> argumentsMap;
    private final String callId;

    private ToolCallRequest(String name, String argumentsJson, Map<String, Object> argumentsMap, String callId) {
        this.name = name;
        this.argumentsJson = argumentsJson;
        this.argumentsMap = argumentsMap;
        this.callId = callId;
    }

    /**
     * @param name the tool name the model chose; never {@code null}
     * @param argumentsJson the arguments exactly as the model emitted them; never {@code null}
     * @return the request
     */
    public static ToolCallRequest of(String name, String argumentsJson) {
        return new ToolCallRequest(
                Objects.requireNonNull(name, "name"), Objects.requireNonNull(argumentsJson, "argumentsJson"), null, null);
    }

    /**
     * @param name the tool name the model chose; never {@code null}
     * @param arguments arguments already parsed by the application (values: strings, numbers,
     *     booleans, {@code null}, lists and maps of these); never {@code null}; copied
     * @return the request
     */
    public static ToolCallRequest of(String name, Map<String, ?> arguments) {
        Objects.requireNonNull(arguments, "arguments");
        return new ToolCallRequest(
                Objects.requireNonNull(name, "name"), null, Collections.unmodifiableMap(new LinkedHashMap<>(arguments)), null);
    }

    /**
     * The same request with the agent framework's id of this tool call (LangChain4j's
     * {@code ToolExecutionRequest.id()}, Spring AI's tool call id, an MCP request id). The id is
     * recorded as given, capped at 128 characters by the executor; it is the framework's (and so often
     * the model's) text, so nothing is derived from it and no value of it makes {@code execute} throw.
     *
     * @param id the framework's id; {@code null} or empty means none
     * @return a new request; this one is unchanged
     */
    public ToolCallRequest withCallId(String id) {
        return new ToolCallRequest(name, argumentsJson, argumentsMap, id == null || id.isEmpty() ? null : id);
    }

    /** @return the agent framework's id of this call, as given to {@link #withCallId}; empty when none */
    public Optional<String> callId() {
        return Optional.ofNullable(callId);
    }

    /** @return the tool name as given; never {@code null} */
    public String name() {
        return name;
    }

    /** @return the raw JSON arguments, or {@code null} when the request was made from a map */
    public String argumentsJson() {
        return argumentsJson;
    }

    /** @return the map arguments, or {@code null} when the request was made from a JSON string */
    public Map<String, Object> argumentsMap() {
        return argumentsMap;
    }

    @Override
    public String toString() {
        return "ToolCallRequest[" + (name.length() > 64 ? name.substring(0, 64) + "…" : name) + "]";
    }
}
