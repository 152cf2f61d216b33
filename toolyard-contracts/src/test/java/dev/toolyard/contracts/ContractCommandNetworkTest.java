package dev.toolyard.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.spi.Json;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A contract command given a {@link CommandNetwork} ({@link ToolContract#bindCommand(dev.toolyard.spi.Sandbox,
 * Scope, CommandNetwork)}): curl in the bubblewrap sandbox, through the relay and the proxy, to a server on
 * 127.0.0.1 reached as {@code api.test}, a name the scripted resolver answers. Nothing can leave loopback:
 * the proxy's sockets refuse any connect but the server's, and the sandbox has only its own loopback.
 */
@Tag("isolation")
@Timeout(120) // a hang guard only
class ContractCommandNetworkTest {
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

    /** A contract whose argv is fixed but for the URL, an enum: the model picks one of three names. */
    private ToolContract contract() {
        return ToolContract.parse("""
                [tool]
                name = "api_status"
                description = "Fetch the test API's status page"
                timeout_seconds = 30

                [args.url]
                type = "enum"
                allowed = ["http://api.test:%1$d/status", "http://evil.test:%1$d/status", "http://meta.test:%1$d/status"]
                required = true

                [command]
                exec = ["curl", "-sS", "--max-time", "10", "-w", "\\\\n%%{{http_code}}", "{url}"]

                [output]
                format = "text"
                """.formatted(server.getPort()));
    }

    private CommandNetwork network() {
        return CommandNetwork.builder(List.of("api.test:" + server.getPort(), "meta.test:" + server.getPort(), "127.0.0.1"),
                resolver).socketFactory(sockets).build();
    }

    private ToolResult call(Tool tool, TieredSandbox sandbox, String args, EgressClass ceiling) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of(tool.spec().name())).store(store)
                .build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(Duration.ofSeconds(60))
                .egressCeiling(ceiling).build();
        return executor.execute(ToolCallRequest.of(tool.spec().name(), args), ctx);
    }

    private String url(String host) {
        return "{\"url\":\"http://" + host + ":" + server.getPort() + "/status\"}";
    }

    private ToolCallRecord lastRecord() {
        List<ToolCallRecord> all = store.records();
        return all.get(all.size() - 1);
    }

    private static TieredSandbox networkedBwrap() {
        TieredSandbox sandbox = Manifests.bwrap();
        Manifests.require(sandbox.proxyRouteUnavailable().isEmpty(),
                "network for commands is unavailable: " + sandbox.proxyRouteUnavailable().orElse(""));
        return sandbox;
    }

    @Test
    void aNetworkedContractCommandReachesAnAllowlistedNameAndTheEnvelopeAndRecordSayWhere() throws Exception {
        Manifests.requireBinary("curl");
        TieredSandbox sandbox = networkedBwrap();
        server.enqueue(new MockResponse.Builder().body("api is up").build());
        Tool tool = contract().bindCommand(sandbox, Scope.none(), network());
        assertThat(tool.spec().egress()).isEqualTo(EgressClass.ALLOWLISTED);

        ToolResult r = call(tool, sandbox, url("api.test"), EgressClass.ALLOWLISTED);

        assertThat(r.status()).as(r.content() + r.reasonDetail()).isEqualTo(ToolStatus.OK);
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("status").stringValue()).as(r.content()).isEqualTo("success");
        assertThat(e.at("/results/raw_output").stringValue()).isEqualTo("api is up\n200");
        assertThat(e.get("network").toString()).contains("reached api.test:" + server.getPort() + " (127.0.0.1) x1");
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request).isNotNull();
        assertThat(request.getTarget()).isEqualTo("/status");
        assertThat(lastRecord().network()).startsWith("{\"connections\":1,\"refused\":0,")
                .contains("\"host\":\"api.test\",\"port\":" + server.getPort() + ",\"address\":\"127.0.0.1\",\"outcome\":\"reached\"");
        assertThat(sockets.attempts()).allSatisfy(a -> assertThat(a.getPort()).isEqualTo(server.getPort()));
    }

    @Test
    void aNameOffTheListAndAnAnswerInTheMetadataRangeGet403BeforeAnyConnect() throws Exception {
        Manifests.requireBinary("curl");
        TieredSandbox sandbox = networkedBwrap();
        Tool tool = contract().bindCommand(sandbox, Scope.none(), network());

        for (String[] c : new String[][] {{"evil.test", "host_not_allowed"}, {"meta.test", "link_local_address"}}) {
            ToolResult r = call(tool, sandbox, url(c[0]), EgressClass.ALLOWLISTED);
            assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
            JsonNode e = Json.MAPPER.readTree(r.content());
            assertThat(e.at("/results/raw_output").stringValue()).as(r.content()).endsWith("\n403");
            assertThat(e.get("network").toString()).contains(c[1] + " " + c[0] + ":" + server.getPort());
            assertThat(lastRecord().network()).contains("\"refused\":1", "\"outcome\":\"" + c[1] + "\"");
        }
        assertThat(sockets.attempts()).as("every refusal came before any connect").isEmpty();
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void theInvocationsEgressCeilingBoundsANetworkedContractAndAnOfflineBindingStaysNone() {
        TieredSandbox sandbox = Manifests.bwrap();
        Tool networked = contract().bindCommand(sandbox, Scope.none(), network());
        Tool offline = contract().bindCommand(sandbox, Scope.none());

        ToolResult r = call(networked, sandbox, url("api.test"), EgressClass.NONE);

        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason()).contains(Reason.EGRESS_NOT_PERMITTED);
        assertThat(server.getRequestCount()).isZero();
        assertThat(offline.spec().egress()).isEqualTo(EgressClass.NONE);
        assertThat(networked.spec().name()).isEqualTo(offline.spec().name());
        assertThat(networked.spec().argsSchema()).isEqualTo(offline.spec().argsSchema());
    }

    @Test
    void aContractWithoutACommandCannotBeGivenANetwork() {
        ToolContract callback = ToolContract.parse("""
                [tool]
                name = "note"
                description = "Keep a note"
                dispatch = "callback"

                [args.text]
                type = "string"
                required = true
                """);
        assertThatThrownBy(() -> callback.bindCommand(Manifests.bwrap(), Scope.none(), network()))
                .isInstanceOf(ContractException.class).hasMessageContaining("[command] is missing");
        assertThatThrownBy(() -> contract().bindCommand(Manifests.bwrap(), Scope.none(), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("network");
    }
}
