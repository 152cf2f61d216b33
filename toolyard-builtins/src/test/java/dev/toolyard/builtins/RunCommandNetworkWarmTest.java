package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.IsolationTier;
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
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * run_command with network on a warm TieredSandbox (issue 25, "both rungs, cold and warm"): curl
 * through the proxy on each rung whose warm sandboxes take network, each call's record naming only its
 * own connections. As {@link RunCommandNetworkTest}: a server on 127.0.0.1 reached through names a
 * scripted resolver answers, every upstream socket from a factory that refuses any connect off
 * loopback. That a call ran warm is read inside it: the init of its pid namespace is the warm
 * supervisor, {@code /toolyard-warm} (a cold run's is bubblewrap's or the container's own).
 */
@Tag("isolation")
@Timeout(240) // a hang guard only
class RunCommandNetworkWarmTest {
    @TempDir
    Path work;

    private final InMemoryToolCallStore store = new InMemoryToolCallStore();
    private LoopbackHttpServer server;
    private LoopbackOnlySockets sockets;
    private CommandNetwork network;
    private TieredSandbox sandbox;

    @BeforeEach
    void start() throws Exception {
        server = new LoopbackHttpServer("127.0.0.1", "hello from pypi.test\n".getBytes(StandardCharsets.UTF_8));
        sockets = LoopbackOnlySockets.anyPort();
        ScriptedResolver resolver = new ScriptedResolver()
                .answer("pypi.test", "127.0.0.1")
                .answer("files.test", "127.0.0.1")
                .answer("meta.test", "169.254.169.254");
        int p = server.port();
        network = CommandNetwork.builder(List.of("pypi.test:" + p, "files.test:" + p, "meta.test:" + p, "127.0.0.1"), resolver)
                .socketFactory(sockets).build();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        if (sandbox != null) {
            sandbox.close();
        }
    }

    private TieredSandbox warmOn(IsolationTier tier) {
        Function<String, Optional<Path>> which = TieredSandbox.searchPath();
        TieredSandbox.Builder b = TieredSandbox.builder().warm(true)
                .limits(ResourceLimits.builder().cpuSeconds(20).memoryBytes(1L << 30).fileSizeBytes(64L << 20)
                        .processCount(64).build());
        if (tier == IsolationTier.BWRAP) {
            b.which(name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : which.apply(name));
        } else {
            b.containerImage(RunCommandToolTest.IMAGE);
        }
        sandbox = b.build();
        HostTools.require(sandbox.isolationTier() == tier,
                "the " + tier + " rung is not available on this host: " + sandbox.report().describe());
        HostTools.require(sandbox.proxyRouteUnavailable().isEmpty(),
                "network for commands is unavailable: " + sandbox.proxyRouteUnavailable().orElse(""));
        assertThat(sandbox.report().warmMode()).as("warm mode must be on: this test runs as root").startsWith("on, ");
        return sandbox;
    }

    private ToolResult run(TieredSandbox s, String... argv) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(s, network));
        ToolExecutor executor = ToolExecutor.builder(registry, s).allowlist(Set.of("run_command")).store(store).build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(Duration.ofSeconds(60))
                .egressCeiling(EgressClass.ALLOWLISTED).build();
        String args = Stream.of(argv).map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"")
                .reduce((a, b) -> a + "," + b).map(x -> "{\"argv\":[" + x + "]}").orElseThrow();
        ToolResult r = executor.execute(ToolCallRequest.of("run_command", args), ctx);
        assertThat(r.status()).as(r.content() + r.reasonDetail()).isEqualTo(ToolStatus.OK);
        return r;
    }

    /** curl of {@code host}, as the command's first act, after printing the init of its pid namespace. */
    private ToolResult curl(TieredSandbox s, String host, String... extra) {
        String url = "http://" + host + ":" + server.port() + "/simple/";
        return run(s, "sh", "-c", "printf 'init %s\\n' \"$(tr '\\0' ' ' < /proc/1/cmdline | cut -d' ' -f1)\"; "
                + "curl -sS " + String.join(" ", extra) + " --max-time 20 " + url);
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER"})
    void curlThroughTheProxyWorksWarmAndEachCallsRecordNamesOnlyItsOwnConnections(IsolationTier tier) {
        TieredSandbox s = warmOn(tier);
        ToolResult plain = curl(s, "pypi.test");
        assertThat(plain.content()).startsWith("exit_code: 0\n").contains("init /toolyard-warm\n", "hello from pypi.test\n")
                .contains("--- network ---\nreached pypi.test:" + server.port() + " (127.0.0.1) x1");
        ToolResult tunnel = curl(s, "files.test", "--proxytunnel");
        assertThat(tunnel.content()).startsWith("exit_code: 0\n").contains("init /toolyard-warm\n", "hello from pypi.test\n");
        ToolResult refused = curl(s, "meta.test");
        assertThat(refused.content()).contains("init /toolyard-warm\n");

        List<ToolCallRecord> records = store.records();
        assertThat(records).hasSize(3);
        assertThat(records.get(0).network()).startsWith("{\"connections\":1,\"refused\":0,")
                .contains("\"host\":\"pypi.test\"").doesNotContain("files.test", "meta.test");
        assertThat(records.get(1).network()).startsWith("{\"connections\":1,\"refused\":0,")
                .contains("\"host\":\"files.test\"").doesNotContain("pypi.test", "meta.test");
        assertThat(records.get(2).network()).contains("\"refused\":1", "\"host\":\"meta.test\"",
                "\"outcome\":\"link_local_address\"").doesNotContain("pypi.test", "files.test");
        assertThat(server.heads()).hasSize(2);
        assertThat(sockets.attempts()).extracting(InetSocketAddress::getPort).containsOnly(server.port());
    }
}
