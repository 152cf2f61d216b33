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

    private static String content(CliRun r) {
        JsonNode n = Json.MAPPER.readTree(r.out());
        return n.get("content").asString();
    }
}
