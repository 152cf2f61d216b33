package dev.toolyard.mcp;

import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An MCP server (Java SDK 2.1.0, on a {@link McpServerTransportProvider}: stdio, tested, best with
 * {@link ToolYardStdioTransportProvider}; the SDK's
 * servlet SSE provider is the other one, untested here) whose tools are a {@link ToolRegistry}'s and
 * whose every {@code tools/call} goes through {@link ToolExecutor#execute}. ToolYard is the only
 * validator and the only recorder:
 *
 * <ul>
 *   <li>{@code tools/list} shows every tool registered when {@link Builder#build} ran, each with its
 *       wire definition ({@link ToolRegistry#wireDefinitions}) as its {@code inputSchema};
 *   <li>the SDK's own input validation is off, so a call with bad arguments reaches ToolYard and is
 *       refused and recorded as {@code args_invalid}, arguments that are not an object included (the
 *       SDK alone would answer those with its JSON parser's exception message);
 *   <li>a name the server does not list, which the SDK alone answers with JSON-RPC error -32602
 *       before any handler runs, is routed to ToolYard too, so it is refused and recorded as
 *       {@code unknown_tool} and answered as a tool result;
 *   <li>a result maps to a {@code CallToolResult} whose text is ToolYard's content (a refusal's text
 *       for anything but OK, with {@code isError} set) and whose {@code _meta} carries
 *       {@code dev.toolyard/callId}, {@code dev.toolyard/status} and, when not OK,
 *       {@code dev.toolyard/reason}; no exception message of a call ever reaches the client (a broken
 *       store or {@code contextFor} is a JSON-RPC internal error with a fixed text, its cause logged
 *       through {@link System.Logger});
 *   <li>no {@code structuredContent}: a {@code ToolSpec} declares no result schema, so there is none
 *       to satisfy.
 * </ul>
 *
 * When the session ends, every call still running is cancelled and recorded ({@link Builder#start}).
 * Approval through the client is {@link ElicitationApprovalGate}'s; a transport a hostile client
 * cannot end is {@link ToolYardStdioTransportProvider}.
 *
 * <p>The JSON-RPC id of each call is passed to ToolYard as the framework's call id
 * ({@code ToolCallRequest.withCallId}). The built server is thread-safe. This class is only a
 * namespace for {@link #builder}.
 */
public final class ToolYardMcpServer {
    /** The {@code _meta} key of ToolYard's id of the call, the same as its record's. */
    public static final String META_CALL_ID = "dev.toolyard/callId";
    /** The {@code _meta} key of the call's status, in wire form ({@code ok}, {@code refused}, ...). */
    public static final String META_STATUS = "dev.toolyard/status";
    /** The {@code _meta} key of the call's reason, in wire form; absent when the status is {@code ok}. */
    public static final String META_REASON = "dev.toolyard/reason";

    private static final TypeReference<LinkedHashMap<String, Object>> SCHEMA_MAP = new TypeReference<>() {};

    private ToolYardMcpServer() {}

    /**
     * @param executor runs and records every call; never {@code null}
     * @param registry the tools to list, the same the executor was built on; never {@code null}
     * @return a builder
     */
    public static Builder builder(ToolExecutor executor, ToolRegistry registry) {
        return new Builder(executor, registry);
    }

    /**
     * Builds the server. {@link #contextFor} is required: the workspace a call runs in is a security
     * setting and has no default. Not thread-safe.
     */
    public static final class Builder {
        private final ToolExecutor executor;
        private final ToolRegistry registry;
        private Function<String, ToolContext> contextFor;
        private String serverName = "toolyard";
        private String serverVersion = "0.1.0";
        private Duration requestTimeout = Duration.ofMinutes(10);

        private Builder(ToolExecutor executor, ToolRegistry registry) {
            this.executor = Objects.requireNonNull(executor, "executor");
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * The context each call runs under: its invocation id, workspace, timeout, egress ceiling and
         * approved tools. Called once for every {@code tools/call}, with the MCP session's id, on the
         * thread that then runs the call.
         *
         * @param contextForSession from the MCP session id to the context; must not return
         *     {@code null} (the call then ends in a JSON-RPC internal error and is logged)
         * @return this builder
         */
        public Builder contextFor(Function<String, ToolContext> contextForSession) {
            this.contextFor = Objects.requireNonNull(contextForSession, "contextForSession");
            return this;
        }

        /**
         * @param name the server name the client sees in {@code initialize}; default {@code toolyard}
         * @param version its version; default {@code 0.1.0}
         * @return this builder
         */
        public Builder serverInfo(String name, String version) {
            this.serverName = Objects.requireNonNull(name, "name");
            this.serverVersion = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * How long the server waits for the client to answer a request of its own (an elicitation that
         * asks for approval, above all). The executor's approval timeout still bounds each call.
         *
         * @param timeout positive; default 10 minutes
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder requestTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive, got " + timeout);
            }
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Builds the server on the transport and starts it: a stdio transport starts reading at once.
         *
         * @param transport for example {@code new ToolYardStdioTransportProvider(McpJsonDefaults.getMapper(),
         *     System.in, System.out)}; never {@code null}
         * @return the running server; close it with {@link McpSyncServer#closeGracefully()}
         * @throws IllegalStateException if {@link #contextFor} was not given or the registry is empty
         */
        public McpSyncServer build(McpServerTransportProvider transport) {
            return start(transport).server();
        }

        /**
         * As {@link #build}, with a handle on the calls it runs: when its session ends (the transport
         * closes it: end of input, or a close of the server), every call still running is cancelled, and
         * {@link Running#awaitCallsEnded} waits until each has been recorded.
         *
         * @param transport never {@code null}
         * @return the running server and its calls
         * @throws IllegalStateException if {@link #contextFor} was not given or the registry is empty
         */
        public Running start(McpServerTransportProvider transport) {
            Objects.requireNonNull(transport, "transport");
            if (contextFor == null) {
                throw new IllegalStateException("contextFor is required: the workspace of a call has no default");
            }
            List<String> names = registry.names();
            if (names.isEmpty()) {
                throw new IllegalStateException("registry has no tools to serve");
            }
            ToolCalls calls = new ToolCalls(executor, contextFor);
            List<SyncToolSpecification> specs = new ArrayList<>();
            Set<String> listed = new LinkedHashSet<>();
            JsonMapper json = JsonMapper.builder().build();
            for (JsonNode def : json.readTree(registry.wireDefinitions(names))) {
                String name = def.get("name").asString();
                // Our own map, not the SDK's parse of the text: that one is a HashMap and loses the key order
                // the wire definition pins.
                Map<String, Object> inputSchema = json.convertValue(def.get("parameters"), SCHEMA_MAP);
                McpSchema.Tool tool = McpSchema.Tool.builder(name, inputSchema)
                        .description(def.get("description").asString())
                        .build();
                specs.add(SyncToolSpecification.builder()
                        .tool(tool)
                        .callHandler((exchange, request) -> calls.call(request.name(), request.arguments(),
                                exchange.sessionId(), UnlistedToolRouting.requestId(exchange.transportContext()),
                                exchange))
                        .build());
                listed.add(name);
            }
            McpSyncServer server = McpServer.sync(new UnlistedToolRouting(transport, Set.copyOf(listed), calls))
                    .serverInfo(serverName, serverVersion)
                    // listChanged false: the list is fixed when the server is built
                    .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                    .tools(specs)
                    .validateToolInputs(false)
                    .requestTimeout(requestTimeout)
                    .build();
            return new Running(server, calls);
        }
    }

    /**
     * A server {@link Builder#start} started, and the calls it runs. Thread-safe.
     */
    public static final class Running {
        private final McpSyncServer server;
        private final ToolCalls calls;

        private Running(McpSyncServer server, ToolCalls calls) {
            this.server = server;
            this.calls = calls;
        }

        /** @return the SDK's server; never {@code null} */
        public McpSyncServer server() {
            return server;
        }

        /**
         * Cancels every call running now or started later, as the end of the session does: each call's
         * thread is interrupted, so a running command's process tree is killed, a wait for approval ends,
         * and the call is recorded. Idempotent.
         */
        public void cancelCalls() {
            calls.cancelAll();
        }

        /**
         * @param timeout how long to wait at most; never {@code null}
         * @return whether every call has ended (and so been recorded)
         * @throws InterruptedException if interrupted while waiting
         */
        public boolean awaitCallsEnded(Duration timeout) throws InterruptedException {
            return calls.awaitNoneRunning(Objects.requireNonNull(timeout, "timeout"));
        }
    }
}
