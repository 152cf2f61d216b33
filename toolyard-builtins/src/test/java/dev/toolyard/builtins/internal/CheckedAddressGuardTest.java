package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.net.Proxy;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CheckedAddressGuardTest {
    private MockWebServer server;
    private LoopbackOnlySockets sockets;

    @BeforeEach
    void start() throws Exception {
        server = new MockWebServer();
        server.start(ScriptedResolver.address("127.0.0.1"), 0);
        sockets = LoopbackOnlySockets.onPorts(server.getPort());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aConnectionToACheckedAddressProceeds() throws Exception {
        server.enqueue(new MockResponse.Builder().body("ok").build());
        try (Response r = client(List.of("127.0.0.1")).newCall(request()).execute()) {
            assertThat(r.body().string()).isEqualTo("ok");
        }
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void aConnectionToAnyOtherAddressIsStoppedBeforeTheRequestIsSent() {
        // The Dns answers 127.0.0.1, but only 127.0.0.2 was "checked": the guard must stop the request.
        server.enqueue(new MockResponse.Builder().body("must not be served").build());
        assertThatThrownBy(() -> client(List.of("127.0.0.2")).newCall(request()).execute())
                .isInstanceOf(CheckedAddressGuard.UncheckedAddressException.class);
        assertThat(server.getRequestCount()).isZero();
    }

    private OkHttpClient client(List<String> checked) {
        List<InetAddress> allowed = checked.stream().map(ScriptedResolver::address).toList();
        return new OkHttpClient.Builder()
                .proxy(Proxy.NO_PROXY)
                .socketFactory(sockets)
                .retryOnConnectionFailure(false)
                .dns(new PinnedDns("docs.example", List.of(ScriptedResolver.address("127.0.0.1"))))
                .addNetworkInterceptor(new CheckedAddressGuard(allowed))
                .build();
    }

    private Request request() {
        return new Request.Builder().url("http://docs.example:" + server.getPort() + "/").build();
    }
}
