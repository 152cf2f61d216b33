package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.IsolationTier;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.internal.LoopbackHttpServer;
import dev.toolyard.builtins.internal.ScriptedResolver;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * run_command with network, through a real executor, a real TieredSandbox on each rung, the relay and
 * the proxy, against a server on 127.0.0.1 reached through names a scripted resolver answers. Nothing
 * leaves loopback even if the proxy were broken: every upstream socket comes from a factory that refuses
 * any connect off loopback, and the sandbox has no route but its own loopback.
 */
@Tag("isolation")
@Timeout(180) // a hang guard only
class RunCommandNetworkTest {
    @TempDir
    Path work;

    final InMemoryToolCallStore store = new InMemoryToolCallStore();
    LoopbackHttpServer server;
    LoopbackOnlySockets sockets;
    private CommandNetwork network;

    @BeforeEach
    void start() throws Exception {
        server = new LoopbackHttpServer("127.0.0.1", "hello from pypi.test\n".getBytes(StandardCharsets.UTF_8));
        sockets = LoopbackOnlySockets.anyPort();
        ScriptedResolver resolver = new ScriptedResolver()
                .answer("pypi.test", "127.0.0.1")
                .answer("files.test", "127.0.0.1")
                .answer("meta.test", "169.254.169.254")
                .answer("ten.test", "10.0.0.1");
        int p = server.port();
        network = CommandNetwork.builder(List.of("pypi.test:" + p, "files.test:" + p, "meta.test:" + p, "ten.test:" + p,
                "127.0.0.1"),
                resolver).socketFactory(sockets).build();
    }

