package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.spi.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@Timeout(180) // a hang guard only
class CallCommandTest {
    private static final String ECHO = "{\"argv\":[\"/bin/echo\",\"hello\"]}";

    @TempDir
    Path tmp;

    @Test
    void withTierBubblewrapRunCommandRunsOnBubblewrapWhereTheSameCallOtherwiseTakesTheContainer() throws Exception {
        Engines.requireBoth();
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("calls.db");

        CliRun lower = CliRun.of("call", "--tier", "bwrap", "--workspace", ws.toString(), "--tool", "run_command",
                "--args", ECHO, "--store", store.toString(), "--invocation", "low", "--approve");
        CliRun whole = CliRun.of("call", "--workspace", ws.toString(), "--tool", "run_command",
                "--args", ECHO, "--store", store.toString(), "--invocation", "whole", "--approve");

        assertThat(lower.exit()).as(lower.out() + lower.err()).isZero();
        assertThat(content(lower)).contains("tier: bwrap\n").contains("hello");
        Engines.require(content(whole).contains("tier: container\n"), "the container rung did not run the call:\n" + whole.out());
        CliRun records = CliRun.of("records", "--store", store.toString(), "--invocation", "low", "--json");
        assertThat(Json.MAPPER.readTree(records.out()).get("summary").asString()).contains("on bwrap");
    }

    @Test
    void allowCommandHostGivesRunCommandThatHostThroughTheProxyAndNothingElse() throws Exception {
        Engines.requireBoth();
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("calls.db");
        try (LoopbackServer server = new LoopbackServer()) {
            int p = server.port();
            // A literal entry: no name is resolved, so the system resolver is never asked anything here. NO_PROXY
            // names loopback (nothing else is reachable directly), so curl is told to use the proxy even there.
            String script = "curl -sS --noproxy '' --max-time 10 http://127.0.0.1:" + p + "/; "
                    + "curl -s -o /dev/null -w 'other %{http_code}\\n' --max-time 10 http://127.0.0.2:" + p + "/";
            CliRun r = CliRun.of("call", "--tier", "bwrap", "--workspace", ws.toString(), "--tool", "run_command",
                    "--args", "{\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}", "--store", store.toString(),
                    "--invocation", "net", "--approve", "--allow-command-host", "127.0.0.1:" + p);
            CliRun offline = CliRun.of("call", "--tier", "bwrap", "--workspace", ws.toString(), "--tool", "run_command",
                    "--args", "{\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}", "--store", store.toString(),
                    "--invocation", "offline", "--approve");

            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            assertThat(content(r)).contains("hello from the cli test\n", "other 403\n",
                    "--- network ---\nreached 127.0.0.1:" + p + " (127.0.0.1) x1",
                    "ip_literal_not_allowed 127.0.0.2:" + p);
            assertThat(content(offline)).doesNotContain("hello from the cli test").doesNotContain("--- network ---");
            assertThat(server.requests.get()).as("one request reached the server: the allowed one").isEqualTo(1);
        }
    }

    @Test
    void badAllowCommandHostValuesAreRefusedNamingTheOptionBeforeAnythingRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        for (String bad : new String[] {"http://pypi.test", "*", "169.254.169.254", "pypi.test:0", "127.1"}) {
            for (String command : new String[] {"call", "mcp"}) {
                CliRun r = command.equals("call")
                        ? CliRun.of("call", "--workspace", ws.toString(), "--tool", "run_command", "--args", ECHO, "--store",
                                tmp.resolve("calls.db").toString(), "--allow-command-host", bad)
                        : CliRun.of("mcp", "--workspace", ws.toString(), "--allow-command-host", bad);
                assertThat(r.exit()).as(command + " " + bad + ": " + r.err()).isEqualTo(2);
                assertThat(r.err()).as(command).startsWith("toolyard: --allow-command-host '" + bad + "' ");
                assertThat(r.out()).isEmpty();
            }
        }
        assertThat(tmp.resolve("calls.db")).as("nothing ran, so nothing was recorded").doesNotExist();
    }

    @Test
    void aBadAllowHostIsOneLineNamingTheOptionBeforeAnythingRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        CliRun r = CliRun.of("call", "--workspace", ws.toString(), "--tool", "run_command", "--args", ECHO, "--store",
                tmp.resolve("calls.db").toString(), "--allow-host", "http://docs.test/");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("toolyard: --allow-host: ").doesNotContain("Exception");
        assertThat(tmp.resolve("calls.db")).as("nothing ran, so nothing was recorded").doesNotExist();
    }

    private static String content(CliRun r) {
        JsonNode n = Json.MAPPER.readTree(r.out());
        return n.get("content").asString();
    }
}
