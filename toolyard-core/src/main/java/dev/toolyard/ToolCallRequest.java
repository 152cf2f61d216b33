package dev.toolyard;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One tool call as a model asked for it: the tool's name and its arguments, either as the raw JSON
 * string the model emitted or as a map an application already parsed. Nothing here is trusted or
 * checked: the executor checks it. Immutable. Thread-safe.
 */
public final class ToolCallRequest {
    private final String name;
    private final String argumentsJson;
    private final Map<String, Object> argumentsMap;

    private ToolCallRequest(String name, String argumentsJson, Map<String, Object> argumentsMap) {
        this.name = name;
        this.argumentsJson = argumentsJson;
        this.argumentsMap = argumentsMap;
    }

    /**
     * @param name the tool name the model chose; never {@code null}
     * @param argumentsJson the arguments exactly as the model emitted them; never {@code null}
     * @return the request
     */
    public static ToolCallRequest of(String name, String argumentsJson) {
        return new ToolCallRequest(
                Objects.requireNonNull(name, "name"), Objects.requireNonNull(argumentsJson, "argumentsJson"), null);
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
                Objects.requireNonNull(name, "name"), null, Collections.unmodifiableMap(new LinkedHashMap<>(arguments)));
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
