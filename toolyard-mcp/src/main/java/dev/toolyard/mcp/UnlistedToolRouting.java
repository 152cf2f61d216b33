package dev.toolyard.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Wraps the application's transport so that each session it creates first sees every message the
 * client sends. For {@code tools/call} only:
 *
 * <ul>
 *   <li>a name the server does not list is answered here, through {@link ToolCalls}, so ToolYard
 *       refuses and records it as {@code unknown_tool}. The SDK (2.1.0,
 *       {@code McpAsyncServer.toolsCallRequestHandler}) would answer it with JSON-RPC error -32602
 *       before any handler ran, and nothing would be recorded; it has no hook for unknown names;
 *   <li>a call whose arguments the SDK cannot read as an object (an array, a string) is answered here
 *       too, and ToolYard refuses and records it as {@code args_invalid}; the SDK would answer with its
 *       JSON parser's message as a JSON-RPC error and record nothing;
 *   <li>params that are not an object, or a name that is not a string, are recorded and answered with
 *       JSON-RPC error -32602 in fixed words (the SDK would answer with a parser's or a
 *       {@code NullPointerException}'s text and record nothing); arguments nested deeper than 64
 *       levels go to ToolYard as parsed values, which refuses them in its own fixed words; a call the
 *       transport could read only in part ({@link UnreadableCall}) is refused and recorded as a call;
 *   <li>a listed name goes on to the SDK's session with the JSON-RPC request id added to the
 *       {@link McpTransportContext} its exchange carries, because the SDK hands a tool handler the
 *       request's params but not its id.
 * </ul>
 *
 * Everything else passes through untouched. When the session closes, every call still running is
 * cancelled ({@link ToolCalls#cancelAll}): nobody is left to read its answer. Thread-safe.
 */
final class UnlistedToolRouting implements McpServerTransportProvider {
    /** The transport-context key under which a listed call's handler finds its JSON-RPC request id. */
    static final String REQUEST_ID = "dev.toolyard.mcp/jsonrpc-id";
    /** ToolYard's own bound on the nesting of arguments ({@code Json.MAX_DEPTH}). */
    static final int ARGUMENT_DEPTH = 64;
    private static final System.Logger LOG = System.getLogger(UnlistedToolRouting.class.getName());

    private final McpServerTransportProvider transport;
    private final Set<String> listed;
    private final ToolCalls calls;

    UnlistedToolRouting(McpServerTransportProvider transport, Set<String> listed, ToolCalls calls) {
        this.transport = transport;
        this.listed = listed;
        this.calls = calls;
    }

    /**
     * @param context a handler's transport context; never {@code null}
     * @return the JSON-RPC id of the request being handled, or {@code null} if it did not come through here
     */
    static Object requestId(McpTransportContext context) {
        return context.get(REQUEST_ID);
    }

    /** @return whether parsed JSON (maps and lists) nests deeper than {@code limit}, counted without recursion */
    static boolean nestsDeeperThan(Object value, int limit) {
        java.util.Deque<Map.Entry<Object, Integer>> pending = new java.util.ArrayDeque<>();
        pending.push(Map.entry(value == null ? Map.of() : value, 0));
        while (!pending.isEmpty()) {
            Map.Entry<Object, Integer> e = pending.pop();
            java.util.Collection<?> children = e.getKey() instanceof Map<?, ?> m ? m.values()
                    : e.getKey() instanceof List<?> l ? l : null;
            if (children == null) {
                continue;
            }
            int depth = e.getValue() + 1;
            if (depth > limit) {
                return true;
            }
            for (Object child : children) {
                if (child != null) {
                    pending.push(Map.entry(child, depth));
                }
            }
        }
        return false;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        transport.setSessionFactory(sessionTransport ->
                new RoutingSession(sessionFactory.create(sessionTransport), sessionTransport));
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return transport.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return transport.notifyClient(sessionId, method, params);
    }

    @Override
    public void close() {
        transport.close();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return transport.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
        return transport.protocolVersions();
    }

    /**
     * The SDK's session with a look at each incoming message first. {@link McpServerSession} is a class,
     * not an interface, so this subclass delegates every public method to the SDK's session and uses
     * none of the state it inherits.
     */
    private final class RoutingSession extends McpServerSession {
        private final McpServerSession sdk;
        private final McpServerTransport sessionTransport;

        RoutingSession(McpServerSession sdk, McpServerTransport sessionTransport) {
            super(sdk.getId(), Duration.ofSeconds(1), sessionTransport,
                    initialize -> Mono.error(new IllegalStateException("unused")), Map.of(), Map.of());
            this.sdk = sdk;
            this.sessionTransport = sessionTransport;
        }

        @Override
        public Mono<Void> handle(JSONRPCMessage message) {
            if (!(message instanceof JSONRPCRequest request) || !McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
                return sdk.handle(message);
            }
            calls.accepted();
            return route(request).doFinally(signal -> calls.answered());
        }

        private Mono<Void> route(JSONRPCRequest request) {
            Object params = request.params();
            if (params instanceof UnreadableCall unreadable) {
                // A line the transport could read only in part: refused and recorded as the call it was.
                return unreadable.name() == null
                        ? answerHere(request, () -> {
                            throw calls.invalidParams(Map.of("arguments", unreadable.why()), getId(), request.id());
                        })
                        : answerHere(request, () -> calls.unreadable(unreadable, getId(), request.id()));
            }
            if (!(params instanceof Map<?, ?> raw) || !(raw.get("name") instanceof String name)) {
                // The SDK would answer with a parser's or a NullPointerException's text and record nothing.
                return answerHere(request, () -> {
                    throw calls.invalidParams(params, getId(), request.id());
                });
            }
            if (nestsDeeperThan(raw.get("arguments"), ARGUMENT_DEPTH)) {
                // Not through the SDK's mapper, whose recursion and text are its own: ToolYard refuses it in
                // its fixed words ("arguments nest deeper than 64"), and records it.
                return answerHere(request, () -> calls.call(name, raw.get("arguments"), getId(), request.id(), null));
            }
            CallToolRequest call = parse(request);
            if (call == null) {
                // The SDK cannot read the params (arguments that are not an object): it would answer with a
                // JSON-RPC error carrying its parser's message and record nothing. ToolYard refuses it instead.
                return answerHere(request, () -> calls.call(name, raw.get("arguments"), getId(), request.id(), null));
            }
            if (!listed.contains(name)) {
                return answerHere(request, () -> calls.call(name, call.arguments(), getId(), request.id(), null));
            }
            return sdk.handle(request).contextWrite(ctx -> ctx.put(McpTransportContext.KEY,
                    withRequestId(ctx.getOrDefault(McpTransportContext.KEY, McpTransportContext.EMPTY), request.id())));
        }

        /** @return the call, or {@code null} when the SDK's mapper cannot read the params as one */
        private CallToolRequest parse(JSONRPCRequest request) {
            try {
                return sessionTransport.unmarshalFrom(request.params(), new TypeRef<CallToolRequest>() {});
            } catch (RuntimeException e) {
                return null;
            }
        }

        private Mono<Void> answerHere(JSONRPCRequest request, Callable<CallToolResult> answer) {
            return Mono.fromCallable(() -> JSONRPCResponse.result(request.id(), answer.call()))
                    // as the SDK runs a sync tool handler: off the thread that reads the transport
                    .subscribeOn(Schedulers.boundedElastic())
                    .onErrorResume(e -> {
                        if (!(e instanceof McpError m) || m.getJsonRpcError() == null) {
                            LOG.log(System.Logger.Level.ERROR, "tools/call " + request.id() + " failed", e);
                        }
                        return Mono.just(JSONRPCResponse.error(request.id(),
                                e instanceof McpError m && m.getJsonRpcError() != null ? m.getJsonRpcError()
                                        : new JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR,
                                                ToolCalls.INTERNAL_ERROR_TEXT, null)));
                    })
                    .flatMap(sessionTransport::sendMessage);
        }

        private McpTransportContext withRequestId(McpTransportContext outer, Object id) {
            return key -> REQUEST_ID.equals(key) ? id : outer.get(key);
        }

        @Override
        public String getId() {
            return sdk.getId();
        }

        @Override
        public void init(McpSchema.ClientCapabilities clientCapabilities, McpSchema.Implementation clientInfo) {
            sdk.init(clientCapabilities, clientInfo);
        }

        @Override
        public void setMinLoggingLevel(McpSchema.LoggingLevel minLoggingLevel) {
            sdk.setMinLoggingLevel(minLoggingLevel);
        }

        @Override
        public boolean isNotificationForLevelAllowed(McpSchema.LoggingLevel loggingLevel) {
            return sdk.isNotificationForLevelAllowed(loggingLevel);
        }

        @Override
        public <T> Mono<T> sendRequest(String method, Object requestParams, TypeRef<T> typeRef) {
            return sdk.sendRequest(method, requestParams, typeRef);
        }

        @Override
        public Mono<Void> sendNotification(String method, Object params) {
            return sdk.sendNotification(method, params);
        }

        /** The session is over: nobody will read the answers of calls still running, so they are cancelled. */
        @Override
        public Mono<Void> closeGracefully() {
            calls.cancelAll();
            return sdk.closeGracefully();
        }

        @Override
        public void close() {
            calls.cancelAll();
            sdk.close();
        }
    }
}
