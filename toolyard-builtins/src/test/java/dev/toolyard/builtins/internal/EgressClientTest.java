package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One request of any method through http_fetch's egress checks, redirects returned rather than followed. */
@Timeout(60)
class EgressClientTest {
    private MockWebServer server;
    private LoopbackOnlySockets sockets;
    private EgressClient client;

    @BeforeEach
    void start() throws Exception {
        server = new MockWebServer();
        server.start(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0);
        sockets = LoopbackOnlySockets.onPorts(server.getPort());
        client = EgressClient.of(List.of("api.example", "127.0.0.1"),
                new ScriptedResolver().answer("api.example", "127.0.0.1").answer("meta.example", "169.254.169.254"),
                FetchLimits.builder().maxBodyBytes(1024).build(), sockets);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    }

    @Test
    void aPostWithHeadersAndBodyReachesTheCheckedAddress() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json").body("{}").build());
        EgressClient.Answer a = client.send("POST", "http://api.example:" + server.getPort() + "/x",
                Map.of("X-Test", "1"), "{\"a\":1}", "application/json", deadline());
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.body()).isEqualTo("{}");
        var request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getMethod()).isEqualTo("POST");
        assertThat(request.getHeaders().get("X-Test")).isEqualTo("1");
        assertThat(request.getBody().utf8()).isEqualTo("{\"a\":1}");
    }

    @Test
    void aRedirectIsReturnedAndNotFollowed() throws Exception {
        server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/elsewhere").build());
        EgressClient.Answer a = client.send("GET", "http://api.example:" + server.getPort() + "/", Map.of(), null, null,
                deadline());
        assertThat(a.status()).isEqualTo(302);
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void theEgressChecksRefuseBeforeAnySocket() {
        assertThatThrownBy(() -> client.send("GET", "http://other.example/", Map.of(), null, null, deadline()))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.HOST_NOT_ALLOWED));
        assertThatThrownBy(() -> client.send("GET", "http://169.254.169.254/", Map.of(), null, null, deadline()))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.LINK_LOCAL_ADDRESS));
        assertThat(sockets.attempts()).isEmpty();
    }

    @Test
    void aBodyOverTheCapIsRefusedWhole() {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain").body("x".repeat(2000)).build());
        assertThatThrownBy(() -> client.send("GET", "http://api.example:" + server.getPort() + "/", Map.of(), null, null,
                deadline())).isInstanceOfSatisfying(FetchProblem.class,
                        p -> assertThat(p.reason()).isEqualTo(Reason.TOO_LARGE));
    }
}
