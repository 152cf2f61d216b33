package dev.toolyard.springai;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * One ToolYard tool as a Spring AI callback. Spring AI matches calls to it by name and hands it only
 * the arguments; the call id never reaches a callback (see {@link ToolYardToolCallingManager}).
 * Never throws. Immutable. Thread-safe.
 */
final class ToolYardToolCallback implements ToolCallback {
    private final ToolYardToolCallbacks owner;
    private final ToolDefinition definition;

    ToolYardToolCallback(ToolYardToolCallbacks owner, String name, String description, String inputSchema) {
        this.owner = owner;
        this.definition = new DefaultToolDefinition(name, description, inputSchema);
    }

    ToolYardToolCallbacks owner() {
        return owner;
    }

    @Override
    public ToolDefinition getToolDefinition() {
        return definition;
    }

    @Override
    public String call(String toolInput) {
        return call(toolInput, null);
    }

    @Override
    public String call(String toolInput, ToolContext toolContext) {
        return owner.call(definition.name(), null, toolInput, toolContext, null);
    }
}
