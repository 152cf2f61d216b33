package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code toolyard mcp} as a client runs it: a child JVM on this module's class path, spoken to over its
 * real stdin and stdout, by the official TypeScript client ({@code src/test/mcp-client}, installed by
 * {@code .ci/setup-mcp-client.sh}) and by hand-written JSON-RPC lines.
 */
@Timeout(180) // a hang guard only
class McpCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path CLIENT = Path.of("src/test/mcp-client").toAbsolutePath();
    private static final String CLIENT_VERSION = "1.32.2";

    @TempDir
    Path tmp;

    /** The java command line that starts the CLI's main class with this test's class path. */
    private static List<String> serverCommand(String... args) {
        return serverCommand(List.of(), args);
    }

    /** As {@link #serverCommand(String...)}, with options for the child JVM before its main class. */
    private static List<String> serverCommand(List<String> jvmOptions, String... args) {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, Main.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private Path workspace() throws IOException {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("notes.md"), "Ship 0.1.0.\n");
        return ws;
    }

    @Test
    void theOfficialTypeScriptClientListsToolsAndEachOfFourCallsEndsAndIsRecordedAsToolYardDecided() throws Exception {
        String node = requireNodeAndClient();
        Path ws = workspace();
        Path store = tmp.resolve("records.db");
        ObjectNode config = JSON.createObjectNode();
        config.put("command", serverCommand().get(0));
        ArrayNode args = config.putArray("args");
        serverCommand("mcp", "--workspace", ws.toString(), "--store", store.toString(), "--invocation", "ts-client")
                .stream().skip(1).forEach(args::add);
        ArrayNode calls = config.putArray("calls");
        addCall(calls, "ok", "read_file", "{\"path\":\"notes.md\"}");
        addCall(calls, "refused", "read_file", "{\"path\":\"../../../etc/passwd\"}");
        addCall(calls, "unknown", "delete_everything", "{\"path\":\"/\"}");
        addCall(calls, "badArgs", "read_file", "{\"path\":42,\"mode\":\"rw\"}");

        Run client = run(List.of(node, CLIENT.resolve("client.mjs").toString(), JSON.writeValueAsString(config)), CLIENT, null);
        assertThat(client.exit()).as(client.err()).isZero();
        JsonNode out = JSON.readTree(client.out());
        assertThat(out.get("clientErrors")).as("the client read only JSON-RPC on the server's stdout; server stderr:\n"
                + out.get("serverStderr").asString()).isEmpty();
        assertThat(out.get("serverInfo").get("name").asString()).isEqualTo("toolyard");
        assertThat(out.get("serverStderr").asString()).contains("every call is recorded in " + store);

        List<String> names = new ArrayList<>();
        out.get("tools").forEach(t -> names.add(t.get("name").asString()));
        assertThat(names).as("no --allow-host: no fetch tool").containsExactly("list_dir", "read_file", "run_command", "write_file");
        JsonNode readFile = out.get("tools").get(1).get("inputSchema");
        assertThat(readFile).isEqualTo(JSON.readTree(BuiltinTools.readFile().spec().argsSchema()));

        JsonNode ok = out.get("calls").get("ok").get("result");
        assertThat(ok.get("isError").asBoolean()).isFalse();
        assertThat(ok.get("content").get(0).get("text").asString()).isEqualTo("Ship 0.1.0.\n");
        Map<String, String> expected = Map.of("refused", "path_escape", "unknown", "unknown_tool", "badArgs", "args_invalid");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            JsonNode result = out.get("calls").get(e.getKey()).get("result");
            assertThat(result).as(e.getKey() + ": " + out.get("calls").get(e.getKey())).isNotNull();
            assertThat(result.get("isError").asBoolean()).isTrue();
            assertThat(result.get("_meta").get("dev.toolyard/reason").asString()).isEqualTo(e.getValue());
            assertThat(result.get("content").get(0).get("text").asString()).contains(e.getValue()).doesNotContain(ws.toString());
        }

        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(store)) {
            List<ToolCallRecord> four = records.byInvocation("ts-client");
            assertThat(four).extracting(ToolCallRecord::toolName)
                    .containsExactly("read_file", "read_file", "delete_everything", "read_file");
            assertThat(four).extracting(ToolCallRecord::status)
                    .containsExactly(ToolStatus.OK, ToolStatus.REFUSED, ToolStatus.REFUSED, ToolStatus.REFUSED);
            assertThat(four).extracting(rec -> rec.reason().orElse(null))
                    .containsExactly(null, Reason.PATH_ESCAPE, Reason.UNKNOWN_TOOL, Reason.ARGS_INVALID);
            assertThat(four.get(0).callId()).isEqualTo(ok.get("_meta").get("dev.toolyard/callId").asString());
            assertThat(four).extracting(ToolCallRecord::requestCallId).as("each call's JSON-RPC id").doesNotHaveDuplicates()
                    .allSatisfy(id -> assertThat(id).matches("[0-9]+"));
        }
    }

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"sh\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    private static String toolsCall(int id, String name, String argumentsJson) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + name
                + "\",\"arguments\":" + argumentsJson + "}}";
    }

    /** Runs {@code toolyard mcp} with hand-written lines; stdin stays open until every request is answered. */
    private Run byHand(List<String> lines, String... args) throws Exception {
        int requests = (int) lines.stream().filter(l -> l.contains("\"id\":")).count();
        List<String> command = new ArrayList<>(List.of("mcp"));
        command.addAll(List.of(args));
        // Answers come back before stdin closes: the SDK drops what is still unsent once its input ends.
        return run(serverCommand(command.toArray(String[]::new)), tmp, new ExpectAnswers(String.join("\n", lines) + "\n", requests));
    }

    /** As {@link #byHand}, for input whose answers are not one per line with an id (errors with a null id). */
    private Run byHandExpecting(List<String> lines, int answers, List<String> jvmOptions, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("mcp"));
        command.addAll(List.of(args));
        return run(serverCommand(jvmOptions, command.toArray(String[]::new)), tmp,
                new ExpectAnswers(String.join("\n", lines) + "\n", answers));
    }

    private static Map<Integer, JsonNode> answersById(Run run) {
        Map<Integer, JsonNode> byId = new java.util.HashMap<>();
        run.out().lines().forEach(line -> byId.put(JSON.readTree(line).get("id").asInt(), JSON.readTree(line)));
        return byId;
    }

    @Test
    void stdoutCarriesOnlyJsonRpcLinesAndTheDefaultStoreSitsBesideTheWorkspaceNamedOnStderr() throws Exception {
        Path ws = workspace();
        Run server = byHand(List.of(INITIALIZE, INITIALIZED, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                toolsCall(3, "list_dir", "{\"path\":\".\"}"), toolsCall(4, "rm_rf", "{}")),
                "--workspace", ws.toString(), "--invocation", "by-hand");
        assertThat(server.exit()).as(server.err()).isZero();
        List<String> lines = server.out().lines().toList();
        assertThat(lines).hasSize(4);
        for (String line : lines) {
            JsonNode message = JSON.readTree(line);
            assertThat(message.get("jsonrpc").asString()).as(line).isEqualTo("2.0");
            assertThat(message.has("result") || message.has("error")).as(line).isTrue();
        }
        Path defaultStore = ws.toRealPath().resolveSibling("ws.toolyard.db");
        assertThat(server.err()).contains("every call is recorded in " + defaultStore);
        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(defaultStore)) {
            // both calls were in flight at once, so either may be first on disk
            assertThat(records.byInvocation("by-hand")).extracting(rec -> rec.reason().orElse(null))
                    .containsExactlyInAnyOrder(null, Reason.UNKNOWN_TOOL);
        }
    }

    @Test
    void allowHostIsHttpFetchsAllowlist() throws Exception {
        Path ws = workspace();
        HttpServer docs = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        docs.createContext("/", exchange -> {
            byte[] body = "loopback docs\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
            }
        });
        docs.start();
        try {
            int port = docs.getAddress().getPort();
            // With no --allow-host both are loopback and allowed; with it, only the host it names.
            Run server = byHand(List.of(INITIALIZE, INITIALIZED,
                    toolsCall(2, "http_fetch", "{\"url\":\"http://127.0.0.1:" + port + "/\"}"),
                    toolsCall(3, "http_fetch", "{\"url\":\"http://127.0.0.2:" + port + "/\"}")),
                    "--workspace", ws.toString(), "--store", tmp.resolve("fetch.db").toString(), "--allow-host", "127.0.0.1");
            Map<Integer, JsonNode> answers = answersById(server);
            assertThat(answers.get(2).get("result").get("content").get(0).get("text").asString()).as(server.err())
                    .contains("loopback docs");
            assertThat(answers.get(3).get("result").get("_meta").get("dev.toolyard/reason").asString())
                    .isEqualTo("host_not_allowed");
        } finally {
            docs.stop(0);
        }
    }

    @Test
    void aStoreInsideTheWorkspaceOrAMissingWorkspaceIsAUserMistakeWithNothingOnStdout() throws Exception {
        Path ws = workspace();
        Path link = Files.createSymbolicLink(tmp.resolve("looks-outside"), ws);
        for (String[] args : new String[][] {
                {"mcp", "--workspace", ws.toString(), "--store", ws.resolve("sub/records.db").toString()},
                {"mcp", "--workspace", ws.toString(), "--store", link.resolve("records.db").toString()},
                {"mcp", "--workspace", tmp.resolve("missing").toString()}}) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
            assertThat(exit).isEqualTo(Main.USAGE);
            assertThat(out.toString()).isEmpty();
            assertThat(err.toString().strip()).startsWith("toolyard: ").doesNotContain("\n");
        }
    }

    /** A loopback service holding a secret, counting the requests that reached it. */
    private record SecretService(HttpServer server, java.util.concurrent.atomic.AtomicInteger hits) implements AutoCloseable {
        static SecretService start() throws IOException {
            java.util.concurrent.atomic.AtomicInteger hits = new java.util.concurrent.atomic.AtomicInteger();
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
            server.createContext("/", exchange -> {
                hits.incrementAndGet();
                byte[] body = "{\"admin_token\":\"s3cr3t\"}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(body);
                }
            });
            server.start();
            return new SecretService(server, hits);
        }

        int port() {
            return server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    void withoutAllowHostThereIsNoFetchToolAndAnotherAllowedHostNeverAddsLoopback() throws Exception {
        Path ws = workspace();
        // The child JVM resolves through the JDK's own resolver, pointed at a hosts file: example.test and
        // localhost are loopback, and any other name resolves to nothing (no DNS query leaves the machine).
        Path hosts = Files.writeString(tmp.resolve("hosts"), "127.0.0.1 example.test\n127.0.0.1 localhost\n");
        List<String> resolver = List.of("-Djdk.net.hosts.file=" + hosts);
        try (SecretService secret = SecretService.start()) {
            int port = secret.port();
            String[] urls = {"http://127.0.0.1:" + port + "/", "http://localhost:" + port + "/",
                    "http://example.test:" + port + "/", "http://[::1]:" + port + "/", "http://127.0.0.2:" + port + "/"};
            List<String> lines = new ArrayList<>(List.of(INITIALIZE, INITIALIZED, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"));
            for (int i = 0; i < urls.length; i++) {
                lines.add(toolsCall(10 + i, "http_fetch", "{\"url\":\"" + urls[i] + "\"}"));
            }

            Run none = byHandExpecting(lines, lines.size() - 1, resolver, "--workspace", ws.toString(),
                    "--store", tmp.resolve("none.db").toString(), "--invocation", "no-hosts");
            Map<Integer, JsonNode> answers = answersById(none);
            List<String> listed = new ArrayList<>();
            answers.get(2).get("result").get("tools").forEach(t -> listed.add(t.get("name").asString()));
            assertThat(listed).as(none.err()).doesNotContain("http_fetch").contains("read_file", "write_file");
            for (int i = 0; i < urls.length; i++) {
                JsonNode result = answers.get(10 + i).get("result");
                assertThat(result.get("_meta").get("dev.toolyard/reason").asString()).as(urls[i]).isEqualTo("unknown_tool");
                assertThat(result.toString()).doesNotContain("s3cr3t");
            }
            assertThat(none.err()).contains("no http_fetch: no --allow-host was given");

            Run other = byHandExpecting(lines, lines.size() - 1, resolver, "--workspace", ws.toString(),
                    "--store", tmp.resolve("other.db").toString(), "--invocation", "other-host", "--allow-host", "example.test");
            answers = answersById(other);
            listed.clear();
            answers.get(2).get("result").get("tools").forEach(t -> listed.add(t.get("name").asString()));
            assertThat(listed).contains("http_fetch");
            for (int i = 0; i < urls.length; i++) {
                JsonNode result = answers.get(10 + i).get("result");
                assertThat(result.get("isError").asBoolean()).as(urls[i] + ": " + result).isTrue();
                assertThat(result.get("_meta").get("dev.toolyard/reason").asString()).as(urls[i])
                        .isEqualTo("host_not_allowed");
                assertThat(result.toString()).doesNotContain("s3cr3t");
            }
            assertThat(secret.hits().get()).as("no request reached the loopback service").isZero();
            try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("other.db"))) {
                assertThat(records.byInvocation("other-host")).hasSize(urls.length)
                        .allSatisfy(r -> assertThat(r.reason()).contains(Reason.HOST_NOT_ALLOWED));
            }

            Run named = byHandExpecting(List.of(INITIALIZE, INITIALIZED,
                    toolsCall(10, "http_fetch", "{\"url\":\"http://127.0.0.1:" + port + "/\"}"),
                    toolsCall(11, "http_fetch", "{\"url\":\"http://localhost:" + port + "/\"}")), 3, resolver,
                    "--workspace", ws.toString(), "--store", tmp.resolve("named.db").toString(), "--allow-host", "127.0.0.1");
            answers = answersById(named);
            assertThat(answers.get(10).get("result").get("content").get(0).get("text").asString()).as(named.err())
                    .contains("s3cr3t");
            assertThat(answers.get(11).get("result").get("_meta").get("dev.toolyard/reason").asString())
                    .as("localhost is not 127.0.0.1 by name: it is reached only when named itself").isEqualTo("host_not_allowed");
        }
    }

    /** The TypeScript client makes one write_file call (and one run_command) with the given elicitation behaviour. */
    private JsonNode approvalRun(String elicitation, String store, String invocation, String... extra) throws Exception {
        String node = requireNodeAndClient();
        Path ws = workspace();
        ObjectNode config = JSON.createObjectNode();
        config.put("command", serverCommand().get(0));
        ArrayNode args = config.putArray("args");
        List<String> server = new ArrayList<>(List.of("mcp", "--workspace", ws.toString(), "--store",
                tmp.resolve(store).toString(), "--invocation", invocation));
        server.addAll(List.of(extra));
        serverCommand(server.toArray(String[]::new)).stream().skip(1).forEach(args::add);
        if (elicitation != null) {
            config.put("elicitation", elicitation);
        }
        ArrayNode calls = config.putArray("calls");
        addCall(calls, "write", "write_file", "{\"path\":\"approved.txt\",\"content\":\"written\\u001b[2J\"}");
        Run client = run(List.of(node, CLIENT.resolve("client.mjs").toString(), JSON.writeValueAsString(config)), CLIENT, null);
        assertThat(client.exit()).as(client.err()).isZero();
        JsonNode out = JSON.readTree(client.out());
        assertThat(out.get("clientErrors")).as(out.get("serverStderr").asString()).isEmpty();
        return out;
    }

    @Test
    void aWriteIsAskedAboutThroughElicitationAndRunsOnlyWhenTheUserAccepts() throws Exception {
        JsonNode out = approvalRun("accept", "accept.db", "elicit-accept");
        JsonNode write = out.get("calls").get("write").get("result");
        assertThat(write.get("isError").asBoolean()).as(write.toString()).isFalse();
        assertThat(Files.readString(tmp.resolve("ws/approved.txt"))).isEqualTo("written\u001b[2J");
        assertThat(out.get("elicitations")).hasSize(1);
        JsonNode asked = out.get("elicitations").get(0);
        assertThat(asked.get("message").asString()).contains("write_file").contains("approved.txt")
                .doesNotContain("\u001b");
        assertThat(asked.get("requestedSchema").get("required").get(0).asString()).isEqualTo("approve");
        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("accept.db"))) {
            ToolCallRecord r = records.byInvocation("elicit-accept").get(0);
            assertThat(r.status()).isEqualTo(ToolStatus.OK);
            assertThat(r.approver()).isEqualTo("mcp-elicitation (toolyard-mcp-client-test)");
        }
    }

    @Test
    void aWriteTheUserDeclinesIsDeniedRecordedAndNeverRuns() throws Exception {
        for (String action : List.of("decline", "cancel")) {
            JsonNode out = approvalRun(action, action + ".db", "elicit-" + action);
            JsonNode write = out.get("calls").get("write").get("result");
            assertThat(write.get("_meta").get("dev.toolyard/reason").asString()).as(action).isEqualTo("approval_denied");
            assertThat(out.get("elicitations")).hasSize(1);
            assertThat(tmp.resolve("ws/approved.txt")).doesNotExist();
            try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve(action + ".db"))) {
                ToolCallRecord r = records.byInvocation("elicit-" + action).get(0);
                assertThat(r.reason()).contains(Reason.APPROVAL_DENIED);
                assertThat(r.approver()).isEqualTo("mcp-elicitation (toolyard-mcp-client-test)");
            }
        }
    }

    @Test
    void aClientWithoutElicitationGetsEveryWriteDeniedUnlessApproveWasGiven() throws Exception {
        JsonNode denied = approvalRun(null, "nocap.db", "no-capability");
        JsonNode write = denied.get("calls").get("write").get("result");
        assertThat(write.get("_meta").get("dev.toolyard/reason").asString()).isEqualTo("approval_denied");
        assertThat(denied.get("elicitations")).isEmpty();
        assertThat(tmp.resolve("ws/approved.txt")).doesNotExist();
        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("nocap.db"))) {
            ToolCallRecord r = records.byInvocation("no-capability").get(0);
            assertThat(r.reason()).contains(Reason.APPROVAL_DENIED);
            assertThat(r.reasonDetail()).contains("did not declare MCP elicitation").contains("--approve");
        }

        JsonNode approved = approvalRun(null, "approve.db", "pre-approved", "--approve");
        assertThat(approved.get("calls").get("write").get("result").get("isError").asBoolean()).isFalse();
        assertThat(approved.get("elicitations")).isEmpty();
        assertThat(tmp.resolve("ws/approved.txt")).exists();
        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("approve.db"))) {
            assertThat(records.byInvocation("pre-approved").get(0).approver()).startsWith("cli --approve");
        }
    }

    @Test
    void noMalformedLineEndsTheSessionEachGetsItsJsonRpcErrorAndEveryCallIsAnsweredAndRecorded() throws Exception {
        Path ws = workspace();
        String deep500 = "[".repeat(500) + "]".repeat(500);
        String deep100 = "{\"a\":".repeat(100) + "1" + "}".repeat(100);
        String huge = "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\"arguments\":"
                + "{\"path\":\"big.txt\",\"content\":\"" + "x".repeat(17 * 1024 * 1024) + "\"}},\"id\":40}";
        List<String> lines = List.of(INITIALIZE, INITIALIZED,
                toolsCall(2, "list_dir", "{\"path\":\".\"}"),                              // in flight as the bad lines come
                "{this is not json",
                "",
                "[" + toolsCall(3, "read_file", "{\"path\":\"notes.md\"}") + "]",
                "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"tools/list\"}",
                huge,
                toolsCall(41, "read_file", "{\"path\":" + deep500 + "}"),
                toolsCall(42, "read_file", "{\"path\":\"notes.md\",\"x\":" + deep100 + "}"),
                "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"tools/call\",\"params\":[\"read_file\",{}]}",
                "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"tools/call\",\"params\":{\"name\":{\"x\":1},\"arguments\":{}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":45,\"method\":\"tools/call\",\"params\":\"read_file\"}",
                toolsCall(50, "read_file", "{\"path\":\"notes.md\"}"));
        Run server = byHandExpecting(lines, lines.size() - 1, List.of(), "--workspace", ws.toString(),
                "--store", tmp.resolve("hostile.db").toString(), "--invocation", "hostile");
        assertThat(server.exit()).as(server.err()).isZero();
        List<JsonNode> answers = server.out().lines().map(JSON::readTree).toList();
        assertThat(answers).as(server.err()).hasSize(lines.size() - 1);
        List<JsonNode> nullIds = answers.stream().filter(a -> a.get("id").isNull()).toList();
        assertThat(nullIds).extracting(a -> a.get("error").get("code").asInt())
                .containsExactlyInAnyOrder(-32700, -32700, -32600);
        JsonNode fractional = answers.stream().filter(a -> a.get("id").isNumber() && a.get("id").asDouble() == 1.5)
                .findFirst().orElseThrow();
        assertThat(fractional.get("error").get("code").asInt()).isEqualTo(-32600);
        Map<Integer, JsonNode> byId = new java.util.HashMap<>();
        answers.stream().filter(a -> a.get("id").isIntegralNumber()).forEach(a -> byId.put(a.get("id").asInt(), a));

        assertThat(byId.get(2).get("result").get("isError").asBoolean()).isFalse();
        assertThat(byId.get(50).get("result").get("content").get(0).get("text").asString()).isEqualTo("Ship 0.1.0.\n");
        JsonNode big = byId.get(40).get("result");
        assertThat(big.get("_meta").get("dev.toolyard/reason").asString()).isEqualTo("args_invalid");
        assertThat(big.get("content").get(0).get("text").asString()).contains("over this server's limit of 16777216 bytes");
        for (int id : List.of(41, 42)) {
            JsonNode deep = byId.get(id).get("result");
            assertThat(deep.get("_meta").get("dev.toolyard/reason").asString()).isEqualTo("args_invalid");
            assertThat(deep.get("content").get(0).get("text").asString()).contains("nest deeper than");
        }
        for (int id : List.of(43, 44, 45)) {
            JsonNode error = byId.get(id).get("error");
            assertThat(error.get("code").asInt()).as(byId.get(id).toString()).isEqualTo(-32602);
            assertThat(error.get("message").asString()).isEqualTo(
                    "Invalid params: tools/call needs params that are an object with a string \"name\"; the call was"
                            + " refused and recorded");
            assertThat(error.get("data").get("dev.toolyard/callId").asString()).isNotEmpty();
        }
        for (JsonNode answer : answers) {
            assertThat(answer.toString()).doesNotContainIgnoringCase("jackson").doesNotContain("Exception")
                    .doesNotContain("tools.jackson").doesNotContain("StreamConstraints");
        }
        assertThat(tmp.resolve("ws/big.txt")).doesNotExist();

        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("hostile.db"))) {
            Map<String, ToolCallRecord> byRequest = new java.util.HashMap<>();
            records.byInvocation("hostile").forEach(r -> byRequest.put(r.requestCallId(), r));
            assertThat(byRequest.keySet()).containsExactlyInAnyOrder("2", "40", "41", "42", "43", "44", "45", "50");
            assertThat(byRequest.get("40").toolName()).isEqualTo("write_file");
            assertThat(byRequest.get("40").reason()).contains(Reason.ARGS_INVALID);
            assertThat(byRequest.get("40").arguments()).contains("over this server's limit");
            assertThat(byRequest.get("42").reasonDetail()).isEqualTo("arguments nest deeper than 64")
                    .doesNotContain("Jackson").doesNotContain("StreamReadConstraints");
            assertThat(byRequest.get("44").toolName()).isEqualTo("{\"x\":1}");
            assertThat(byRequest.get("43").reason()).contains(Reason.UNKNOWN_TOOL);
        }
    }

    /** Processes whose command line holds the marker, as {@code pid uid cmdline} lines. */
    private static List<String> processesWith(String marker) throws IOException {
        List<String> found = new ArrayList<>();
        try (var entries = Files.list(Path.of("/proc"))) {
            for (Path dir : entries.filter(d -> d.getFileName().toString().matches("[0-9]+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8)
                            .replace('\0', ' ');
                    if (cmdline.contains(marker)) {
                        String uid = Files.readAllLines(dir.resolve("status")).stream().filter(l -> l.startsWith("Uid:"))
                                .findFirst().orElse("Uid: ?");
                        found.add(dir.getFileName() + " " + uid.split("\\s+")[1] + " " + cmdline.strip());
                    }
                } catch (IOException gone) {
                    // the process ended while it was read
                }
            }
        }
        return found;
    }

    @Test
    void whenTheClientClosesStdinMidCommandTheCommandTreeIsKilledRecordedAndWritesNothingLater() throws Exception {
        Engines.require(dev.toolyard.sandbox.TieredSandbox.searchPath().apply("bwrap").isPresent(),
                "bubblewrap is not installed (apt-get install bubblewrap)");
        Path ws = workspace();
        String marker = "7.31" + ProcessHandle.current().pid(); // a sleep no other process runs
        String script = "echo started > started.txt; (sleep " + marker + "; echo late > late-child.txt) & sleep " + marker
                + "; echo late > late.txt";
        Process p = new ProcessBuilder(serverCommand("mcp", "--workspace", ws.toString(), "--store",
                tmp.resolve("cancel.db").toString(), "--invocation", "cancelled", "--timeout", "60", "--approve",
                "--tier", "bwrap"))
                .directory(tmp.toFile()).redirectError(tmp.resolve("server.err").toFile()).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        OutputStream stdin = p.getOutputStream();
        stdin.write((INITIALIZE + "\n" + INITIALIZED + "\n" + toolsCall(2, "run_command",
                "{\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}") + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(ws.resolve("started.txt")) && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertThat(ws.resolve("started.txt")).as(Files.readString(tmp.resolve("server.err"))).exists();
        assertThat(processesWith(marker)).as("the command's tree runs while the session lasts").hasSizeGreaterThanOrEqualTo(2);

        stdin.close(); // the client goes away mid-command
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the server exits once the session ended").isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("server.err"))).isZero();
        assertThat(processesWith(marker)).as("no process of the command outlives the server").isEmpty();
        Thread.sleep(TimeUnit.MILLISECONDS.convert(9, TimeUnit.SECONDS)); // past the command's own sleep
        assertThat(processesWith(marker)).isEmpty();
        assertThat(ws.resolve("late.txt")).doesNotExist();
        assertThat(ws.resolve("late-child.txt")).doesNotExist();
        assertThat(out.get(30, TimeUnit.SECONDS)).doesNotContain("late");

        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(tmp.resolve("cancel.db"))) {
            List<ToolCallRecord> all = records.byInvocation("cancelled");
            assertThat(all).hasSize(1);
            ToolCallRecord r = all.get(0);
            assertThat(r.status()).as(r.toString()).isEqualTo(ToolStatus.FAILED);
            assertThat(r.reason()).contains(Reason.HANDLER_ERROR);
            assertThat(r.reasonDetail()).isEqualTo("java.lang.InterruptedException");
        }
        assertThat(Files.readString(tmp.resolve("server.err"))).contains("calls still running were cancelled");
    }

    private static void addCall(ArrayNode calls, String label, String name, String argumentsJson) {
        ObjectNode call = calls.addObject().put("label", label).put("name", name);
        call.set("arguments", JSON.readTree(argumentsJson));
    }

    /** @return the node command; skips loudly, or fails under CI=true, when node or the client is missing */
    private static String requireNodeAndClient() throws Exception {
        String why = null;
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                why = "node --version failed: " + version;
            }
        } catch (IOException e) {
            why = "node is not on the PATH";
        }
        Path pkg = CLIENT.resolve("node_modules/@modelcontextprotocol/sdk/package.json");
        if (why == null && (!Files.isRegularFile(pkg)
                || !JSON.readTree(Files.readString(pkg)).get("version").asString().equals(CLIENT_VERSION))) {
            why = "the MCP TypeScript client " + CLIENT_VERSION + " is not installed in " + CLIENT;
        }
        if (why != null) {
            Engines.require(false, "McpCommandTest: " + why + " (run bash .ci/setup-mcp-client.sh)");
        }
        return "node";
    }

    private record Run(int exit, String out, String err) {}

    /** Writes the input, keeps stdin open until {@code answers} lines came back on stdout, then closes it. */
    private record ExpectAnswers(String input, int answers) {}

    private static Run run(List<String> command, Path dir, ExpectAnswers feed) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        CompletableFuture<String> out;
        if (feed == null) {
            p.getOutputStream().close();
            out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        } else {
            OutputStream stdin = p.getOutputStream();
            stdin.write(feed.input().getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            out = CompletableFuture.supplyAsync(() -> {
                StringBuilder seen = new StringBuilder();
                try (InputStream in = p.getInputStream()) {
                    int b;
                    int lines = 0;
                    while ((b = in.read()) != -1) {
                        seen.append((char) b);
                        if (b == '\n' && ++lines == feed.answers()) {
                            stdin.close();
                        }
                    }
                } catch (IOException e) {
                    seen.append("<read failed: ").append(e).append('>');
                }
                return new String(seen.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
            });
        }
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("did not end within 150 s: " + command.get(0) + "\nstderr so far:\n" + err.getNow(""));
        }
        return new Run(p.exitValue(), out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS));
    }

    private static String drain(InputStream in) {
        try (in) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<read failed: " + e + ">";
        }
    }
}
