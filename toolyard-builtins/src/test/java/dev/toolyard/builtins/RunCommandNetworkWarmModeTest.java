package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolResult;
import dev.toolyard.sandbox.TieredSandbox;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every case of {@link RunCommandNetworkTest} (curl, urllib, pip, git and npm through the proxy; the
 * denied name, IP literal, other port and internal answers refused before any connect; the direct
 * connect that bypasses the proxy; the first connect that never fails) on warm sandboxes: bubblewrap
 * and the container rung run them warm; gVisor, warm too, runs calls with network cold, saying why in its
 * report (runsc reaches a bound unix socket only with host-uds). And, warm only: that a
 * networked call really runs in a warm sandbox, and that each of several calls in sequence has a record
 * naming only its own connections.
 */
@Tag("isolation")
@Timeout(240) // a hang guard only
class RunCommandNetworkWarmModeTest extends RunCommandNetworkTest {
    @Override
    boolean warm() {
        return true;
    }

    /**
     * curl of {@code host}, as the command's first act after printing the init of its pid namespace: the
     * warm supervisor, {@code /toolyard-warm}, in a warm sandbox (a cold run's is bubblewrap's or the
     * container's own).
     */
    private ToolResult curl(TieredSandbox s, String host, String... extra) {
        String url = "http://" + host + ":" + server.port() + "/simple/";
        return run(s, "sh", "-c", "printf 'init %s\\n' \"$(tr '\\0' ' ' < /proc/1/cmdline | cut -d' ' -f1)\"; "
                + "curl -sS " + String.join(" ", extra) + " --max-time 20 " + url);
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER"})
    void curlThroughTheProxyWorksWarmAndEachCallsRecordNamesOnlyItsOwnConnections(IsolationTier tier) {
        TieredSandbox s = on(tier);
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
