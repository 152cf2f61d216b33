package dev.toolyard.mcp;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP {@code tools/call}, listed or not, through {@link ToolExecutor#execute}, and its result as a
 * {@link CallToolResult}. It also knows which calls are running, so that when the session ends they are
 * cancelled (their threads interrupted: a running command is killed, a wait for approval ends) and a
 * caller can wait for them to end. Thread-safe.
 */
final class ToolCalls {
    /** What the client sees when the application, not the model, broke a call; the cause goes to the log. */
    static final String INTERNAL_ERROR_TEXT = "ToolYard could not run or record this call; the server's log says why";
    /** The JSON-RPC error text of a {@code tools/call} with no tool name to call; the call is still recorded. */
    static final String INVALID_PARAMS_TEXT = "Invalid params: tools/call needs params that are an object with a string"
            + " \"name\"; the call was refused and recorded";

    private static final System.Logger LOG = System.getLogger(ToolCalls.class.getName());
    /** The exchange of the call this thread is running, for {@link ElicitationApprovalGate}. */
    private static final ThreadLocal<McpSyncServerExchange> EXCHANGE = new ThreadLocal<>();

    private final ToolExecutor executor;
    private final Function<String, ToolContext> contextFor;
    private final JsonMapper json = JsonMapper.builder().build();
    private final Object lock = new Object();
    private final Set<Thread> running = new HashSet<>();
    /** Calls the session took that have not been answered yet, started or still queued. */
    private int pending;
    private boolean cancelled;

    ToolCalls(ToolExecutor executor, Function<String, ToolContext> contextFor) {
        this.executor = executor;
        this.contextFor = contextFor;
    }

    /** @return the exchange of the MCP call running on this thread; {@code null} when none (or unlisted) */
    static McpSyncServerExchange currentExchange() {
        return EXCHANGE.get();
    }

    /**
     * @param name the tool name the model chose, as the SDK parsed it; never {@code null}
     * @param arguments the arguments as the SDK parsed them: a map, or whatever else the request held
     *     ({@code null} when it had none)
     * @param sessionId the MCP session's id
     * @param requestId the JSON-RPC id of the request, or {@code null}
     * @param exchange the SDK's exchange of the call, or {@code null} when the SDK did not route it
     * @return the result; never {@code null}
     * @throws McpError with {@link #INTERNAL_ERROR_TEXT} only, when the context or the store failed
     */
    CallToolResult call(String name, Object arguments, String sessionId, Object requestId, McpSyncServerExchange exchange) {
        return toMcp(run(request(name, arguments), sessionId, requestId, exchange));
    }

    /**
     * A call whose line could be read only in part: refused and recorded under its name, with the reason
     * as its arguments' text (the record shows why nothing else of them was kept) and in the answer.
     */
    CallToolResult unreadable(UnreadableCall u, String sessionId, Object requestId) {
        ToolResult r = run(ToolCallRequest.of(u.name(), json.writeValueAsString(u.why())), sessionId, requestId, null);
        if (r.reason().orElse(null) == Reason.ARGS_INVALID) {
            // ToolYard saw a JSON string and says so; the model is told what really happened to its call.
            return toMcp(r, "Tool '" + u.name() + "' - args_invalid: " + u.why());
        }
        return toMcp(r);
    }

    /**
     * A {@code tools/call} with no tool name to call (params not an object, a name that is not a string):
     * recorded under the name's JSON text ({@code ""} when absent), and answered with JSON-RPC error
     * -32602 in fixed words, its data holding the record's id.
     */
    McpError invalidParams(Object params, String sessionId, Object requestId) {
        String name = "";
        Object arguments = params;
        if (params instanceof Map<?, ?> map) {
            name = map.get("name") == null ? "" : argumentsJson(map.get("name"));
            arguments = map.get("arguments");
        }
        ToolResult r = run(ToolCallRequest.of(name, argumentsJson(arguments)), sessionId, requestId, null);
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message(INVALID_PARAMS_TEXT)
                .data(meta(r)).build();
    }

    private ToolCallRequest request(String name, Object arguments) {
        if (arguments instanceof Map<?, ?> map && map.keySet().stream().allMatch(k -> k instanceof String)) {
            // As parsed values, so ToolYard's own bounds (depth above all) answer in ToolYard's fixed words.
            @SuppressWarnings("unchecked")
            Map<String, ?> typed = (Map<String, ?>) map;
            return ToolCallRequest.of(name, typed);
        }
        return ToolCallRequest.of(name, argumentsJson(arguments));
    }

    private ToolResult run(ToolCallRequest request, String sessionId, Object requestId, McpSyncServerExchange exchange) {
        ToolCallRequest withId = request.withCallId(requestId == null ? null : requestId.toString());
        Thread self = Thread.currentThread();
        synchronized (lock) {
            running.add(self);
            if (cancelled) {
                self.interrupt(); // the session is over: run it as a cancelled call, recorded like the others
            }
        }
        EXCHANGE.set(exchange);
        try {
            ToolContext context = Objects.requireNonNull(contextFor.apply(sessionId), "contextFor returned null");
            return executor.execute(withId, context);
        } catch (RuntimeException e) {
            // A broken store or a broken contextFor is the application's bug, never the model's: the SDK
            // would send e.getMessage() to the client, so the client gets a fixed text and the log the cause.
            LOG.log(System.Logger.Level.ERROR, "tools/call " + requestId + " failed in the application", e);
            throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message(INTERNAL_ERROR_TEXT).build();
        } finally {
            EXCHANGE.remove();
            synchronized (lock) {
                running.remove(self);
                lock.notifyAll();
            }
            Thread.interrupted(); // a cancellation that came after the call ended must not reach the thread's next task
        }
    }

    /** Counts a {@code tools/call} the session took, from then until {@link #answered}. */
    void accepted() {
        synchronized (lock) {
            pending++;
        }
    }

    /** The call {@link #accepted} counted has been answered (or dropped). */
    void answered() {
        synchronized (lock) {
            pending--;
            lock.notifyAll();
        }
    }

    /**
     * Cancels every call running now and every call that starts later: each one's thread is interrupted,
     * so ToolYard kills a running command's process tree, stops waiting for approval, and records the call.
     * Idempotent.
     */
    void cancelAll() {
        synchronized (lock) {
            cancelled = true;
            running.forEach(Thread::interrupt);
        }
    }

    /**
     * @param timeout how long to wait at most
     * @return whether no call is running or waiting to run any more
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitNoneRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!running.isEmpty() || pending > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
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
        return toMcp(r, r.content());
    }

    private static CallToolResult toMcp(ToolResult r, String text) {
        return CallToolResult.builder()
                .addTextContent(text)
                .isError(!r.isOk())
                .meta(meta(r))
                .build();
    }

    private static Map<String, Object> meta(ToolResult r) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(ToolYardMcpServer.META_CALL_ID, r.callId());
        meta.put(ToolYardMcpServer.META_STATUS, r.status().wireName());
        r.reason().ifPresent(reason -> meta.put(ToolYardMcpServer.META_REASON, reason.wireName()));
        return meta;
    }
}
