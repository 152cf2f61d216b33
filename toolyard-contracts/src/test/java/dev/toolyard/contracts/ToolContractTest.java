package dev.toolyard.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.Json;
import dev.toolyard.spi.Text;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Contracts loaded from manifests, bound and called through a real executor (and a real sandbox). */
@Timeout(120) // a hang guard only
class ToolContractTest {
    @TempDir
    Path work;

    private final InMemoryToolCallStore store = new InMemoryToolCallStore();

    private ToolResult call(Tool tool, Sandbox sandbox, String args) {
        return call(tool, sandbox, args, store);
    }

    private ToolResult call(Tool tool, Sandbox sandbox, String args, ToolCallStore store) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        ToolExecutor executor = ToolExecutor.builder(registry, sandbox == null ? new PathContainment() : sandbox)
                .allowlist(Set.of(tool.spec().name())).store(store).build();
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(Duration.ofSeconds(60)).build();
        return executor.execute(ToolCallRequest.of(tool.spec().name(), args), ctx);
    }

    private ToolCallRecord lastRecord() {
        List<ToolCallRecord> all = store.records();
        return all.get(all.size() - 1);
    }

    @Test
    void theContractOfTheIssueCompilesAndRuns() throws Exception {
        Path manifestPath = Manifests.path("store_knowledge.clad.toml");
        ToolContract contract = ToolContract.parse(Files.readString(manifestPath));
        Tool callback = contract.bindCallback((args, ctx) -> ToolOutput.of(args.json().toString()));
        Scope none = Scope.none();
        assertThat(none.isPresent()).isFalse();
        assertThat(ToolContract.OUT_OF_SCOPE.wireName()).isEqualTo("out_of_scope");
        assertThat(ToolContract.RESULT_INVALID.wireName()).isEqualTo("result_invalid");
        assertThat(ToolContract.RESULT_INVALID.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(ToolContract.OUT_OF_SCOPE.status()).isEqualTo(ToolStatus.REFUSED);

        ToolResult r = call(callback, null, "{\"confidence\":\"0.50\",\"fact\":\"water is wet\",\"verified\":\"True\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(Json.MAPPER.readTree(r.content()))
                .isEqualTo(Json.MAPPER.readTree("{\"confidence\":0.5,\"fact\":\"water is wet\",\"verified\":true}"));
    }

    @Test
    void theCallbackGetsDefaultsAndTheModelSeesTheConstraints() throws Exception {
        ToolContract contract = ToolContract.parse(Manifests.text("store_knowledge.clad.toml"));
        JsonNode schema = Json.MAPPER.readTree(contract.inputSchema());
        assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
        assertThat(schema.at("/properties/confidence/minimum").decimalValue()).isEqualByComparingTo("0");
        assertThat(schema.at("/properties/confidence/maximum").decimalValue()).isEqualByComparingTo("1");
        assertThat(schema.at("/required").toString()).isEqualTo("[\"confidence\",\"fact\"]");
        Tool tool = contract.bindCallback((args, ctx) -> ToolOutput.of(args.json().toString()));
        ToolResult r = call(tool, null, "{\"confidence\":1,\"fact\":\"x\"}");
        assertThat(Json.MAPPER.readTree(r.content()).get("verified").booleanValue()).isFalse();
    }

    @Test
    void humanApprovalOrAHighRiskTierNeedsTheExecutorsApprovalGateAndADenialRunsNothing() {
        String base = Manifests.text("store_knowledge.clad.toml");
        assertThat(ToolContract.parse(base).spec().requiresApproval()).isFalse();
        for (String tier : List.of("low", "medium")) {
            assertThat(ToolContract.parse(base.replace("dispatch = \"callback\"",
                    "dispatch = \"callback\"\nrisk_tier = \"" + tier + "\"")).spec().requiresApproval()).as(tier).isFalse();
        }
        for (String line : List.of("human_approval = true", "risk_tier = \"high\"", "risk_tier = \"critical\"")) {
            String manifest = base.replace("dispatch = \"callback\"", "dispatch = \"callback\"\n" + line);
            java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
            Tool tool = ToolContract.parse(manifest).bindCallback((args, ctx) -> {
                ran.incrementAndGet();
                return ToolOutput.of("stored");
            });
            assertThat(tool.spec().requiresApproval()).as(line).isTrue();
            ToolRegistry registry = new ToolRegistry();
            registry.register(tool);
            assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("store_knowledge")).store(store).build()).as(line)
                    .hasMessageContaining("approval");
            for (boolean approve : List.of(false, true)) {
                ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                        .allowlist(Set.of("store_knowledge")).store(store)
                        .approvalGate(request -> java.util.concurrent.CompletableFuture.completedFuture(approve
                                ? dev.toolyard.spi.ApprovalDecision.approve("reviewer")
                                : dev.toolyard.spi.ApprovalDecision.deny("reviewer", "no")))
                        .build();
                ToolResult r = executor.execute(ToolCallRequest.of("store_knowledge",
                        "{\"confidence\":0.5,\"fact\":\"x\"}"), ToolContext.of("inv", SandboxPaths.of(work)));
                assertThat(r.status()).as(line + " approved=" + approve)
                        .isEqualTo(approve ? ToolStatus.OK : ToolStatus.REFUSED);
                assertThat(ran.get()).as(line + " approved=" + approve).isEqualTo(approve ? 1 : 0);
            }
        }
    }

    @Test
    void theGeneratedWireDefinitionIsPinnedByteForByte() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolContract.parse(Manifests.text("nmap_scan.clad.toml")).bindCommand(new FakeSandbox(),
                Scope.load(Manifests.path("scope.toml"))));
        String actual = registry.wireDefinitions(List.of("nmap_scan")) + "\n";
        Path golden = Path.of("src/test/resources/contracts/nmap_scan.wire.json");
        if (Boolean.getBoolean("toolyard.golden.update")) {
            Files.writeString(golden, actual); // regenerate on purpose only, then review the diff
        }
        assertThat(actual).isEqualTo(Files.readString(golden));
    }

    @Test
    void aValueFailingItsTypeIsArgsInvalidNamingTheArgument() {
        Tool tool = ToolContract.parse(Manifests.text("store_knowledge.clad.toml"))
                .bindCallback((args, ctx) -> ToolOutput.of("ran"));
        ToolResult r = call(tool, null, "{\"confidence\":\"NaN\",\"fact\":\"x\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("args_invalid");
        r = call(tool, null, "{\"confidence\":0.5,\"fact\":\"x; rm -rf /\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("args_invalid");
        assertThat(r.reasonDetail()).contains("argument 'fact'").doesNotContain("rm -rf");
        r = call(tool, null, "{\"confidence\":2,\"fact\":\"x\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("args_invalid");
        r = call(tool, null, "{\"confidence\":0.5,\"fact\":\"x\",\"extra\":1}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("args_invalid");
    }

    /** Issue 24, item 8: ToolClad refuses an empty required value, and so must a contract. */
    @Test
    void anEmptyRequiredStringIsArgsInvalidNamingTheArgumentAndNeverRuns() {
        java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
        Tool tool = ToolContract.parse(Manifests.text("store_knowledge.clad.toml"))
                .bindCallback((args, ctx) -> {
                    ran.incrementAndGet();
                    return ToolOutput.of("ran");
                });
        ToolResult r = call(tool, null, "{\"confidence\":0.5,\"fact\":\"\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("args_invalid");
        assertThat(r.reasonDetail()).contains("fact");
        assertThat(ran).hasValue(0);
        assertThat(call(tool, null, "{\"confidence\":0.5,\"fact\":\"x\"}").isOk()).isTrue();
        assertThat(ran).hasValue(1);
    }

    @Test
    void scopeCheckWithNoScopeIsRefusedAtBindAndOutOfScopeAtCall() {
        ToolContract nmap = ToolContract.parse(Manifests.text("nmap_scan.clad.toml"));
        assertThatThrownBy(() -> nmap.bindCommand(new FakeSandbox(), Scope.none()))
                .isInstanceOf(ContractException.class)
                .hasMessageContaining("[args.target] scope_check is enabled but no scope was given");
        Scope scope = Scope.load(Manifests.path("scope.toml"));
        for (String target : List.of("evil.com", "admin.example.com", "192.0.3.1", "192.0.2.0/23")) {
            ToolContract.DryRun d = nmap.dryRun("{\"target\":\"" + target + "\",\"scan_type\":\"list\"}", scope, work);
            assertThat(d.refusal()).as(target).hasValueSatisfying(s -> assertThat(s).startsWith("out_of_scope"));
        }
        assertThat(nmap.dryRun("{\"target\":\"app.example.com\",\"scan_type\":\"list\"}", scope, work).refusal()).isEmpty();
    }

    @Test
    void theArgvIsBuiltFromTheTemplateWithMappingsDefaultsAndEndOfOptions() {
        ToolContract nmap = ToolContract.parse(Manifests.text("nmap_scan.clad.toml"));
        ToolContract.DryRun d = nmap.dryRun("{\"target\":\"192.0.2.10\",\"scan_type\":\"service\"}",
                Scope.load(Manifests.path("scope.toml")), work);
        assertThat(d.argv()).endsWith("nmap", "-sT", "-sV", "--version-intensity", "0", "-n", "-Pn", "--max-rate",
                "1000", "-p", "1-1024", "-oX", "-", "--no-stylesheet", "--", "192.0.2.10");
        assertThat(d.argv().get(0)).endsWith("prlimit");
        assertThat(d.argv()).contains("--nproc=64", "--nofile=256", "--cpu=10");
        ToolContract curl = ToolContract.parse(Manifests.text("curl_fetch.clad.toml"));
        assertThat(curl.dryRun("{\"url\":\"https://example.com/x\"}", Scope.none(), work).argv()).containsExactly(
                "curl", "-s", "-S", "-X", "GET", "--max-time", "5", "--proxy", "http://127.0.0.1:9", "-w",
                "\\n%{http_code}", "--", "https://example.com/x");
        assertThat(curl.dryRun("{\"url\":\"https://example.com/x\",\"header\":\"X-Trace:abc\"}", Scope.none(), work)
                .argv()).containsSubsequence("-H", "X-Trace:abc", "--", "https://example.com/x");
    }

    @Test
    void injectionAttemptsNeverReachTheArgv() {
        ToolContract whois = ToolContract.parse(Manifests.text("whois_lookup.clad.toml"));
        for (String target : List.of("example.com; id", "$(id).example.com", "`id`", "example.com\nevil.com",
                "-oG/tmp/x", "--help", "exаmple.com", "xn--80ak6aa92e.com", "..%2f..%2fetc", "example.com|cat",
                "a b", "127.0.0.1", "169.254.169.254", "0x7f000001", "localhost")) {
            String args = Json.MAPPER.createObjectNode().put("target", target).toString();
            ToolContract.DryRun d = whois.dryRun(args, Scope.none(), work);
            assertThat(d.refusal()).as(target).isPresent();
            assertThat(d.argv()).as(target).isEmpty();
        }
    }

    @Test
    @Tag("isolation")
    void whoisRunsForRealInTheSandboxAndTheEnvelopeIsWhatTheModelSeesAndTheRecordKeeps() throws Exception {
        Manifests.requireBinary("whois");
        TieredSandbox sandbox = Manifests.bwrap();
        Tool tool = ToolContract.parse(Manifests.text("whois_lookup.clad.toml")).bindCommand(sandbox, Scope.none());
        assertThat(tool.spec().requiresIsolation()).isTrue();
        ToolResult r = call(tool, sandbox, "{\"target\":\"example.com\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("tool").stringValue()).isEqualTo("whois_lookup");
        assertThat(e.get("argv").toString()).isEqualTo("[\"whois\",\"-h\",\"127.0.0.1\",\"-p\",\"9\",\"example.com\"]");
        assertThat(e.get("status").stringValue()).isEqualTo("error"); // nothing listens on the discard port
        assertThat(e.get("exit_code").intValue()).isNotZero();
        assertThat(e.get("output_hash").stringValue()).matches("sha256:[0-9a-f]{64}");
        assertThat(e.get("tier").stringValue()).isEqualTo("bwrap");
        assertThat(e.has("started_at") && e.has("ended_at") && e.has("duration_ms")).isTrue();
        assertThat(lastRecord().summary()).isEqualTo(r.content());
    }

    @Test
    @Tag("isolation")
    void aJsonOutputIsParsedAndCheckedAgainstTheOutputSchema() throws Exception {
        TieredSandbox sandbox = Manifests.bwrap();
        Tool tool = ToolContract.parse(Manifests.text("echo_json.clad.toml")).bindCommand(sandbox, Scope.none());
        ToolResult r = call(tool, sandbox, "{\"word\":\"-n two words\",\"count\":99}");
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.OK);
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("argv").toString()).isEqualTo("[\"printf\",\"{\\\"word\\\":\\\"%s\\\",\\\"count\\\":%s}\","
                + "\"-n two words\",\"5\"]");
        assertThat(e.get("results").toString()).isEqualTo("{\"word\":\"-n two words\",\"count\":5}");
        String stdout = "{\"word\":\"-n two words\",\"count\":5}";
        assertThat(e.get("output_hash").stringValue()).isEqualTo("sha256:" + Text.sha256(stdout));
        assertThat(e.get("output_bytes").intValue()).isEqualTo(stdout.length());
        assertThat(e.get("exit_code").intValue()).isZero();
        assertThat(lastRecord().summary()).isEqualTo(r.content());
    }

    @Test
    @Tag("isolation")
    void outputBreakingTheSchemaIsResultInvalidWithThePathAndTheRawOutputInTheRecord() throws Exception {
        TieredSandbox sandbox = Manifests.bwrap();
        String manifest = Manifests.text("echo_json.clad.toml").replace("\"count\\\":%s}}", "\"count\\\":\\\"%s\\\"}}");
        Tool tool = ToolContract.parse(manifest).bindCommand(sandbox, Scope.none());
        String word = "w".repeat(4_096); // the raw output, 4,119 bytes, is over the 4,096-byte summary cap
        String raw = "{\"word\":\"" + word + "\",\"count\":\"2\"}";
        Path database = work.resolve("records.db");
        ToolResult r;
        try (JdbcToolCallStore jdbc = JdbcToolCallStore.sqlite(database)) {
            r = call(tool, sandbox, "{\"word\":\"" + word + "\",\"count\":2}", jdbc);
        }
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("result_invalid");
        assertThat(r.reasonDetail()).isEqualTo("$.count: fails \"type\" (type: \"integer\"); raw output sha256:"
                + Text.sha256(raw) + ", 4119 bytes, kept in the call record");
        assertThat(r.content()).isEqualTo("Tool 'echo_json' - result_invalid: " + r.reasonDetail())
                .doesNotContain("www");
        try (JdbcToolCallStore reopened = JdbcToolCallStore.sqlite(database)) {
            ToolCallRecord kept = reopened.byCallId(r.callId()).orElseThrow();
            assertThat(kept.reason().orElseThrow().wireName()).isEqualTo("result_invalid");
            assertThat(kept.reasonDetail()).isEqualTo(r.reasonDetail());
            assertThat(kept.summary()).isEqualTo(raw);
        }
    }

    @Test
    @Tag("isolation")
    void nmapRunsForRealAndItsXmlIsRefusedForItsDoctypeFailClosed() throws Exception {
        Manifests.requireBinary("nmap");
        TieredSandbox sandbox = Manifests.bwrap();
        Tool tool = ToolContract.parse(Manifests.text("nmap_scan.clad.toml"))
                .bindCommand(sandbox, Scope.load(Manifests.path("scope.toml")));
        ToolResult r = call(tool, sandbox, "{\"target\":\"192.0.2.10\",\"scan_type\":\"list\"}");
        // nmap's XML always declares <!DOCTYPE nmaprun>; ToolClad's rule refuses any DOCTYPE before parsing.
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("result_invalid");
        assertThat(r.reasonDetail()).startsWith("$: the output is XML with a <!DOCTYPE").doesNotContain("<nmaprun");
        assertThat(lastRecord().summary()).contains("<!DOCTYPE nmaprun>").contains("<nmaprun scanner=\"nmap\"");
        r = call(tool, sandbox, "{\"target\":\"evil.example.org\",\"scan_type\":\"list\"}");
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("out_of_scope");
    }

    @Test
    @Tag("isolation")
    void nmapRunThroughBuiltinTextHandsTheModelItsXmlUnparsedInsteadOfFailing() throws Exception {
        Manifests.requireBinary("nmap");
        TieredSandbox sandbox = Manifests.bwrap();
        String manifest = Manifests.text("nmap_scan.clad.toml");
        manifest = manifest.substring(0, manifest.indexOf("[output]")) + "[output]\nformat = \"text\"\n";
        Tool tool = ToolContract.parse(manifest).bindCommand(sandbox, Scope.load(Manifests.path("scope.toml")));
        ToolResult r = call(tool, sandbox, "{\"target\":\"192.0.2.10\",\"scan_type\":\"list\"}"); // -sL -n: no packet
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("status").stringValue()).isEqualTo("success");
        assertThat(e.at("/results/raw_output").stringValue()).contains("<!DOCTYPE nmaprun>")
                .contains("<nmaprun scanner=\"nmap\"").contains("addr=\"192.0.2.10\"");
    }

    /** Writes the nmap-style report script into the workspace; {@code doctype} inserts nmap's own declaration. */
    private void nmapStyleScript(boolean doctype) throws Exception {
        String script = Manifests.text("nmap_style_scan.sh");
        if (doctype) { // where nmap -oX puts it: right after the XML declaration
            script = script.replace("encoding=\"UTF-8\"?>\n", "encoding=\"UTF-8\"?>\n<!DOCTYPE nmaprun>\n");
        }
        Path file = work.resolve("nmap_style_scan");
        Files.writeString(file, script);
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    @Tag("isolation")
    void nmapStyleXmlWithTheStylesheetInstructionAndNoDoctypeIsParsedAndCheckedAgainstTheSchema() throws Exception {
        TieredSandbox sandbox = Manifests.bwrap();
        nmapStyleScript(false);
        Tool tool = ToolContract.parse(Manifests.text("nmap_style_xml.clad.toml")).bindCommand(sandbox, Scope.none());
        ToolResult r = call(tool, sandbox, "{\"target\":\"192.0.2.10\"}");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("status").stringValue()).isEqualTo("success");
        assertThat(e.get("argv").toString()).isEqualTo("[\"./nmap_style_scan\",\"192.0.2.10\"]");
        JsonNode run = e.at("/results/nmaprun");
        assertThat(run.get("scanner").stringValue()).isEqualTo("nmap");
        assertThat(run.get("args").stringValue()).isEqualTo("nmap -sT -p 22,80,443 -oX - 192.0.2.10");
        JsonNode host = run.get("host").get(0);
        assertThat(host.at("/address/0/addr").stringValue()).isEqualTo("192.0.2.10");
        JsonNode ports = host.at("/ports/0/port");
        assertThat(ports).hasSize(3);
        assertThat(ports.get(0).get("portid").stringValue()).isEqualTo("22");
        assertThat(ports.get(0).at("/state/0/state").stringValue()).isEqualTo("open");
        assertThat(ports.get(2).at("/service/0/name").stringValue()).isEqualTo("https");
        assertThat(run.at("/runstats/0/finished/0/exit").stringValue()).isEqualTo("success");
        assertThat(e.get("results").toString()).doesNotContain("xml-stylesheet").doesNotContain("Nmap 7.93 scan");
    }

    @Test
    @Tag("isolation")
    void nmapStyleXmlDeclaringItsDoctypeIsRefusedAsResultInvalidAndTheRecordKeepsIt() throws Exception {
        TieredSandbox sandbox = Manifests.bwrap();
        nmapStyleScript(true);
        Tool tool = ToolContract.parse(Manifests.text("nmap_style_xml.clad.toml")).bindCommand(sandbox, Scope.none());
        ToolResult r = call(tool, sandbox, "{\"target\":\"192.0.2.10\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason().orElseThrow().wireName()).isEqualTo("result_invalid");
        assertThat(r.reasonDetail()).startsWith(
                "$: the output is XML with a <!DOCTYPE or <!ENTITY declaration, which is refused; raw output sha256:");
        assertThat(r.content()).doesNotContain("nmaprun");
        assertThat(lastRecord().summary()).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE nmaprun>\n"
                + "<?xml-stylesheet ").contains("<address addr=\"192.0.2.10\"");
    }

    @Test
    @Tag("isolation")
    void aLimitAboveTheSandboxsOwnIsNeverRaisedAndTheRunEndsAsAnError() throws Exception {
        TieredSandbox sandbox = Manifests.bwrap(); // cpu 20 s
        String manifest = Manifests.text("echo_json.clad.toml").replace("timeout_seconds = 10",
                "timeout_seconds = 10\n\n[tool.limits]\ncpu_seconds = 100000");
        Tool tool = ToolContract.parse(manifest).bindCommand(sandbox, Scope.none());
        JsonNode e = Json.MAPPER.readTree(call(tool, sandbox, "{\"word\":\"w\"}").content());
        assertThat(e.get("status").stringValue()).isEqualTo("error");
        assertThat(e.get("stderr").stringValue()).contains("prlimit");
        manifest = manifest.replace("cpu_seconds = 100000", "cpu_seconds = 5");
        tool = ToolContract.parse(manifest).bindCommand(sandbox, Scope.none());
        e = Json.MAPPER.readTree(call(tool, sandbox, "{\"word\":\"w\"}").content());
        assertThat(e.get("status").stringValue()).isEqualTo("success");
        assertThat(e.get("argv").get(1).stringValue()).isEqualTo("--cpu=5");
    }

    @Test
    @Tag("isolation")
    void curlRunsForRealThroughALoopbackProxyOnly() throws Exception {
        Manifests.requireBinary("curl");
        TieredSandbox sandbox = Manifests.bwrap();
        Tool tool = ToolContract.parse(Manifests.text("curl_fetch.clad.toml")).bindCommand(sandbox, Scope.none());
        ToolResult r = call(tool, sandbox, "{\"url\":\"http://example.com/\"}");
        JsonNode e = Json.MAPPER.readTree(r.content());
        assertThat(e.get("status").stringValue()).isEqualTo("error");
        assertThat(e.get("stderr").stringValue()).contains("127.0.0.1");
    }

    @Test
    void aDigNameCannotCarryAServerAQueryOptionOrAFlag() {
        ToolContract dig = ToolContract.parse(Manifests.text("dig_lookup.clad.toml"));
        for (String name : List.of("@8.8.8.8", "+trace", "-x", "-f/etc/passwd", "example.com @1.1.1.1",
                "example.com\n@1.1.1.1", "localhost", "127.0.0.1", "metadata.google.internal", "*.example.com")) {
            ToolContract.DryRun d = dig.dryRun(Json.MAPPER.createObjectNode().put("name", name).toString(), Scope.none(),
                    work);
            assertThat(d.refusal()).as(name).isPresent();
            assertThat(d.argv()).as(name).isEmpty();
        }
        assertThat(dig.dryRun("{\"name\":\"example.com\",\"record_type\":\"ANY\"}", Scope.none(), work).refusal())
                .isPresent();
        assertThat(dig.dryRun("{\"name\":\"example.com\"}", Scope.none(), work).argv()).containsExactly("dig",
                "@127.0.0.1", "-p", "5300", "+time=2", "+tries=2", "+noall", "+answer", "-f", "dig.gate",
                "example.com", "A");
    }

    /**
     * dig runs for real on the bubblewrap rung, whose network namespace holds only its own loopback.
     * The answer comes from {@link LoopbackDnsResponder}, started by {@code nsenter} in dig's own
     * namespace once the test has seen that it is not the host's. dig waits for it on the FIFO
     * {@code dig.gate}. Nothing here can reach a real resolver: dig's server is fixed to 127.0.0.1, the
     * responder binds 127.0.0.1 and answers loopback only, and the namespace has no other interface.
     */
    @Test
    @Tag("isolation")
    void digRunsForRealAndGetsItsAnswerFromAResponderOnTheSandboxsOwnLoopback() throws Exception {
        Manifests.requireBinary("dig");
        Manifests.requireBinary("nsenter");
        Manifests.requireBinary("mkfifo");
        TieredSandbox sandbox = Manifests.bwrap();
        Path gate = work.resolve("dig.gate");
        gate(gate);
        String name = "t" + Long.toHexString(System.nanoTime()) + ".example.com";
        Tool tool = ToolContract.parse(Manifests.text("dig_lookup.clad.toml")).bindCommand(sandbox, Scope.none());
        java.util.concurrent.CompletableFuture<ToolResult> running = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> call(tool, sandbox, "{\"name\":\"" + name + "\",\"record_type\":\"A\"}"));
        Process responder = null;
        try {
            responder = startInTheNetworkNamespaceOf("dig", name, LoopbackDnsResponder.class, "5300", "192.0.2.53");
            java.io.BufferedReader said = said(responder);
            assertThat(said.readLine()).isEqualTo("ready");
            Files.newOutputStream(gate).close(); // an empty batch: dig goes on to the name it was given

            ToolResult r = running.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(said.readLine()).isEqualTo("answered " + name + ". 1");
            assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
            JsonNode e = Json.MAPPER.readTree(r.content());
            assertThat(e.get("status").stringValue()).isEqualTo("success");
            assertThat(e.get("exit_code").intValue()).isZero();
            assertThat(e.get("tier").stringValue()).isEqualTo("bwrap");
            assertThat(e.get("argv").toString()).endsWith("\"-f\",\"dig.gate\",\"" + name + "\",\"A\"]");
            assertThat(e.at("/results/raw_output").stringValue())
                    .matches("(?s)" + java.util.regex.Pattern.quote(name) + "\\.\\s+300\\s+IN\\s+A\\s+192\\.0\\.2\\.53\\s*");
            assertThat(lastRecord().summary()).isEqualTo(r.content());
        } finally {
            if (responder != null) {
                responder.destroyForcibly();
            }
        }
    }

    /**
     * Starts {@code responder}'s main, by {@code nsenter}, in the network namespace of the sandboxed process
     * named {@code comm} whose arguments include {@code marker}, after checking that namespace is not the
     * host's: the responder can then only ever see that process's own loopback.
     */
    private static Process startInTheNetworkNamespaceOf(String comm, String marker, Class<?> responder,
            String... args) throws Exception {
        long pid = awaitProcess(comm, marker);
        Path netns = Path.of("/proc/" + pid + "/ns/net");
        assertThat(Files.readSymbolicLink(netns)).as(comm + " must run in a network namespace of its own")
                .isNotEqualTo(Files.readSymbolicLink(Path.of("/proc/self/ns/net")));
        Path classes = Path.of(responder.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> command = new java.util.ArrayList<>(List.of("nsenter", "--net=" + netns, "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classes.toString(),
                responder.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static java.io.BufferedReader said(Process p) {
        return new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Makes the FIFO a sandboxed command reads from its workspace before it opens a socket. */
    private static void gate(Path fifo) throws Exception {
        assertThat(new ProcessBuilder("mkfifo", "-m", "0666", fifo.toString()).start().waitFor()).isZero();
        Files.setPosixFilePermissions(fifo, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    @Test
    @Tag("isolation")
    void curlRunsForRealAndGetsItsAnswerFromAProxyOnTheSandboxsOwnLoopback() throws Exception {
        Manifests.requireBinary("curl");
        Manifests.requireBinary("nsenter");
        Manifests.requireBinary("mkfifo");
        TieredSandbox sandbox = Manifests.bwrap();
        Path gate = work.resolve("curl.gate");
        gate(gate);
        // The manifest's proxy, moved to a port the test's responder takes, and "-K curl.gate": curl reads
        // that config file before it connects, so it waits until the responder listens.
        String manifest = Manifests.text("curl_fetch.clad.toml").replace("\"--proxy\", \"http://127.0.0.1:9\"",
                "\"--proxy\", \"http://127.0.0.1:5380\", \"-K\", \"curl.gate\"");
        assertThat(manifest).contains("curl.gate");
        String url = "http://t" + Long.toHexString(System.nanoTime()) + ".example.com/page";
        Tool tool = ToolContract.parse(manifest).bindCommand(sandbox, Scope.none());
        java.util.concurrent.CompletableFuture<ToolResult> running = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> call(tool, sandbox, "{\"url\":\"" + url + "\"}"));
        Process responder = null;
        try {
            responder = startInTheNetworkNamespaceOf("curl", url, LoopbackHttpResponder.class, "5380", "hello from loopback");
            java.io.BufferedReader said = said(responder);
            assertThat(said.readLine()).isEqualTo("ready");
            Files.newOutputStream(gate).close(); // an empty config: curl goes on to the URL it was given

            ToolResult r = running.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(said.readLine()).isEqualTo("answered GET " + url + " HTTP/1.1");
            assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
            JsonNode e = Json.MAPPER.readTree(r.content());
            assertThat(e.get("status").stringValue()).isEqualTo("success");
            assertThat(e.at("/results/raw_output").stringValue()).isEqualTo("hello from loopback\n200");
        } finally {
            if (responder != null) {
                responder.destroyForcibly();
            }
        }
    }

    /** @return the pid of the process named {@code comm} whose arguments include {@code argument} */
    private static long awaitProcess(String comm, String argument) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (java.util.stream.Stream<Path> all = Files.list(Path.of("/proc"))) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    if (!p.getFileName().toString().chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    try {
                        if (Files.readString(p.resolve("comm")).strip().equals(comm)
                                && List.of(Files.readString(p.resolve("cmdline")).split("\0")).contains(argument)) {
                            return Long.parseLong(p.getFileName().toString());
                        }
                    } catch (java.io.IOException gone) {
                        // the process ended while being read
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no " + comm + " process with the argument " + argument + " appeared");
    }

    /** A sandbox for bind-time checks only: running anything on it is a test bug. */
    static final class FakeSandbox implements Sandbox {
        @Override
        public dev.toolyard.IsolationTier isolationTier() {
            return dev.toolyard.IsolationTier.BWRAP;
        }

        @Override
        public dev.toolyard.spi.SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
                java.util.Map<String, String> env) {
            throw new AssertionError("bind-time test ran a command");
        }

        @Override
        public dev.toolyard.spi.PathDecision resolveRead(String candidate, SandboxPaths paths) {
            throw new AssertionError("unused");
        }

        @Override
        public dev.toolyard.spi.PathDecision resolveWrite(String candidate, SandboxPaths paths) {
            throw new AssertionError("unused");
        }
    }
}
