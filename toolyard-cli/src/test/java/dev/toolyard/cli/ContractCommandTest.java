package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.spi.Json;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code toolyard contract validate|schema|test|run} on the manifests under src/test/resources/contracts. */
@Timeout(120) // a hang guard only
class ContractCommandTest {
    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    private static String manifest(String name) {
        try {
            return Path.of(ContractCommandTest.class.getResource("/contracts/" + name).toURI()).toString();
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void validatePrintsTheNameAndBackendAndABrokenManifestIsOneLine() throws Exception {
        Run ok = run("contract", "validate", manifest("echo_json.clad.toml"));
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("ok: echo_json (command)\n");
        Path bad = tmp.resolve("bad.clad.toml");
        Files.writeString(bad, Files.readString(Path.of(manifest("echo_json.clad.toml")))
                .replace("timeout_seconds = 10", "timeout_seconds = 0"));
        Run refused = run("contract", "validate", bad.toString());
        assertThat(refused.exit()).isEqualTo(Main.USAGE);
        assertThat(refused.err()).isEqualTo("toolyard: bad.clad.toml: [tool] timeout_seconds must be at least 1, got 0"
                + " (0 would mean no timeout, which ToolYard never allows)\n");
    }

    @Test
    void schemaPrintsTheClosedInputSchemaAndTheEnvelopeOutputSchema() throws Exception {
        Run r = run("contract", "schema", manifest("echo_json.clad.toml"));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode n = Json.MAPPER.readTree(r.out());
        assertThat(n.at("/inputSchema/additionalProperties").booleanValue()).isFalse();
        assertThat(n.at("/inputSchema/properties/count/type").toString()).isEqualTo("[\"integer\",\"string\"]");
        assertThat(n.at("/outputSchema/properties/results/required").toString()).isEqualTo("[\"word\",\"count\"]");
    }

    @Test
    void testShowsTheArgvAndRunsNothing() throws Exception {
        Run r = run("contract", "test", manifest("nmap_scan.clad.toml"), "--arg", "target=192.0.2.7", "--arg",
                "scan_type=list", "--scope", manifest("scope.toml"));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode n = Json.MAPPER.readTree(r.out());
        assertThat(n.get("argv").toString()).endsWith("\"nmap\",\"-sL\",\"-n\",\"-Pn\",\"--max-rate\",\"1000\",\"-oX\","
                + "\"-\",\"--no-stylesheet\",\"--\",\"192.0.2.7\"]");
        Run refused = run("contract", "test", manifest("nmap_scan.clad.toml"), "--arg", "target=evil.org", "--arg",
                "scan_type=list", "--scope", manifest("scope.toml"));
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.out()).contains("\"refused\" : \"out_of_scope: argument 'target' (scope_target) is not in"
                + " the application's scope\"");
        Run noScope = run("contract", "test", manifest("nmap_scan.clad.toml"), "--arg", "target=192.0.2.7");
        assertThat(noScope.exit()).isEqualTo(Main.USAGE);
        assertThat(noScope.err()).contains("scope_check is enabled but no scope was given");
    }

    @Test
    void runGoesThroughTheExecutorOnTheSandboxAndIsRecorded() throws Exception {
        requireTier();
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        Run r = run("contract", "run", manifest("echo_json.clad.toml"), "--arg", "word=hello", "--arg", "count=3",
                "--workspace", ws.toString(), "--store", store.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode content = Json.MAPPER.readTree(Json.MAPPER.readTree(r.out()).get("content").stringValue());
        assertThat(content.get("results").toString()).isEqualTo("{\"word\":\"hello\",\"count\":3}");
        Run records = run("records", "--store", store.toString(), "--json");
        assertThat(records.out()).contains("\"toolName\":\"echo_json\"");
    }

    @Test
    void aContractNeedingApprovalIsDeniedWithoutATerminalOrApproveAndRunsWithApprove() throws Exception {
        requireTier();
        // The test JVM's stdin is a pipe, so System.console() is null: the non-interactive path.
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        Path manifest = tmp.resolve("echo_json_approved.clad.toml");
        Files.writeString(manifest, Files.readString(Path.of(manifest("echo_json.clad.toml")))
                .replace("timeout_seconds = 10", "timeout_seconds = 10\nhuman_approval = true"));
        Run denied = run("contract", "run", manifest.toString(), "--arg", "word=hello", "--workspace", ws.toString(),
                "--store", store.toString());
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.out()).contains("\"reason\" : \"approval_denied\"").contains("no terminal to ask");
        Run approved = run("contract", "run", manifest.toString(), "--arg", "word=hello", "--workspace", ws.toString(),
                "--store", store.toString(), "--approve");
        assertThat(approved.exit()).as(approved.out() + approved.err()).isZero();
        Run records = run("records", "--store", store.toString(), "--json");
        assertThat(records.out()).containsPattern("\"reason\" ?: ?\"approval_denied\"")
                .containsPattern("\"approver\" ?: ?\"cli --approve \\(.+\\)\"");
    }

    private static void requireTier() {
        TieredSandbox probe = TieredSandbox.builder().containerImage(HostMachine.DEFAULT_IMAGE).build();
        boolean tier = probe.isolationTier() != IsolationTier.UNAVAILABLE;
        Engines.require(tier, "no isolation tier on this host (see .ci/setup-sandbox.sh): " + probe.report().describe());
    }

    @Test
    void aCallbackContractIsNotRunFromTheCommandLine() throws Exception {
        Run r = run("contract", "run", manifest("store_knowledge.clad.toml"), "--arg", "confidence=1", "--workspace",
                tmp.toString(), "--store", tmp.resolve("r.db").toString());
        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("callback contract");
    }
}
