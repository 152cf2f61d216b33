package dev.toolyard.mcp;

import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP {@code tools/call}, listed or not, through {@link ToolExecutor#execute}, and its result as a
 * {@link CallToolResult}. Thread-safe.
 */
final class ToolCalls {
    /** What the client sees when the application, not the model, broke a call; the cause goes to the log. */
    static final String INTERNAL_ERROR_TEXT = "ToolYard could not run or record this call; the server's log says why";

    private static final System.Logger LOG = System.getLogger(ToolCalls.class.getName());

    private final ToolExecutor executor;
    private final Function<String, ToolContext> contextFor;
    private final JsonMapper json = JsonMapper.builder().build();

    ToolCalls(ToolExecutor executor, Function<String, ToolContext> contextFor) {
        this.executor = executor;
        this.contextFor = contextFor;
    }

    /**
     * @param name the tool name the model chose, as the SDK parsed it; never {@code null}
     * @param arguments the arguments as the SDK parsed them: a map, or whatever else the request held
     *     ({@code null} when it had none)
     * @param sessionId the MCP session's id
     * @param requestId the JSON-RPC id of the request, or {@code null}
     * @return the result; never {@code null}
     * @throws McpError with {@link #INTERNAL_ERROR_TEXT} only, when the context or the store failed
     */
    CallToolResult call(String name, Object arguments, String sessionId, Object requestId) {
        ToolCallRequest request = ToolCallRequest.of(name, argumentsJson(arguments))
                .withCallId(requestId == null ? null : requestId.toString());
        ToolResult result;
        try {
            ToolContext context = Objects.requireNonNull(contextFor.apply(sessionId), "contextFor returned null");
            result = executor.execute(request, context);
        } catch (RuntimeException e) {
            // A broken store or a broken contextFor is the application's bug, never the model's: the SDK
            // would send e.getMessage() to the client, so the client gets a fixed text and the log the cause.
            LOG.log(System.Logger.Level.ERROR, "tools/call " + requestId + " failed in the application", e);
            throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message(INTERNAL_ERROR_TEXT).build();
        }
        return toMcp(result);
    }

    /**
     * The arguments back as JSON text, so ToolYard parses, bounds, validates and records them as it does
     * any model's: an array or a string stays what it was and is refused as {@code args_invalid}. A
     * request without arguments is an empty object, as MCP defines it.
     */
    String argumentsJson(Object arguments) {
        if (arguments == null) {
            return "{}";
        }
        try {
            return json.writeValueAsString(arguments);
        } catch (JacksonException e) {
            // Not reachable from JSON the SDK parsed; still a refusal, never a throw.
            return "\"arguments the server could not serialize\"";
        }
    }

    static CallToolResult toMcp(ToolResult r) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(ToolYardMcpServer.META_CALL_ID, r.callId());
        meta.put(ToolYardMcpServer.META_STATUS, r.status().wireName());
        r.reason().ifPresent(reason -> meta.put(ToolYardMcpServer.META_REASON, reason.wireName()));
        return CallToolResult.builder()
                .addTextContent(r.content())
                .isError(!r.isOk())
                .meta(meta)
                .build();
    }
}
