package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.testing.LoopbackOnlySockets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandProxyTest {
    @TempDir Path dir;
    private LoopbackHttpServer server;
    private LoopbackOnlySockets sockets;
    private ScriptedResolver resolver;

    @BeforeEach
    void start() throws IOException {
        server = new LoopbackHttpServer("127.0.0.1", "hello from pypi.test".getBytes(StandardCharsets.UTF_8));
        sockets = LoopbackOnlySockets.anyPort();
        resolver = new ScriptedResolver()
                .answer("pypi.test", "127.0.0.1")
                .answer("files.example.test", "127.0.0.1")
                .answer("meta.test", "169.254.169.254")
                .answer("ten.test", "10.0.0.1")
                .answer("loop2.test", "127.0.0.2")
                .answer("mixed.test", "127.0.0.1", "169.254.169.254");
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private CommandProxy proxy(CommandProxy.Limits limits) {
        int p = server.port();
        return CommandProxy.of(List.of("pypi.test:" + p, "*.example.test:" + p, "127.0.0.1", "meta.test:" + p,
                "ten.test:" + p, "loop2.test:" + p, "mixed.test:" + p), Set.of(80, 443), resolver, limits, sockets);
    }

    private static CommandProxy.Limits limits() {
        return new CommandProxy.Limits(100, 1 << 20, Duration.ofSeconds(30), Duration.ofSeconds(5), 16);
    }

    private String exchange(Path socket, String request) throws IOException {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(4096);
            while (c.read(b) >= 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private String get(Path socket, String host) throws IOException {
        return exchange(socket, "GET http://" + host + "/simple/ HTTP/1.1\r\nHost: " + host
                + "\r\nProxy-Connection: keep-alive\r\nUser-Agent: test\r\n\r\n");
    }

    @Test
    void anAllowlistedNameIsForwardedInOriginFormToTheAddressItResolvedTo() throws IOException {
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = proxy(limits()).open(socket)) {
            String response = get(socket, "pypi.test:" + server.port());
            assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith("hello from pypi.test");
            assertThat(server.heads()).singleElement().satisfies(h -> assertThat(h)
                    .startsWith("GET /simple/ HTTP/1.1\r\n").contains("Connection: close").doesNotContain("Proxy-"));
            assertThat(s.recordJson()).contains("\"host\":\"pypi.test\"", "\"outcome\":\"reached\"",
                    "\"address\":\"127.0.0.1\"", "\"connections\":1");
        }
        assertThat(Files.exists(socket)).as("the socket file is removed at close").isFalse();
        assertThat(resolver.questions()).containsExactly("pypi.test");
    }

    @Test
    void connectTunnelsBytesUntouchedToASuffixName() throws IOException {
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = proxy(limits()).open(socket)) {
            String response = exchange(socket, "CONNECT files.example.test:" + server.port() + " HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /raw HTTP/1.1\r\nHost: files.example.test\r\n\r\n");
            assertThat(response).startsWith("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK")
                    .endsWith("hello from pypi.test");
            assertThat(server.heads()).singleElement().satisfies(h -> assertThat(h).startsWith("GET /raw HTTP/1.1\r\n"));
            assertThat(s.recordJson()).contains("\"host\":\"files.example.test\"", "\"outcome\":\"reached\"");
        }
    }

    private void refusedBeforeAnyConnect(String request, String reason) throws IOException {
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = proxy(limits()).open(socket)) {
            String response = exchange(socket, request);
            assertThat(response).startsWith("HTTP/1.1 403 Forbidden").contains("X-Proxy-Error: " + reason + "\r\n");
            assertThat(s.recordJson()).contains("\"outcome\":\"" + reason + "\"", "\"refused\":1");
        }
        assertThat(sockets.attempts()).as("no connect was attempted").isEmpty();
        assertThat(server.heads()).isEmpty();
    }

    @Test
    void aNameOffTheListIsRefused() throws IOException {
        refusedBeforeAnyConnect("GET http://evil.test:" + server.port() + "/ HTTP/1.1\r\n\r\n", "host_not_allowed");
        assertThat(resolver.questions()).as("a name off the list is never resolved").isEmpty();
    }

    @Test
    void theBareSuffixIsNotItsOwnSubdomain() throws IOException {
        refusedBeforeAnyConnect("CONNECT example.test:" + server.port() + " HTTP/1.1\r\n\r\n", "host_not_allowed");
    }

    @Test
    void anotherPortOfAListedNameIsRefused() throws IOException {
        refusedBeforeAnyConnect("CONNECT pypi.test:22 HTTP/1.1\r\n\r\n", "port_not_allowed");
    }

    @Test
    void anIpLiteralThatIsNotListedIsRefusedInEverySpelling() throws IOException {
        refusedBeforeAnyConnect("CONNECT 127.0.0.2:" + server.port() + " HTTP/1.1\r\n\r\n", "ip_literal_not_allowed");
        refusedBeforeAnyConnect("CONNECT 2130706433:" + server.port() + " HTTP/1.1\r\n\r\n", "ip_literal_not_allowed");
        refusedBeforeAnyConnect("CONNECT [::1]:" + server.port() + " HTTP/1.1\r\n\r\n", "ip_literal_not_allowed");
        refusedBeforeAnyConnect("GET http://0x7f.1:" + server.port() + "/ HTTP/1.1\r\n\r\n", "ip_literal_not_allowed");
    }

    @Test
    void aListedNameResolvingToMetadataIsRefusedBeforeConnecting() throws IOException {
        refusedBeforeAnyConnect("CONNECT meta.test:" + server.port() + " HTTP/1.1\r\n\r\n", "link_local_address");
        refusedBeforeAnyConnect("CONNECT mixed.test:" + server.port() + " HTTP/1.1\r\n\r\n", "link_local_address");
    }

    @Test
    void aListedNameResolvingToAnUnlistedPrivateOrLoopbackAddressIsRefused() throws IOException {
        refusedBeforeAnyConnect("CONNECT ten.test:" + server.port() + " HTTP/1.1\r\n\r\n", "address_not_allowed");
        refusedBeforeAnyConnect("CONNECT loop2.test:" + server.port() + " HTTP/1.1\r\n\r\n", "address_not_allowed");
    }

    @Test
    void theProxyConnectsToTheAddressItCheckedNotASecondAnswer() throws IOException {
        // Rebinding: the first answer is the one checked and used; the resolver is asked once per connection.
        resolver.answer("rebind.test", "127.0.0.1").answer("rebind.test", "169.254.169.254");
        CommandProxy p = CommandProxy.of(List.of("rebind.test:" + server.port(), "127.0.0.1"), Set.of(80), resolver,
                limits(), sockets);
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket)) {
            assertThat(get(socket, "rebind.test:" + server.port())).startsWith("HTTP/1.1 200 OK");
            assertThat(sockets.attempts()).singleElement().satisfies(a -> {
                assertThat(a.getAddress().getHostAddress()).isEqualTo("127.0.0.1");
                assertThat(a.getPort()).isEqualTo(server.port());
            });
            assertThat(get(socket, "rebind.test:" + server.port())).contains("X-Proxy-Error: link_local_address");
            assertThat(sockets.attempts()).hasSize(1);
        }
    }

    @Test
    void httpsInAbsoluteFormAndGarbageAreBadRequests() throws IOException {
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = proxy(limits()).open(socket)) {
            assertThat(exchange(socket, "GET https://pypi.test/ HTTP/1.1\r\n\r\n"))
                    .startsWith("HTTP/1.1 400").contains("X-Proxy-Error: bad_request");
            assertThat(exchange(socket, "\u0000\u0001 nonsense\r\n\r\n")).startsWith("HTTP/1.1 400");
            assertThat(exchange(socket, "GET /relative HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400");
            assertThat(exchange(socket, "x".repeat(ProxyRequest.MAX_HEAD_BYTES + 10))).startsWith("HTTP/1.1 400");
        }
        assertThat(sockets.attempts()).isEmpty();
    }

    @Test
    void theConnectionLimitEndsConnectionsNotTheProxy() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(2, 1 << 20, Duration.ofSeconds(30), Duration.ofSeconds(5), 16));
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket)) {
            assertThat(get(socket, "pypi.test:" + server.port())).startsWith("HTTP/1.1 200");
            assertThat(get(socket, "pypi.test:" + server.port())).startsWith("HTTP/1.1 200");
            assertThat(get(socket, "pypi.test:" + server.port())).startsWith("HTTP/1.1 429")
                    .contains("X-Proxy-Error: connection_limit");
            assertThat(s.recordJson()).contains("\"connections\":3", "\"outcome\":\"connection_limit\"");
        }
        // A new session (the next call) starts from zero.
        try (CommandProxy.Session s = p.open(socket)) {
            assertThat(get(socket, "pypi.test:" + server.port())).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void theByteLimitClosesTheConnectionThatCrossesIt() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(100, 100, Duration.ofSeconds(30), Duration.ofSeconds(5), 16));
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket)) {
            String response = get(socket, "pypi.test:" + server.port());
            assertThat(response).doesNotContain("hello from pypi.test");
            assertThat(get(socket, "pypi.test:" + server.port())).doesNotContain("hello from pypi.test");
        }
    }

    @Test
    void anIdleConnectionIsClosed() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(100, 1 << 20, Duration.ofMillis(200), Duration.ofSeconds(5), 16));
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket);
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(ByteBuffer.wrap("CONNECT pypi.test:".concat(String.valueOf(server.port()))
                    .concat(" HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)));
            ByteBuffer b = ByteBuffer.allocate(4096);
            int total = 0;
            int n;
            while ((n = c.read(b)) >= 0) {
                total += n;
            }
            assertThat(new String(b.array(), 0, total, StandardCharsets.ISO_8859_1))
                    .isEqualTo("HTTP/1.1 200 Connection Established\r\n\r\n");
        }
    }

    @Test
    void aConnectionThatNeverSendsItsRequestLineIsClosedAtTheIdleTimeout() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(100, 1 << 20, Duration.ofMillis(200), Duration.ofSeconds(5), 16));
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket);
                SocketChannel silent = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            silent.connect(UnixDomainSocketAddress.of(socket));
            // Blocks until the proxy closes it: nothing was sent, so nothing comes back but the end.
            assertThat(silent.read(ByteBuffer.allocate(64))).isEqualTo(-1);
            assertThat(s.openConnections()).isZero();
            assertThat(sockets.attempts()).isEmpty();
        }
    }

    private static long proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith("toolyard-proxy"))
                .count();
    }

    private static void awaitUntil(java.util.function.BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void silentConnectionsTieUpNoThreadAndAFloodPastTheLimitIsBoundedInThreadsAndDescriptors() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(256, 1 << 20, Duration.ofSeconds(60), Duration.ofSeconds(5), 16));
        Path socket = dir.resolve("proxy.sock");
        awaitUntil(() -> proxyThreads() == 0, "the earlier tests' proxy threads ended");
        long before = 0;
        List<SocketChannel> clients = new java.util.ArrayList<>();
        try (CommandProxy.Session s = p.open(socket)) {
            for (int i = 0; i < 256; i++) {
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                clients.add(c);
                c.connect(UnixDomainSocketAddress.of(socket));
            }
            awaitUntil(() -> s.acceptedConnections() == 256, "the proxy accepted the 256 silent connections");
            assertThat(s.openConnections()).isEqualTo(256);
            assertThat(proxyThreads() - before).as("256 connections that send nothing: the reactor and the watchdog only")
                    .isEqualTo(2);

            // Past the limit: 2,000 more, each answered 429 on the reactor, never given a thread; the
            // call holds at most its limit plus the drained spare.
            int answered = 0;
            for (int i = 0; i < 2000; i++) {
                try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    c.connect(UnixDomainSocketAddress.of(socket));
                    c.write(ByteBuffer.wrap("GET http://pypi.test/ HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
                    ByteBuffer b = ByteBuffer.allocate(64);
                    c.read(b);
                    if (new String(b.array(), 0, b.position(), StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 429")) {
                        answered++;
                    }
                    assertThat(proxyThreads() - before).isLessThanOrEqualTo(2);
                    assertThat(s.openConnections()).isLessThanOrEqualTo(256 + CommandProxy.DRAINING_BEYOND_LIMIT + 1);
                }
            }
            assertThat(answered).as("each refused connection got its answer before it was closed").isEqualTo(2000);
            // The record counts requests the proxy answered; a connection that never sent one is in none.
            assertThat(s.recordJson()).startsWith("{\"connections\":2000,\"refused\":2000,")
                    .contains("\"outcome\":\"connection_limit\",\"connections\":2000");

            // The silent ones still hold no thread; sending a head gives one its thread, and its check.
            clients.get(0).write(ByteBuffer.wrap(("GET http://pypi.test:" + server.port() + "/simple/ HTTP/1.1\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(4096);
            while (clients.get(0).read(b) >= 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            assertThat(out.toString(StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200 OK").endsWith("hello from pypi.test");
        } finally {
            for (SocketChannel c : clients) {
                c.close();
            }
        }
        awaitUntil(() -> proxyThreads() <= before, "the closed session's threads ended");
        // The JVM and the proxy survived: the next call is served as ever.
        try (CommandProxy.Session s = p.open(socket)) {
            assertThat(get(socket, "pypi.test:" + server.port())).startsWith("HTTP/1.1 200 OK");
        }
    }

    @Test
    void manyDestinationsAreCountedNotListed() throws IOException {
        CommandProxy p = proxy(new CommandProxy.Limits(100, 1 << 20, Duration.ofSeconds(30), Duration.ofSeconds(5), 2));
        Path socket = dir.resolve("proxy.sock");
        try (CommandProxy.Session s = p.open(socket)) {
            for (int i = 0; i < 10; i++) {
                exchange(socket, "CONNECT host" + i + ".test:443 HTTP/1.1\r\n\r\n");
            }
            assertThat(s.recordJson()).contains("\"connections\":10", "\"refused\":10", "\"more_connections\":8");
            assertThat(s.recordJson().split("\"host\":", -1)).hasSize(3);
        }
    }

    @Test
    void badEntriesFailFastNamingTheEntry() {
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of("ok.test", "169.254.169.254"), Set.of(443)))
                .hasMessageContaining("hosts[1]");
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of("a.test:0"), Set.of(443))).hasMessageContaining("hosts[0]");
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of("http://a.test"), Set.of(443))).hasMessageContaining("hosts[0]");
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of("*"), Set.of(443))).hasMessageContaining("hosts[0]");
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of("127.1"), Set.of(443))).hasMessageContaining("hosts[0]");
        assertThatThrownBy(() -> ProxyAllowlist.of(List.of(), Set.of(443))).hasMessageContaining("hosts");
        ProxyAllowlist ok = ProxyAllowlist.of(List.of("[::1]:8080", "::1", "A.Example.TEST", "*.b.test:81"), Set.of(443));
        assertThat(ok.portsForName("a.example.test")).containsExactly(443);
        assertThat(ok.portsForName("x.y.b.test")).containsExactly(81);
        assertThat(ok.portsForName("b.test")).isEmpty();
        assertThat(ok.portsForLiteral(ScriptedResolver.address("::1"))).containsExactlyInAnyOrder(443, 8080);
    }
}
