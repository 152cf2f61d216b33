package dev.toolyard.benchmarks;

import dev.toolyard.EgressClass;
import dev.toolyard.IsolationTier;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.spi.ProxyRoute;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Network for commands, on the bubblewrap rung, cold: one sandboxed {@code curl} GET of a 1 KiB body
 * per call, side by side in one run.
 *
 * <ul>
 *   <li>{@link #curlThroughTheProxy}: {@code run_command} with a {@link CommandNetwork}; curl reaches
 *       the relay on {@code 127.0.0.1:3128}, the relay the JVM's proxy through the unix socket, the
 *       proxy checks the name (scripted resolver, 127.0.0.1) and connects to the loopback server.</li>
 *   <li>{@link #curlToABareResponderInTheSameLayout} (the baseline): the same curl, the same
 *       environment, the same sandbox layout with the same relay and socket, but the socket is answered
 *       by a bare responder that writes the 1 KiB response itself: no checks, no upstream connection.
 *       Direct loopback from inside the sandbox to a host server does not exist (the sandbox's own
 *       namespace has loopback only), so this is the closest "direct" path there is.
 *       Target: the proxy at most 1.3 times it.</li>
 * </ul>
 *
 * Both run curl as the command's first and only action, without {@code --retry}: a call whose curl
 * does not get its 200 throws, so a finished run is also the proof that no first request failed.
 * Sample mode, in milliseconds (a call is a whole cold sandbox run).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
public class CommandNetworkBenchmark {
    private static final byte[] BODY = "x".repeat(1024).getBytes(StandardCharsets.UTF_8);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private LoopbackHttpServer server;
    private TieredSandbox sandbox;
    private Path work;
    private ToolExecutor proxied;
    private ToolExecutor bare;
    private String args;

    @Setup
    public void setUp() throws IOException {
        server = LoopbackHttpServer.start(BODY);
        Function<String, Optional<Path>> which = TieredSandbox.searchPath();
        sandbox = TieredSandbox.builder()
                .which(name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : which.apply(name))
                .build();
        if (sandbox.isolationTier() != IsolationTier.BWRAP || sandbox.proxyRouteUnavailable().isPresent()) {
            throw new IllegalStateException("needs the bubblewrap rung with network for commands: "
                    + sandbox.proxyRouteUnavailable().orElse(sandbox.report().describe()));
        }
        work = Files.createTempDirectory("toolyard-bench-net-");
        CommandNetwork net = CommandNetwork.builder(List.of("bench.test:" + server.port(), "127.0.0.1"),
                host -> List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})))
                .socketFactory(LoopbackOnlySockets.only(new java.net.InetSocketAddress(
                        InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), server.port())))
                .build();
        ToolRegistry withProxy = new ToolRegistry();
        withProxy.register(BuiltinTools.runCommand(sandbox, net));
        proxied = ToolExecutor.builder(withProxy, sandbox).allowlist(Set.of("run_command")).store(new DrainedInMemoryStore()).build();
        ToolRegistry withBare = new ToolRegistry();
        withBare.register(bareTool(sandbox, proxyEnvironment(sandbox, net)));
        bare = ToolExecutor.builder(withBare, sandbox).allowlist(Set.of("run_command")).store(new DrainedInMemoryStore()).build();
        // curl's own clock: time_connect (the TCP connect to 127.0.0.1:3128, the relay) and time_total (the
        // whole first request, connect to last byte), both measured by the command from its own start.
        args = "{\"argv\":[\"curl\",\"-sS\",\"--retry\",\"0\",\"-o\",\"/dev/null\",\"-w\","
                + "\"%{http_code} %{size_download} %{time_connect} %{time_total}\","
                + "\"--max-time\",\"20\",\"http://bench.test:" + server.port() + LoopbackHttpServer.PATH + "\"]}";
    }

    /** The environment the networked tool gives its command, read back from the command itself (env). */
    private static Map<String, String> proxyEnvironment(TieredSandbox sandbox, CommandNetwork net) throws IOException {
        ToolRegistry r = new ToolRegistry();
        r.register(BuiltinTools.runCommand(sandbox, net));
        Path dir = Files.createTempDirectory("toolyard-bench-env-");
        ToolResult env;
        try {
            env = ToolExecutor.builder(r, sandbox).allowlist(Set.of("run_command")).store(new DrainedInMemoryStore()).build()
                    .execute(ToolCallRequest.of("run_command", "{\"argv\":[\"env\"]}"), context(dir));
        } finally {
            Workspace.delete(dir);
        }
        Map<String, String> out = new TreeMap<>();
        String text = env.content();
        String stdout = text.substring(text.indexOf("--- stdout ---\n") + 15, text.indexOf("--- stderr ---\n"));
        for (String line : stdout.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("PWD=")) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    private static Tool bareTool(TieredSandbox sandbox, Map<String, String> env) {
        ToolSpec spec = ToolSpec.builder("run_command").description("the benchmark's baseline")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
                        + "\"required\":[\"argv\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.EXECUTE).egress(EgressClass.ALLOWLISTED).requiresIsolation(true).cooperative(true)
                .build();
        return new Tool(spec, (a, ctx) -> {
            SubprocessResult r = sandbox.runIsolated(a.strings("argv"), ctx.workspace(), TIMEOUT, env, new BareRoute());
            return ToolOutput.of("exit_code: " + r.exitCode() + "\n--- stdout ---\n" + r.stdout());
        });
    }

    /** Answers every connection on the socket with one fixed 1 KiB response, unchecked. */
    private static final class BareRoute implements ProxyRoute {
        private static final byte[] RESPONSE;

        static {
            byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + BODY.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            RESPONSE = new byte[head.length + BODY.length];
            System.arraycopy(head, 0, RESPONSE, 0, head.length);
            System.arraycopy(BODY, 0, RESPONSE, head.length, BODY.length);
        }

        @Override
        public int loopbackPort() {
            return 3128;
        }

        @Override
        public Closeable listen(Path socket) throws IOException {
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
            Thread t = new Thread(() -> {
                while (s.isOpen()) {
                    try (SocketChannel c = s.accept()) {
                        ByteBuffer in = ByteBuffer.allocate(16 * 1024);
                        // Read the request head, then answer.
                        while (c.read(in) > 0 && !headEnded(in)) {
                            // more
                        }
                        c.write(ByteBuffer.wrap(RESPONSE));
                        c.shutdownOutput();
                        while (c.read(in.clear()) > 0) {
                            // drain until curl closes
                        }
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "bench-bare-route");
            t.setDaemon(true);
            t.start();
            return s;
        }

        private static boolean headEnded(ByteBuffer b) {
            byte[] a = b.array();
            for (int i = 3; i < b.position(); i++) {
                if (a[i - 3] == '\r' && a[i - 2] == '\n' && a[i - 1] == '\r' && a[i] == '\n') {
                    return true;
                }
            }
            return false;
        }
    }

    private static ToolContext context(Path dir) {
        return ToolContext.builder("bench", SandboxPaths.of(dir)).timeout(TIMEOUT).egressCeiling(EgressClass.ALLOWLISTED)
                .build();
    }

    /** curl's own times of its first request, in microseconds, per path: printed at the end of the trial. */
    private final Map<String, List<long[]>> firstRequest = new java.util.concurrent.ConcurrentHashMap<>();

    private String call(ToolExecutor executor, String path) {
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", args), context(work));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("--- stdout ---\n200 1024 ([0-9.]+) ([0-9.]+)")
                .matcher(r.content());
        if (r.status() != ToolStatus.OK || !r.content().contains("exit_code: 0\n") || !m.find()) {
            throw new IllegalStateException("the first and only request of the command failed: " + r.content()
                    + r.reasonDetail());
        }
        firstRequest.computeIfAbsent(path, k -> java.util.Collections.synchronizedList(new java.util.ArrayList<>()))
                .add(new long[] {Math.round(Double.parseDouble(m.group(1)) * 1e6), Math.round(Double.parseDouble(m.group(2)) * 1e6)});
        return r.content();
    }

    /** @return the command's output; curl's 200 and 1,024 bytes checked */
    @Benchmark
    public String curlThroughTheProxy() {
        return call(proxied, "proxy");
    }

    /** @return the command's output; curl's 200 and 1,024 bytes checked */
    @Benchmark
    public String curlToABareResponderInTheSameLayout() {
        return call(bare, "bare");
    }

    @TearDown
    public void tearDown() throws IOException {
        for (Map.Entry<String, List<long[]>> e : firstRequest.entrySet()) {
            List<long[]> runs = new java.util.ArrayList<>(e.getValue());
            long[] connect = runs.stream().mapToLong(a -> a[0]).sorted().toArray();
            long[] total = runs.stream().mapToLong(a -> a[1]).sorted().toArray();
            System.out.printf("%nfirst request (%s), curl's own clock, %d commands, none retried or failed:"
                    + " connect median %d us (p90 %d, max %d); whole request median %d us (p90 %d, max %d)%n",
                    e.getKey(), runs.size(), connect[connect.length / 2], connect[connect.length * 9 / 10],
                    connect[connect.length - 1], total[total.length / 2], total[total.length * 9 / 10], total[total.length - 1]);
        }
        server.close();
        sandbox.close();
        Workspace.delete(work);
    }
}
