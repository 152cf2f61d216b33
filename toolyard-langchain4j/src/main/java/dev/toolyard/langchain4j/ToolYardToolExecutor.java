package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;

/**
 * The LangChain4j executor of one offered tool. It runs the request LangChain4j hands it (its own
 * name, id and arguments), so a call is ToolYard's to check whatever LangChain4j matched it by.
 * Never throws. Thread-safe.
 */
final class ToolYardToolExecutor implements ToolExecutor {
    private final ToolYardToolProvider provider;

    ToolYardToolExecutor(ToolYardToolProvider provider) {
        this.provider = provider;
    }

    @Override
    public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
        return provider.execute(request, context);
    }

    /** The low-level path, without an AI service: the call is recorded under a fresh invocation id. */
    @Override
    public String execute(ToolExecutionRequest request, Object memoryId) {
        InvocationContext context = memoryId == null ? null
                : InvocationContext.builder().chatMemoryId(memoryId).timestampNow().build();
        return provider.execute(request, context).resultText();
    }
}
