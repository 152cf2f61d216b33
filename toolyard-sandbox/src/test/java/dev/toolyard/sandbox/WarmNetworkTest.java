package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.ProxyRoute;
import dev.toolyard.spi.SubprocessResult;
import java.io.Closeable;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Network for warm commands (issue 25, "both rungs, cold and warm"): each call with network runs on a
 * warm sandbox of its workspace started with network, its relay listening before the command starts,
 * each connection reaching that call's own route on a socket named afresh for it, and nothing of one
 * call's route reachable by another call. The route here is a stand-in for the proxy on the host (a
 * unix socket that answers each connection with its call's name): what is under test is the sandbox's
 * half. Nothing leaves loopback: the sandbox has no route but its own loopback, and the route answers
 * itself.
 */
@Tag("isolation")
class WarmNetworkTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int PORT = 3128;
    private final List<TieredSandbox> opened = new ArrayList<>();
    private final List<Route> routes = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void closeEverything() throws IOException {
        opened.forEach(TieredSandbox::close);
        for (Route r : routes) {
            r.close();
        }
    }

    private TieredSandbox warm(IsolationTier tier) {
        TieredSandbox s = Hosts.builder(tier, Hosts.ROOMY).warm(true).build();
        opened.add(s);
        Hosts.require(s.isolationTier() == tier, "the " + tier.wireName() + " rung is not available on this host "
                + "(run .ci/setup-sandbox.sh as root to install it):\n" + s.report().describe());
        assertThat(s.report().warmMode()).startsWith("on, ");
        Hosts.require(s.proxyRouteUnavailable().isEmpty(), "network for commands is unavailable: "
                + s.proxyRouteUnavailable().orElse(""));
        return s;
    }

    private Path workspace() throws IOException {
        return Files.createDirectories(tmp.resolve("work")).toRealPath();
    }

    private Route route(String answer) {
        Route r = new Route(answer);
        routes.add(r);
        return r;
    }

    /**
     * Connects to the relay as its very first act (no retry), reads the route's answer, and prints it, the
     * command line of pid 1 (the warm supervisor, or not) and the socket its relay (its parent) was given.
     */
    private static final String CONNECT_FIRST = String.join("\n",
            "import os, socket",
            "s = socket.create_connection(('127.0.0.1', " + PORT + "), timeout=20)",
            "s.sendall(b'hi')",
            "got = b''",
            "while not got.endswith(b'\\n'):",
            "    b = s.recv(100)",
            "    if not b: break",
            "    got += b",
            "print('answer', got.decode().strip())",
            "print('init', open('/proc/1/cmdline', 'rb').read().split(b'\\0')[0].decode())",
            "relay = open('/proc/%d/cmdline' % os.getppid(), 'rb').read().split(b'\\0')",
            "print('socket', relay[2].decode())");

    private static SubprocessResult python(TieredSandbox s, Path work, String program, ProxyRoute route) {
        return s.runIsolated(List.of("/usr/bin/python3", "-c", program), SandboxPaths.of(work), TIMEOUT, Map.of(), route);
    }

    private static String line(SubprocessResult r, String key) {
        return r.stdout().lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + key + " in " + r.stdout() + r.stderr()));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void eachWarmCallReachesItsOwnRouteOnItsFirstConnectAndNoOtherCallsSocket(IsolationTier tier) throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace();
        Route a = route("call-a");
        Route b = route("call-b");
        SubprocessResult first = python(s, work, CONNECT_FIRST, a);
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(line(first, "answer")).isEqualTo("call-a");
        assertThat(line(first, "init")).as("the call ran in a warm sandbox").isEqualTo("/toolyard-warm");
        String firstSocket = line(first, "socket");
        assertThat(firstSocket).startsWith("/toolyard-net/c-").endsWith(".sock");
        assertThat(a.sockets).as("the route listened on one socket, gone once the call returned").hasSize(1)
                .allSatisfy(p -> assertThat(p).doesNotExist());

        // The next call: its own route, a socket of another name; the first call's socket is gone, its
        // directory cannot be listed, and nothing of it answers.
        String probe = CONNECT_FIRST + "\n" + String.join("\n",
                "for p in ('" + firstSocket + "',):",
                "    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
                "    try:",
                "        u.connect(p); print('old', 'connected')",
                "    except OSError as e: print('old', type(e).__name__)",
                "try: print('list', os.listdir('/toolyard-net'))",
                "except OSError as e: print('list', type(e).__name__)");
        SubprocessResult second = python(s, work, probe, b);
        assertThat(second.exitCode()).as(second.stderr()).isZero();
        assertThat(line(second, "answer")).isEqualTo("call-b");
        assertThat(line(second, "init")).isEqualTo("/toolyard-warm");
        assertThat(line(second, "socket")).startsWith("/toolyard-net/c-").isNotEqualTo(firstSocket);
        assertThat(line(second, "old")).isEqualTo("FileNotFoundError");
        assertThat(line(second, "list")).isEqualTo("PermissionError");
        assertThat(a.connections.get()).as("the first call's route saw only the first call").isEqualTo(1);
        assertThat(b.connections.get()).isEqualTo(1);
        assertThat(s.warmRunsServed()).as("both calls were answered warm").isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void aWarmCallWithoutNetworkNeverSharesASandboxWithOneWithNetwork(IsolationTier tier) throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace();
        SubprocessResult networked = python(s, work, CONNECT_FIRST, route("net"));
        assertThat(line(networked, "answer")).isEqualTo("net");
        SubprocessResult plain = s.runIsolated(List.of("/usr/bin/python3", "-c", String.join("\n",
                "import os, socket",
                "print('init', open('/proc/1/cmdline', 'rb').read().split(b'\\0')[0].decode())",
                "print('relay', os.path.exists('/toolyard-relay'), os.path.exists('/toolyard-net'))",
                "try: socket.create_connection(('127.0.0.1', " + PORT + "), timeout=5); print('port', 'open')",
                "except OSError as e: print('port', type(e).__name__)")), SandboxPaths.of(work), TIMEOUT, Map.of());
        assertThat(line(plain, "init")).isEqualTo("/toolyard-warm");
        assertThat(line(plain, "relay")).isEqualTo("False False");
        assertThat(line(plain, "port")).isEqualTo("ConnectionRefusedError");
        assertThat(s.warmCounts()[2]).as("one sandbox with network, one without").isGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void aCommandThatLeavesAConnectionBehindSpendsItsSandboxAndTheNextCallStillRunsWarmAndClean(IsolationTier tier)
            throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace();
        SubprocessResult first = python(s, work, CONNECT_FIRST, route("one"));
        assertThat(line(first, "answer")).isEqualTo("one");
        long discarded = s.warmCounts()[3];
        SubprocessResult second = python(s, work, CONNECT_FIRST + "\n" + String.join("\n",
                "t = open('/proc/net/tcp').read().splitlines()[1:]",
                "print('tcp', len(t))"), route("two"));
        assertThat(line(second, "answer")).isEqualTo("two");
        assertThat(line(second, "tcp")).as("this call's own connection and the relay's listener only, nothing of the"
                + " first call's (its TIME_WAIT)").isEqualTo(Integer.toString(3));
        assertThat(discarded).as("the first call's connection outlived it in TIME_WAIT: its sandbox was not used again")
                .isGreaterThanOrEqualTo(1);
        assertThat(s.warmRunsServed()).isEqualTo(2);
    }

    @Test
    void onGvisorACallWithNetworkRunsColdAndTheReportSaysWhy() throws Exception {
        TieredSandbox s = Hosts.builder(IsolationTier.GVISOR, Hosts.ROOMY).warm(true).build();
        opened.add(s);
        Hosts.require(s.isolationTier() == IsolationTier.GVISOR, "gVisor is not available:\n" + s.report().describe());
        assertThat(s.report().warmMode()).startsWith("on, gvisor:").endsWith("; " + WarmMode.GVISOR_WARM_NETWORK_UNAVAILABLE);
        assertThat(WarmMode.GVISOR_WARM_NETWORK_UNAVAILABLE).contains("host-uds");
        Path work = workspace();
        Path marker = Files.writeString(work.resolve("m"), "x");
        SubprocessResult r = s.runIsolated(List.of("/bin/true"), SandboxPaths.of(work), TIMEOUT, Map.of(),
                new ProxyRoute() {
                    @Override
                    public int loopbackPort() {
                        return PORT;
                    }

                    @Override
                    public Closeable listen(Path socket) {
                        return () -> { };
                    }
                });
        assertThat(marker).exists();
        assertThat(s.warmRunsServed()).as("the networked call ran cold").isZero();
        assertThat(r.tier()).isEqualTo(IsolationTier.GVISOR);
    }

    /**
     * A stand-in for the host's proxy: listens on the socket the sandbox names, answers each connection
     * with {@code answer} and a newline, and remembers the sockets it listened on and how many
     * connections it took.
     */
    private static final class Route implements ProxyRoute {
        final String answer;
        final List<Path> sockets = new CopyOnWriteArrayList<>();
        final AtomicInteger connections = new AtomicInteger();
        private final List<ServerSocketChannel> listeners = new CopyOnWriteArrayList<>();

        Route(String answer) {
            this.answer = answer;
        }

        @Override
        public int loopbackPort() {
            return PORT;
        }

        @Override
        public Closeable listen(Path socket) throws IOException {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
            sockets.add(socket);
            listeners.add(server);
            Thread t = new Thread(() -> {
                while (server.isOpen()) {
                    try (SocketChannel c = server.accept()) {
                        connections.incrementAndGet();
                        c.read(ByteBuffer.allocate(16));
                        c.write(ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8)));
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "test-route-" + answer);
            t.setDaemon(true);
            t.start();
            return () -> {
                server.close();
                Files.deleteIfExists(socket);
            };
        }

        void close() throws IOException {
            for (ServerSocketChannel s : listeners) {
                s.close();
            }
        }
    }
}
