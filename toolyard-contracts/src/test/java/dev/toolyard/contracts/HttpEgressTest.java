package dev.toolyard.contracts;

import dev.toolyard.builtins.HttpEgress;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.spi.Json;
import dev.toolyard.spi.Text;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The [http] backend through http_fetch's egress checks, against MockWebServer on loopback, with a
 * scripted resolver (api.test answers 127.0.0.1) and sockets that refuse anything but the server.
 */
@Timeout(60)
class HttpEgressTest {
    @TempDir
    Path work;

    private MockWebServer server;
    private LoopbackOnlySockets sockets;
    private final InMemoryToolCallStore store = new InMemoryToolCallStore();
    private final Resolver resolver = host -> {
        if (host.equals("api.test")) {
            return List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
        }
        if (host.equals("meta.test")) {
            return List.of(InetAddress.getByAddress(host, new byte[] {(byte) 169, (byte) 254, (byte) 169, (byte) 254}));
        }
        throw new UnknownHostException("not scripted: " + host);
    };

    @BeforeEach
    void start() throws Exception {
        server = new MockWebServer();
        server.start(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0);
        sockets = LoopbackOnlySockets.onPorts(server.getPort());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private String manifest(String method, String url, String extra) {
        return """
                [tool]
                name = "search_api"
                description = "Search the test API"

                [args.q]
                type = "string"
                required = true
                allow_whitespace = false

                [args.limit]
                type = "integer"
                min = 1
                max = 50
                default = 10

                [http]
                method = "%s"
                url = "%s"
                %s

                [output]
                format = "json"

                [output.schema]
                type = "object"
                required = ["hits"]
                """.formatted(method, url, extra);
    }

    private ToolResult call(String manifest, String args) {
        Tool tool = ToolContract.parse(manifest).bindHttp(HttpEgress.of(List.of("api.test", "127.0.0.1", "meta.test"),
                resolver, FetchLimits.defaults(), sockets), Scope.none());
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("search_api"))
                .store(store).build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work))
                .egressCeiling(dev.toolyard.EgressClass.ALLOWLISTED).build();
        return executor.execute(ToolCallRequest.of("search_api", args), ctx);
    }

    private String url(String path) {
        return "http://api.test:" + server.getPort() + path;
    }

    @Test
    void theRequestIsBuiltFromTheTemplateAndTheEnvelopeKeepsTheUnexpandedUrl() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json")
                .body("{\"hits\":[1,2]}").build());
        String template = url("/search?q={q}&limit={limit}");
        ToolResult r = call(manifest("GET", template, ""), "{\"q\":\"a/b%c\",\"limit\":\"7\"}");
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.OK);
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getTarget()).isEqualTo("/search?q=a%2Fb%25c&limit=7");
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("command").stringValue()).isEqualTo("GET " + template);
        assertThat(e.get("http_status").intValue()).isEqualTo(200);
        assertThat(e.get("results").toString()).isEqualTo("{\"hits\":[1,2]}");
        assertThat(e.get("output_hash").stringValue()).isEqualTo("sha256:" + Text.sha256("{\"hits\":[1,2]}"));
    }

    @Test
    void aBodyTemplateGetsJsonEscapedValues() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json").body("{\"hits\":[]}")
                .build());
        String m = manifest("POST", url("/index"), "body_template = '{\"query\": \"{q}\", \"n\": {limit}}'\n"
                + "headers = { \"Content-Type\" = \"application/json\" }");
        ToolResult r = call(m, "{\"q\":\"x}y\"}");
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.REFUSED); // '}' is a metacharacter
        r = call(m, "{\"q\":\"caf\u00e9\"}");
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.OK);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getBody().utf8()).isEqualTo("{\"query\": \"caf\u00e9\", \"n\": 10}");
    }

    @Test
    void redirectsAreNotFollowed() throws Exception {
        server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "http://api.test/elsewhere").build());
        ToolResult r = call(manifest("GET", url("/search?q={q}"), ""), "{\"q\":\"x\"}");
        assertThat(Json.MAPPER.readTree(r.content()).get("status").stringValue()).isEqualTo("redirect_blocked");
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void clientErrorsReachTheModelSoItCanCorrectItself() throws Exception {
        server.enqueue(new MockResponse.Builder().code(404).addHeader("Content-Type", "text/plain").body("no").build());
        ToolResult r = call(manifest("GET", url("/search?q={q}"), ""), "{\"q\":\"x\"}");
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("status").stringValue()).isEqualTo("client_error");
        assertThat(e.at("/results/raw_output").stringValue()).isEqualTo("no");
    }

    @Test
    void aResponseBreakingTheOutputSchemaIsResultInvalid() {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json").body("{\"nope\":1}")
                .build());
        ToolResult r = call(manifest("GET", url("/s?q={q}"), ""), "{\"q\":\"x\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("result_invalid");
        assertThat(r.reasonDetail()).startsWith("$: fails \"required\"").contains("raw output sha256:")
                .doesNotContain("nope");
        assertThat(r.content()).doesNotContain("nope");
        List<ToolCallRecord> records = store.records();
        assertThat(records.get(records.size() - 1).summary()).isEqualTo("{\"nope\":1}");
    }

    @Test
    void theEgressChecksOfHttpFetchApplyBeforeAnySocket() {
        ToolResult r = call(manifest("GET", "http://other.test:" + server.getPort() + "/?q={q}", ""), "{\"q\":\"x\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("host_not_allowed");
        r = call(manifest("GET", "http://169.254.169.254/?q={q}", ""), "{\"q\":\"x\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("link_local_address");
        r = call(manifest("GET", "http://meta.test/?q={q}", ""), "{\"q\":\"x\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("link_local_address");
        assertThat(sockets.attempts()).isEmpty();
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void theToolNeedsAnAllowlistedEgressCeiling() {
        Tool tool = ToolContract.parse(manifest("GET", url("/?q={q}"), "")).bindHttp(HttpEgress.of(List.of(), resolver,
                FetchLimits.defaults(), sockets), Scope.none());
        assertThat(tool.spec().egress()).isEqualTo(dev.toolyard.EgressClass.ALLOWLISTED);
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("search_api"))
                .store(store).build();
        // the context's default ceiling is NONE: no request is sent, not even built
        ToolResult r = executor.execute(ToolCallRequest.of("search_api", "{\"q\":\"x\"}"),
                ToolContext.of("inv", SandboxPaths.of(work)));
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("egress_not_permitted");
        assertThat(sockets.attempts()).isEmpty();
        assertThat(server.getRequestCount()).isZero();
    }
}
