package dev.toolyard.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathAccess;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallStore;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The real SDK server on the real stdio transport, over in-process pipes: every message is the JSON-RPC
 * line a client would send, every answer the line it would read.
 */
@Timeout(60) // a hang guard only
class ToolYardMcpServerTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NOTE_SCHEMA = """
            {"type":"object","properties":{"path":{"type":"string","maxLength":200}},\
            "required":["path"],"additionalProperties":false}""";

    @TempDir
    Path tmp;

    private final InMemoryToolCallStore store = new InMemoryToolCallStore();
    private Wire wire;

    @AfterEach
    void close() throws IOException {
        if (wire != null) {
            wire.close();
        }
    }

    private ToolRegistry registry() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("read_note").description("Read one note.").argsSchema(NOTE_SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).pathArg("path", PathAccess.READ).build(),
                (args, ctx) -> ToolOutput.of(Files.readString(args.path("path"))));
        registry.register(ToolSpec.builder("explode").description("Always throws.")
                .argsSchema("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(),
                (args, ctx) -> {
                    throw new IllegalStateException("secret-token-4711 in /srv/private");
                });
        return registry;
    }

    private Wire serve(ToolCallStore records) throws IOException {
        Files.writeString(tmp.resolve("today.md"), "Ship 0.1.0.");
        ToolRegistry registry = registry();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_note", "explode")).store(records).build();
        Wire w = new Wire();
        w.server = ToolYardMcpServer.builder(executor, registry)
                .contextFor(session -> ToolContext.of("mcp-" + session, SandboxPaths.of(tmp)))
                .build(w.transport());
        w.initialize();
        wire = w;
        return w;
    }

    @Test
    void toolsListShowsEveryRegisteredToolWithItsWireSchemaAsInputSchema() throws Exception {
        Wire w = serve(store);
        JsonNode tools = w.request("tools/list", JSON.createObjectNode()).get("result").get("tools");
        assertThat(tools).hasSize(2);
        JsonNode wireDefs = JSON.readTree(registry().wireDefinitions(List.of("explode", "read_note")));
        for (int i = 0; i < 2; i++) {
            assertThat(tools.get(i).get("name")).isEqualTo(wireDefs.get(i).get("name"));
            assertThat(tools.get(i).get("description")).isEqualTo(wireDefs.get(i).get("description"));
            assertThat(tools.get(i).get("inputSchema")).isEqualTo(wireDefs.get(i).get("parameters"));
        }
        assertThat(tools.get(1).get("inputSchema").toString()).isEqualTo(NOTE_SCHEMA);
    }

    @Test
    void aListedCallRunsThroughTheExecutorAndItsContentComesBackAsText() throws Exception {
        Wire w = serve(store);
        JsonNode result = w.call("read_note", "{\"path\":\"today.md\"}");
        assertThat(result.get("isError").asBoolean()).isFalse();
        assertThat(result.get("content").get(0).get("type").asString()).isEqualTo("text");
        assertThat(result.get("content").get(0).get("text").asString()).isEqualTo("Ship 0.1.0.");
        assertThat(result.has("structuredContent")).isFalse();
        JsonNode meta = result.get("_meta");
        assertThat(meta.get(ToolYardMcpServer.META_STATUS).asString()).isEqualTo("ok");
        assertThat(meta.has(ToolYardMcpServer.META_REASON)).isFalse();
        ToolCallRecord record = store.records().get(0);
        assertThat(record.callId()).isEqualTo(meta.get(ToolYardMcpServer.META_CALL_ID).asString());
        assertThat(record.invocationId()).startsWith("mcp-");
        assertThat(record.status()).isEqualTo(ToolStatus.OK);
        assertThat(record.arguments()).isEqualTo("{\"path\":\"today.md\"}");
        assertThat(record.requestCallId()).as("the JSON-RPC id of the tools/call").isEqualTo(String.valueOf(w.lastId()));
    }

    @Test
    void aRefusalIsAnErrorResultWithToolYardsTextAndReason() throws Exception {
        Wire w = serve(store);
        JsonNode result = w.call("read_note", "{\"path\":\"../../../etc/passwd\"}");
        assertThat(result.get("isError").asBoolean()).isTrue();
        assertThat(result.get("content").get(0).get("text").asString())
                .startsWith("Tool 'read_note' - path_escape").doesNotContain(tmp.toString());
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_STATUS).asString()).isEqualTo("refused");
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_REASON).asString()).isEqualTo("path_escape");
        assertThat(result.get("_meta").size()).as("callId, status, reason; never the reason detail").isEqualTo(3);
        assertThat(store.records()).singleElement().satisfies(r -> assertThat(r.reason()).contains(Reason.PATH_ESCAPE));
    }

    @Test
    void argumentsTheSdkWouldHaveRefusedReachToolYardAndAreRecordedAsArgsInvalid() throws Exception {
        Wire w = serve(store);
        JsonNode result = w.call("read_note", "{\"path\":42,\"mode\":\"rw\"}");
        assertThat(result.get("isError").asBoolean()).isTrue();
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_REASON).asString()).isEqualTo("args_invalid");
        assertThat(store.records()).singleElement().satisfies(r -> {
            assertThat(r.reason()).contains(Reason.ARGS_INVALID);
            assertThat(r.arguments()).isEqualTo("{\"path\":42,\"mode\":\"rw\"}");
        });
    }

    @Test
    void argumentsThatAreNotAnObjectAreRefusedAndRecordedNotAnsweredWithTheSdkParsersMessage() throws Exception {
        Wire w = serve(store);
        for (String arguments : List.of("[\"today.md\"]", "\"today.md\"", "42")) {
            JsonNode response = w.request("tools/call", callParams("read_note", arguments));
            assertThat(response.has("error")).as(response.toString()).isFalse();
            assertThat(response.get("result").get("isError").asBoolean()).isTrue();
            assertThat(response.get("result").get("_meta").get(ToolYardMcpServer.META_REASON).asString())
                    .isEqualTo("args_invalid");
        }
        assertThat(store.records()).extracting(ToolCallRecord::arguments)
                .containsExactly("[\"today.md\"]", "\"today.md\"", "42");
        assertThat(store.records()).extracting(rec -> rec.reason().orElse(null)).containsOnly(Reason.ARGS_INVALID);
    }

    @Test
    void aCallWithoutArgumentsIsAnEmptyObjectToToolYard() throws Exception {
        Wire w = serve(store);
        ObjectNode params = JSON.createObjectNode().put("name", "read_note");
        JsonNode result = w.request("tools/call", params).get("result");
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_REASON).asString()).isEqualTo("args_invalid");
        assertThat(store.records()).singleElement().satisfies(r -> assertThat(r.arguments()).isEqualTo("{}"));
    }

    @Test
    void anUnlistedNameIsRefusedAndRecordedAsUnknownToolInsteadOfAJsonRpcError() throws Exception {
        Wire w = serve(store);
        JsonNode response = w.request("tools/call", callParams("delete_everything", "{\"path\":\"/\"}"));
        assertThat(response.has("error")).as(response.toString()).isFalse();
        JsonNode result = response.get("result");
        assertThat(result.get("isError").asBoolean()).isTrue();
        assertThat(result.get("content").get(0).get("text").asString()).startsWith("Tool 'delete_everything' - unknown_tool");
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_REASON).asString()).isEqualTo("unknown_tool");
        assertThat(store.records()).singleElement().satisfies(r -> {
            assertThat(r.reason()).contains(Reason.UNKNOWN_TOOL);
            assertThat(r.toolName()).isEqualTo("delete_everything");
            assertThat(r.invocationId()).startsWith("mcp-");
            assertThat(r.requestCallId()).isEqualTo(String.valueOf(w.lastId()));
        });
    }

    @Test
    void theSdkAloneAnswersAnUnknownNameWithError32602AndRunsNoHandler() throws Exception {
        // Why the routing exists: the same SDK server without it never lets an unknown name reach a handler.
        AtomicInteger handlerRuns = new AtomicInteger();
        Wire w = new Wire();
        wire = w;
        McpSchema.Tool tool = McpSchema.Tool.builder("read_note", McpJsonDefaults.getMapper(), NOTE_SCHEMA)
                .description("d").build();
        w.server = McpServer.sync(w.transport())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(SyncToolSpecification.builder().tool(tool).callHandler((ex, req) -> {
                    handlerRuns.incrementAndGet();
                    return McpSchema.CallToolResult.builder().addTextContent("ran").build();
                }).build())
                .validateToolInputs(false)
                .build();
        w.initialize();
        JsonNode response = w.request("tools/call", callParams("delete_everything", "{}"));
        assertThat(response.get("error").get("code").asInt()).isEqualTo(-32602);
        assertThat(response.get("error").get("data").asString()).isEqualTo("Tool not found: delete_everything");
        assertThat(handlerRuns).hasValue(0);
    }

    @Test
    void aHandlerExceptionsMessageNeverReachesTheClient() throws Exception {
        Wire w = serve(store);
        JsonNode result = w.call("explode", "{}");
        assertThat(result.get("isError").asBoolean()).isTrue();
        assertThat(result.get("_meta").get(ToolYardMcpServer.META_REASON).asString()).isEqualTo("handler_error");
        // The class name reaches the client, as docs/mcp.md says; the message never does.
        assertThat(result.get("content").get(0).get("text").asString()).contains("java.lang.IllegalStateException");
        assertThat(result.toString()).doesNotContain("secret-token-4711").doesNotContain("/srv/private");
    }

    @Test
    void aBrokenStoreIsAFixedJsonRpcInternalErrorWithNoExceptionMessageForListedAndUnlistedNames() throws Exception {
        ToolCallStore broken = new ToolCallStore() {
            @Override
            public void markStarted(ToolCallStart start) {
                throw new IllegalStateException("jdbc:postgresql://db.internal password=hunter2");
            }

            @Override
            public void complete(ToolCallRecord record) {
                throw new IllegalStateException("jdbc:postgresql://db.internal password=hunter2");
            }

            @Override
            public void append(ToolCallRecord record) {
                throw new IllegalStateException("jdbc:postgresql://db.internal password=hunter2");
            }
        };
        Wire w = serve(broken);
        for (String name : List.of("read_note", "no_such_tool")) {
            JsonNode response = w.request("tools/call", callParams(name, "{\"path\":\"today.md\"}"));
            assertThat(response.get("error").get("code").asInt()).as(response.toString()).isEqualTo(-32603);
            assertThat(response.get("error").get("message").asString()).isEqualTo(ToolCalls.INTERNAL_ERROR_TEXT);
            assertThat(response.toString()).doesNotContain("hunter2").doesNotContain("db.internal");
        }
        assertThat(StoreFailureException.class).isAssignableTo(RuntimeException.class);
    }

    @Test
    void buildRefusesAMissingContextAndAnEmptyRegistry() throws Exception {
        ToolRegistry registry = registry();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_note")).store(store).build();
        McpServerTransportProvider unused = new StdioServerTransportProvider(McpJsonDefaults.getMapper(),
                new PipedInputStream(), new java.io.ByteArrayOutputStream());
        assertThatThrownBy(() -> ToolYardMcpServer.builder(executor, registry).build(unused))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("contextFor is required");
        ToolRegistry empty = new ToolRegistry();
        ToolExecutor none = ToolExecutor.builder(empty, new PathContainment()).allowlist(Set.of()).store(store).build();
        Function<String, ToolContext> context = s -> ToolContext.of("x", SandboxPaths.of(tmp));
        assertThatThrownBy(() -> ToolYardMcpServer.builder(none, empty).contextFor(context).build(unused))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("registry has no tools");
    }

    private static ObjectNode callParams(String name, String argumentsJson) {
        ObjectNode params = JSON.createObjectNode().put("name", name);
        params.set("arguments", JSON.readTree(argumentsJson));
        return params;
    }

    /** Both ends of a stdio transport, in process. */
    static final class Wire implements AutoCloseable {
        private final PipedOutputStream toServer = new PipedOutputStream();
        private final PipedInputStream serverIn;
        private final PipedInputStream fromServer = new PipedInputStream(1 << 20);
        private final PipedOutputStream serverOut;
        private final BufferedReader reader;
        private int nextId = 1;
        McpSyncServer server;

        Wire() throws IOException {
            serverIn = new PipedInputStream(toServer, 1 << 20);
            serverOut = new PipedOutputStream(fromServer);
            reader = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8));
        }

        McpServerTransportProvider transport() {
            return new StdioServerTransportProvider(McpJsonDefaults.getMapper(), serverIn, serverOut);
        }

        void initialize() throws IOException {
            ObjectNode params = JSON.createObjectNode().put("protocolVersion", "2025-11-25");
            params.putObject("capabilities");
            params.putObject("clientInfo").put("name", "test").put("version", "1");
            JsonNode init = request("initialize", params);
            assertThat(init.get("result").get("serverInfo")).isNotNull();
            send(JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
        }

        JsonNode call(String name, String argumentsJson) throws IOException {
            JsonNode response = request("tools/call", callParams(name, argumentsJson));
            assertThat(response.has("result")).as(response.toString()).isTrue();
            return response.get("result");
        }

        JsonNode request(String method, ObjectNode params) throws IOException {
            int id = nextId++;
            ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
            message.set("params", params);
            send(message);
            while (true) {
                String line = reader.readLine();
                assertThat(line).as("the server closed its output").isNotNull();
                JsonNode answer = JSON.readTree(line);
                if (answer.has("id") && answer.get("id").asInt() == id) {
                    return answer;
                }
            }
        }

        int lastId() {
            return nextId - 1;
        }

        private void send(JsonNode message) throws IOException {
            toServer.write((JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8));
            toServer.flush();
        }

        @Override
        public void close() throws IOException {
            if (server != null) {
                server.closeGracefully();
            }
            toServer.close();
        }
    }
}
