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
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, Main.class.getName()));
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
        assertThat(names).containsExactly("http_fetch", "list_dir", "read_file", "run_command", "write_file");
        JsonNode readFile = out.get("tools").get(2).get("inputSchema");
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
            assertThat(four).extracting(ToolCallRecord::reason)
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
            assertThat(records.byInvocation("by-hand")).extracting(ToolCallRecord::reason)
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
