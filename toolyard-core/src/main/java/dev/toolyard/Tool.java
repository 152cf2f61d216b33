package dev.toolyard;

import java.util.Objects;

/**
 * A spec and its handler, as the built-in tool factories return them for
 * {@link ToolRegistry#register(Tool)}. Immutable.
 *
 * @param spec the tool's spec; never {@code null}
 * @param handler the tool's handler; never {@code null}
 */
public record Tool(ToolSpec spec, ToolHandler handler) {
    /**
     * @param spec the tool's spec
     * @param handler the tool's handler
     * @throws NullPointerException if either part is {@code null}
     */
    public Tool {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(handler, "handler");
    }
}