    private final List<TieredSandbox> opened = new java.util.ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        server.close();
        for (TieredSandbox s : opened) {
            s.close();
        }
    }

    /** Whether the sandboxes of these cases are warm; {@link RunCommandNetworkWarmModeTest} runs every case warm. */
    boolean warm() {
        return false;
    }

    TieredSandbox on(IsolationTier tier) {
        return on(tier, 1L << 30);
    }

    TieredSandbox on(IsolationTier tier, long memoryBytes) {
        Function<String, Optional<Path>> which = TieredSandbox.searchPath();
        TieredSandbox.Builder b = TieredSandbox.builder().warm(warm())
                .limits(ResourceLimits.builder().cpuSeconds(20).memoryBytes(memoryBytes).fileSizeBytes(64L << 20)
                        .processCount(64).build());
        if (tier == IsolationTier.BWRAP) {
            b.which(name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : which.apply(name));
        } else if (tier == IsolationTier.GVISOR) {
            b.containerImage(RunCommandToolTest.IMAGE).startAt(IsolationTier.GVISOR).lowestTier(IsolationTier.GVISOR);
        } else {
            b.containerImage(RunCommandToolTest.IMAGE);
        }
        TieredSandbox sandbox = b.build();
        opened.add(sandbox);
        HostTools.require(sandbox.isolationTier() == tier,
                "the " + tier + " rung is not available on this host: " + sandbox.report().describe());
        HostTools.require(sandbox.proxyRouteUnavailable().isEmpty(),
                "network for commands is unavailable: " + sandbox.proxyRouteUnavailable().orElse(""));
        if (warm()) {
            assertThat(sandbox.report().warmMode()).as("warm mode must be on: this test runs as root").startsWith("on, ");
            if (tier == IsolationTier.GVISOR) {
                // Warm on gVisor, but calls with network run cold there, and the report says why (docs/isolation.md).
                assertThat(sandbox.report().warmMode()).contains("runs with network are cold on gvisor");
            }
        }
        return sandbox;
    }

    ToolResult run(TieredSandbox sandbox, String... argv) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(sandbox, network));
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of("run_command")).store(store).build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(Duration.ofSeconds(60))
                .egressCeiling(EgressClass.ALLOWLISTED).build();
        String args = Stream.of(argv).map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"")
                .reduce((a, b) -> a + "," + b).map(s -> "{\"argv\":[" + s + "]}").orElseThrow();
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", args), ctx);
        assertThat(r.status()).as(r.content() + r.reasonDetail()).isEqualTo(ToolStatus.OK);
        return r;
    }

    private String url(String host) {
        return "http://" + host + ":" + server.port() + "/simple/";
    }

    private ToolCallRecord lastRecord() {
        List<ToolCallRecord> all = store.records();
        return all.get(all.size() - 1);
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void curlReachesAnAllowlistedNameOnItsFirstRequestThroughThePlainProxyAndConnect(IsolationTier tier) {
        TieredSandbox sandbox = on(tier);
        // The first thing the command does: no retry, no wait. The relay listened before it started.
        ToolResult plain = run(sandbox, "curl", "-sS", "--max-time", "20", url("pypi.test"));
        assertThat(plain.content()).startsWith("exit_code: 0\n").contains("--- stdout ---\nhello from pypi.test\n")
                .contains("--- network ---\nreached pypi.test:" + server.port() + " (127.0.0.1) x1");
        ToolResult tunnel = run(sandbox, "curl", "-sS", "--proxytunnel", "--max-time", "20", url("pypi.test"));
        assertThat(tunnel.content()).startsWith("exit_code: 0\n").contains("hello from pypi.test");
        assertThat(store.records()).extracting(ToolCallRecord::network).allSatisfy(n -> assertThat(n)
                .startsWith("{\"connections\":1,\"refused\":0,").contains("\"host\":\"pypi.test\",\"port\":"
                        + server.port() + ",\"address\":\"127.0.0.1\",\"outcome\":\"reached\",\"connections\":1,"));
        assertThat(server.heads()).hasSize(2).allSatisfy(h -> assertThat(h).startsWith("GET /simple/ HTTP/1.1\r\n"));
        assertThat(sockets.attempts()).extracting(InetSocketAddress::getPort).containsOnly(server.port());
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER"})
    void theFirstConnectOfACommandNeverFailsFiftyColdRunsInARowWithoutRetry(IsolationTier tier) {
        TieredSandbox sandbox = on(tier);
        for (int i = 0; i < 50; i++) {
            // curl is the command itself, at once: no shell, no wait, no retry; a refused or reset first
            // connect would exit 7 or 56 here.
            ToolResult r = run(sandbox, "curl", "-sS", "--retry", "0", "--max-time", "20", "-o", "/dev/null", "-w",
                    "%{http_code}", url("pypi.test"));
            assertThat(r.content()).as("run " + i + ": " + r.content()).startsWith("exit_code: 0\n")
                    .contains("--- stdout ---\n200\n--- stderr ---\n--- network ---\nreached pypi.test:");
        }
        assertThat(server.heads()).hasSize(50);
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void pythonUrllibReadsTheProxyVariables(IsolationTier tier) {
        ToolResult r = run(on(tier), "python3", "-c",
                "import urllib.request; print(urllib.request.urlopen('" + url("pypi.test") + "', timeout=20).read().decode(), end='')");
        assertThat(r.content()).startsWith("exit_code: 0\n").contains("--- stdout ---\nhello from pypi.test\n");
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void deniedNamesLiteralsPortsAndInternalAnswersGet403WithTheReasonBeforeAnyConnect(IsolationTier tier) {
        TieredSandbox sandbox = on(tier);
        String script = String.join("; ",
                "for u in http://evil.test:" + server.port() + "/ http://127.0.0.2:" + server.port() + "/ "
                        + "http://pypi.test:1/ http://meta.test:" + server.port() + "/ http://ten.test:" + server.port() + "/",
                "do curl -s -o /dev/null -D - --max-time 20 \"$u\" | grep -i -e '^HTTP/' -e '^x-proxy-error'",
                "done");
        ToolResult r = run(sandbox, "sh", "-c", script);
        assertThat(r.content()).contains(
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: host_not_allowed\r\n",
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: ip_literal_not_allowed\r\n",
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: port_not_allowed\r\n",
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: link_local_address\r\n",
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: address_not_allowed\r\n");
        assertThat(sockets.attempts()).as("every refusal came before any connect").isEmpty();
        assertThat(server.heads()).isEmpty();
        assertThat(r.content()).contains("host_not_allowed evil.test:" + server.port(),
                "link_local_address meta.test:" + server.port() + " (169.254.169.254)",
                "address_not_allowed ten.test:" + server.port() + " (10.0.0.1)");
        assertThat(lastRecord().network()).as("every refusal is in the call's record").contains("\"refused\":5",
                "\"host\":\"evil.test\",\"port\":" + server.port() + ",\"address\":\"\",\"outcome\":\"host_not_allowed\"",
                "\"host\":\"127.0.0.2\",\"port\":" + server.port() + ",\"address\":\"127.0.0.2\",\"outcome\":\"ip_literal_not_allowed\"",
                "\"host\":\"pypi.test\",\"port\":1,\"address\":\"\",\"outcome\":\"port_not_allowed\"",
                "\"address\":\"169.254.169.254\",\"outcome\":\"link_local_address\"",
                "\"address\":\"10.0.0.1\",\"outcome\":\"address_not_allowed\"");
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void aDirectConnectBypassingTheProxyFails(IsolationTier tier) {
        // Only loopback destinations, so that nothing could leave the machine even if the sandbox had a route.
        String py = "import socket\n"
                + "for port in (" + server.port() + ", 3128):\n"
                + "    try:\n"
                + "        s = socket.create_connection(('127.0.0.1', port), timeout=5)\n"
                + "        print('direct', port, 'connected', s.getpeername())\n"
                + "    except OSError as e:\n"
                + "        print('direct', port, 'failed', type(e).__name__)\n";
        ToolResult r = run(on(tier), "python3", "-c", py);
        assertThat(r.content()).contains("direct " + server.port() + " failed ConnectionRefusedError")
                .as("the relay's own port is open, which is the one way out").contains("direct 3128 connected");
        ToolResult noProxy = run(on(tier), "curl", "-sS", "--noproxy", "*", "--max-time", "10", url("127.0.0.1"));
        assertThat(noProxy.content()).doesNotStartWith("exit_code: 0\n").doesNotContain("hello from pypi.test");
        assertThat(server.heads()).isEmpty();
        assertThat(store.records()).extracting(ToolCallRecord::network)
                .as("the direct attempts never reached the proxy; the relay's own port was reached, with no request")
                .allSatisfy(n -> assertThat(n).doesNotContain("\"outcome\":\"reached\""));
    }

    @Test
    void theToolIsAllowlistedEgressSoANoneCeilingRefusesIt() {
        TieredSandbox sandbox = on(IsolationTier.BWRAP);
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(sandbox, network));
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of("run_command")).store(store).build();
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", "{\"argv\":[\"true\"]}"),
                ToolContext.builder("inv", SandboxPaths.of(work)).build());
        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason()).contains(Reason.EGRESS_NOT_PERMITTED);
        assertThat(BuiltinTools.runCommand(sandbox).spec().egress()).isEqualTo(EgressClass.NONE);
        assertThat(BuiltinTools.runCommand(sandbox, network).spec().egress()).isEqualTo(EgressClass.ALLOWLISTED);
    }

    @Test
    void theProxyVariablesAreAddedToTheApplicationsEnvironmentAndNothingElse() {
        TieredSandbox sandbox = on(IsolationTier.BWRAP);
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(sandbox, Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8",
                "JAVA_TOOL_OPTIONS", "-Xmx64m"), network));
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of("run_command")).store(store).build();
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", "{\"argv\":[\"env\"]}"),
                ToolContext.builder("inv", SandboxPaths.of(work)).egressCeiling(EgressClass.ALLOWLISTED).build());
        String proxy = "http://127.0.0.1:3128";
        assertThat(r.content()).contains("HTTP_PROXY=" + proxy + "\n", "HTTPS_PROXY=" + proxy + "\n",
                "http_proxy=" + proxy + "\n", "https_proxy=" + proxy + "\n", "NO_PROXY=localhost,127.0.0.1,::1\n",
                "npm_config_proxy=" + proxy + "\n", "PIP_PROXY=" + proxy + "\n", "YARN_HTTPS_PROXY=" + proxy + "\n",
                "GIT_CONFIG_KEY_0=http.proxy\n", "GIT_CONFIG_VALUE_0=" + proxy + "\n",
                "JAVA_TOOL_OPTIONS=-Xmx64m -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttps.proxyHost=127.0.0.1",
                "LANG=C.UTF-8\n").doesNotContain("TOOLYARD_PARENT_SECRET");
        assertThatThrownBy(() -> BuiltinTools.runCommand(sandbox, Map.of("HTTPS_PROXY", "http://elsewhere:1"), network))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HTTPS_PROXY");
    }

    /** A static file server on 127.0.0.1 (Python's http.server), for the package-manager tests; loopback only. */
    private static final class FileServer implements AutoCloseable {
        final Process process;
        final int port;

        FileServer(Path root) throws Exception {
            int p;
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
                p = probe.getLocalPort();
            }
            this.port = p;
            this.process = new ProcessBuilder("/usr/bin/python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory",
                    root.toString(), Integer.toString(p)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                try (java.net.Socket s = new java.net.Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), p), 200);
                    return;
                } catch (java.io.IOException e) {
                    if (System.nanoTime() > deadline || !process.isAlive()) {
                        close();
                        throw new IllegalStateException("the test's file server did not start", e);
                    }
                    Thread.sleep(50);
                }
            }
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            process.waitFor();
        }
    }

    private CommandNetwork networkTo(int port) {
        return CommandNetwork.builder(List.of("pypi.test:" + port, "git.test:" + port, "127.0.0.1"),
                new ScriptedResolver().answer("pypi.test", "127.0.0.1").answer("git.test", "127.0.0.1"))
                .socketFactory(sockets).build();
    }

    private ToolResult runWith(TieredSandbox sandbox, CommandNetwork net, String... argv) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(sandbox, Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", "/tmp"), net));
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of("run_command")).store(store).build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(Duration.ofSeconds(90))
                .egressCeiling(EgressClass.ALLOWLISTED).build();
        String args = Stream.of(argv).map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"")
                .reduce((a, b) -> a + "," + b).map(s -> "{\"argv\":[" + s + "]}").orElseThrow();
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", args), ctx);
        assertThat(r.status()).as(r.content() + r.reasonDetail()).isEqualTo(ToolStatus.OK);
        return r;
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void pipInstallsAPackageFromASimpleIndexTheTestServes(IsolationTier tier, @TempDir Path served) throws Exception {
        TieredSandbox sandbox = on(tier);
        HostTools.require(Files.isExecutable(Path.of("/usr/bin/python3")), "/usr/bin/python3 is not installed");
        Path dir = Files.createDirectories(served.resolve("simple/tinypkg"));
        writeWheel(dir.resolve("tinypkg-1.0-py3-none-any.whl"));
        try (FileServer files = new FileServer(served)) {
            // pip ignores a plain-HTTP index on any host but localhost unless it is named trusted.
            ToolResult r = runWith(sandbox, networkTo(files.port), "python3", "-m", "pip", "install", "--no-cache-dir",
                    "--disable-pip-version-check", "--target", "deps", "--trusted-host", "pypi.test", "--index-url",
                    "http://pypi.test:" + files.port + "/simple/", "tinypkg");
            assertThat(r.content()).as(r.content()).startsWith("exit_code: 0\n").contains("Successfully installed tinypkg-1.0")
                    .contains("reached pypi.test:" + files.port + " (127.0.0.1)");
            assertThat(work.resolve("deps/tinypkg/__init__.py")).content().contains("hello from tinypkg");
        }
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void gitClonesOverHttpFromAServerTheTestRuns(IsolationTier tier, @TempDir Path served) throws Exception {
        TieredSandbox sandbox = on(tier);
        HostTools.require(HostTools.which("git").isPresent(), "git is not installed");
        Path src = Files.createDirectories(served.resolve("src"));
        Files.writeString(src.resolve("README"), "cloned through the proxy\n");
        git(src, "init", "-q", "-b", "main");
        git(src, "add", "README");
        git(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one");
        git(served, "clone", "-q", "--bare", "src", "repo.git");
        git(served.resolve("repo.git"), "update-server-info"); // the dumb HTTP protocol: plain files
        try (FileServer files = new FileServer(served)) {
            ToolResult r = runWith(sandbox, networkTo(files.port), "git", "clone", "-q",
                    "http://git.test:" + files.port + "/repo.git", "cloned");
            assertThat(r.content()).as(r.content()).startsWith("exit_code: 0\n")
                    .contains("reached git.test:" + files.port + " (127.0.0.1)");
            assertThat(work.resolve("cloned/README")).hasContent("cloned through the proxy\n");
        }
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER", "GVISOR"})
    void npmInstallsAPackageFromARegistryTheTestServes(IsolationTier tier, @TempDir Path served) throws Exception {
        // npm reserves more address space than the other tools (RLIMIT_AS is the memory limit on bubblewrap).
        TieredSandbox sandbox = on(tier, 4L << 30);
        HostTools.require(Files.isExecutable(Path.of("/usr/bin/npm")) && Files.isExecutable(Path.of("/usr/bin/node")),
                "npm and node are not installed at /usr/bin (.ci/setup-cedar.sh installs them)");
        try (FileServer files = new FileServer(served)) {
            String registry = "http://registry.test:" + files.port + "/";
            writeNpmPackage(served, registry);
            CommandNetwork net = CommandNetwork.builder(List.of("registry.test:" + files.port, "127.0.0.1"),
                    new ScriptedResolver().answer("registry.test", "127.0.0.1")).socketFactory(sockets).build();
            // npm is told nothing about the proxy here: it finds it in the environment the tool adds.
            ToolResult r = runWith(sandbox, net, "npm", "install", "--registry", registry, "--no-audit", "--no-fund",
                    "--no-update-notifier", "--loglevel", "error", "tinypkg");
            assertThat(r.content()).as(r.content()).startsWith("exit_code: 0\n")
                    .contains("reached registry.test:" + files.port + " (127.0.0.1)");
            assertThat(work.resolve("node_modules/tinypkg/index.js")).content().contains("hello from tinypkg on npm");
            assertThat(lastRecord().network()).contains("\"host\":\"registry.test\"", "\"outcome\":\"reached\"")
                    .doesNotContain("\"refused\":1");
        }
    }

    /**
     * A registry of one package as static files: the packument at {@code /tinypkg} and the tarball
     * it names, with the integrity npm checks.
     */
    private static void writeNpmPackage(Path served, String registry) throws Exception {
        Path pkg = Files.createDirectories(served.resolve("build/package"));
        Files.writeString(pkg.resolve("package.json"), "{\"name\":\"tinypkg\",\"version\":\"1.0.0\",\"main\":\"index.js\"}\n");
        Files.writeString(pkg.resolve("index.js"), "module.exports = 'hello from tinypkg on npm';\n");
        Path tgz = Files.createDirectories(served.resolve("tarballs")).resolve("tinypkg-1.0.0.tgz");
        Process tar = new ProcessBuilder("tar", "-czf", tgz.toString(), "-C", served.resolve("build").toString(), "package")
                .redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as("tar: " + out).isZero();
        byte[] bytes = Files.readAllBytes(tgz);
        String integrity = "sha512-" + java.util.Base64.getEncoder().encodeToString(
                java.security.MessageDigest.getInstance("SHA-512").digest(bytes));
        String shasum = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(bytes));
        Files.writeString(served.resolve("tinypkg"), "{\"name\":\"tinypkg\",\"dist-tags\":{\"latest\":\"1.0.0\"},"
                + "\"versions\":{\"1.0.0\":{\"name\":\"tinypkg\",\"version\":\"1.0.0\",\"main\":\"index.js\","
                + "\"dist\":{\"tarball\":\"" + registry + "tarballs/tinypkg-1.0.0.tgz\",\"integrity\":\"" + integrity
                + "\",\"shasum\":\"" + shasum + "\"}}}}\n");
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
    }

    /** A minimal wheel: one module and the dist-info pip checks (METADATA, WHEEL, RECORD with digests). */
    private static void writeWheel(Path wheel) throws Exception {
        Map<String, byte[]> files = new java.util.LinkedHashMap<>();
        files.put("tinypkg/__init__.py", "GREETING = \"hello from tinypkg\"\n".getBytes(StandardCharsets.UTF_8));
        files.put("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n".getBytes(StandardCharsets.UTF_8));
        files.put("tinypkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
                .getBytes(StandardCharsets.UTF_8));
        StringBuilder record = new StringBuilder();
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(e.getValue());
            record.append(e.getKey()).append(",sha256=")
                    .append(java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(digest)).append(',')
                    .append(e.getValue().length).append('\n');
        }
        record.append("tinypkg-1.0.dist-info/RECORD,,\n");
        files.put("tinypkg-1.0.dist-info/RECORD", record.toString().getBytes(StandardCharsets.UTF_8));
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(Files.newOutputStream(wheel))) {
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                z.putNextEntry(new java.util.zip.ZipEntry(e.getKey()));
                z.write(e.getValue());
                z.closeEntry();
            }
        }
    }
}
