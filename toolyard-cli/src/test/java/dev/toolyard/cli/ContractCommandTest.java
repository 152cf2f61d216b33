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

    @Test
    void runTakesItsLadderFromTierAndLowestTierAndABadOneIsOneLineBeforeAnythingRuns() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        Run oldSpelling = run("contract", "run", manifest("kernel_version.clad.toml"), "--workspace", ws.toString(),
                "--store", store.toString(), "--tier", "bubblewrap");
        assertThat(oldSpelling.exit()).isEqualTo(Main.USAGE);
        assertThat(oldSpelling.err()).isEqualTo("toolyard: --tier takes the tier's wire name: --tier bwrap, not --tier"
                + " bubblewrap\n");
        Run inverted = run("contract", "run", manifest("kernel_version.clad.toml"), "--workspace", ws.toString(),
                "--store", store.toString(), "--tier", "bwrap", "--lowest-tier", "container");
        assertThat(inverted.exit()).isEqualTo(Main.USAGE);
        assertThat(inverted.err()).startsWith("toolyard: --lowest-tier container is above --tier bwrap");
        assertThat(store).as("nothing ran, so nothing was recorded").doesNotExist();

        Engines.requireBoth();
        Engines.require(TieredSandbox.searchPath().apply("runsc").isPresent(), "runsc (gVisor) is not installed"
                + " (.ci/setup-sandbox.sh installs it)");
        Run onBwrap = run("contract", "run", manifest("kernel_version.clad.toml"), "--workspace", ws.toString(),
                "--store", store.toString(), "--tier", "bwrap", "--lowest-tier", "bwrap");
        Run onGvisor = run("contract", "run", manifest("kernel_version.clad.toml"), "--workspace", ws.toString(),
                "--store", store.toString(), "--tier", "gvisor", "--lowest-tier", "gvisor");
        assertThat(onBwrap.exit()).as(onBwrap.out() + onBwrap.err()).isZero();
        assertThat(onGvisor.exit()).as(onGvisor.out() + onGvisor.err()).isZero();
        String hostKernel = Files.readString(Path.of("/proc/version"));
        assertThat(envelope(onBwrap).get("tier").stringValue()).isEqualTo("bwrap");
        assertThat(output(onBwrap)).as("bubblewrap shares the host's kernel").isEqualTo(hostKernel);
        assertThat(envelope(onGvisor).get("tier").stringValue()).isEqualTo("gvisor");
        assertThat(output(onGvisor)).as("gVisor answers with its own kernel, not the host's")
                .startsWith("Linux version").isNotEqualTo(hostKernel);
    }

    @Test
    void allowCommandHostGivesAContractsCommandThatHostThroughTheProxyAndNothingElse() throws Exception {
        Engines.requireBoth();
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        try (LoopbackServer server = new LoopbackServer()) {
            String port = Integer.toString(server.port());
            String loopbackGet = loopbackGet(port);
            Run offline = run("contract", "run", loopbackGet, "--arg", "url=http://127.0.0.1:" + port + "/",
                    "--workspace", ws.toString(), "--store", store.toString(), "--tier", "bwrap");
            Run online = run("contract", "run", loopbackGet, "--arg", "url=http://127.0.0.1:" + port + "/",
                    "--workspace", ws.toString(), "--store", store.toString(), "--tier", "bwrap",
                    "--allow-command-host", "127.0.0.1:" + port);

            assertThat(online.exit()).as(online.out() + online.err()).isZero();
            assertThat(output(online)).isEqualTo(LoopbackServer.BODY);
            assertThat(envelope(online).toString()).as("the envelope lists what the command reached")
                    .contains("127.0.0.1:" + port);
            assertThat(envelope(offline).get("status").stringValue()).as("no --allow-command-host: no network")
                    .isEqualTo("error");
            assertThat(envelope(offline).get("exit_code").intValue()).as("curl: could not connect").isEqualTo(7);
            assertThat(output(offline)).isEmpty();
            assertThat(server.requests.get()).as("one request reached the server: the allowed one").isEqualTo(1);
        }
    }

    @Test
    void allowCommandHostIsRefusedNamingTheOptionForABadValueOrAContractThatIsNotACommand() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        String loopbackGet = loopbackGet("8080");
        for (String bad : new String[] {"http://pypi.test", "*", "169.254.169.254", "pypi.test:0"}) {
            Run r = run("contract", "run", loopbackGet, "--arg", "url=http://127.0.0.1:8080/", "--workspace",
                    ws.toString(), "--store", store.toString(), "--allow-command-host", bad);
            assertThat(r.exit()).as(bad + ": " + r.err()).isEqualTo(Main.USAGE);
            assertThat(r.err()).startsWith("toolyard: --allow-command-host '" + bad + "' ");
            assertThat(r.out()).isEmpty();
        }
        Run callback = run("contract", "run", manifest("store_knowledge.clad.toml"), "--arg", "confidence=1",
                "--workspace", ws.toString(), "--store", store.toString(), "--allow-command-host", "pypi.test");
        assertThat(callback.exit()).isEqualTo(Main.USAGE);
        assertThat(callback.err()).isEqualTo("toolyard: --allow-command-host gives a [command] contract's command network;"
                + " store_knowledge is a callback contract\n");
        Run badHost = run("contract", "run", loopbackGet, "--arg", "url=http://127.0.0.1:8080/", "--workspace",
                ws.toString(), "--store", store.toString(), "--allow-host", "http://pypi.test");
        assertThat(badHost.exit()).isEqualTo(Main.USAGE);
        assertThat(badHost.err()).startsWith("toolyard: --allow-host: ");
        assertThat(store).as("nothing ran, so nothing was recorded").doesNotExist();
    }

    @Test
    void allowHostIsRefusedNamingTheOptionForAContractThatIsNotAnHttpContract() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("records.db");
        Run command = run("contract", "run", loopbackGet("8080"), "--arg", "url=http://127.0.0.1:8080/", "--workspace",
                ws.toString(), "--store", store.toString(), "--allow-host", "127.0.0.1");
        assertThat(command.exit()).as(command.err()).isEqualTo(Main.USAGE);
        assertThat(command.err()).isEqualTo("toolyard: --allow-host names the hosts an [http] contract's requests may"
                + " reach; loopback_get is a command contract: the hosts its command may reach are --allow-command-host\n");
        assertThat(command.out()).isEmpty();
        Run callback = run("contract", "run", manifest("store_knowledge.clad.toml"), "--arg", "confidence=1",
                "--workspace", ws.toString(), "--store", store.toString(), "--allow-host", "pypi.test");
        assertThat(callback.exit()).isEqualTo(Main.USAGE);
        assertThat(callback.err()).isEqualTo("toolyard: --allow-host names the hosts an [http] contract's requests may"
                + " reach; store_knowledge is a callback contract\n");
        assertThat(store).as("nothing ran, so nothing was recorded").doesNotExist();
    }

    /** @return the path of loopback_get.clad.toml written for a server on {@code port} */
    private String loopbackGet(String port) throws Exception {
        Path written = tmp.resolve("loopback_get.clad.toml");
        Files.writeString(written, Files.readString(Path.of(manifest("loopback_get.clad.toml"))).replace("PORT", port));
        return written.toString();
    }

    /** The contract's envelope: the result's content. */
    private static JsonNode envelope(Run r) {
        return Json.MAPPER.readTree(Json.MAPPER.readTree(r.out()).get("content").stringValue());
    }

    /** The command's own output, as a text contract's envelope carries it. */
    private static String output(Run r) {
        return envelope(r).at("/results/raw_output").stringValue();
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
