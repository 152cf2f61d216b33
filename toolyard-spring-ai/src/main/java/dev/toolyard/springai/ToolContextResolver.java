package dev.toolyard.springai;

import dev.toolyard.ToolContext;

/**
 * How the application gives each Spring AI tool call its ToolYard {@link ToolContext} (invocation id,
 * workspace, timeout, approved tools, egress ceiling), from the Spring AI tool context the request
 * carries: whatever the application put there with {@code ChatClient.prompt().toolContext(map)}.
 * Implementations must be thread-safe; they are called once per tool call.
 */
@FunctionalInterface
public interface ToolContextResolver {
    /**
     * @param toolContext the request's Spring AI tool context; never {@code null} (empty when the
     *     request carried none)
     * @return the ToolYard context of the call; never {@code null}
     */
    ToolContext resolve(org.springframework.ai.chat.model.ToolContext toolContext);
}
