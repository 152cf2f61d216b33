package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.policy.internal.Jsons;
import dev.toolyard.testing.Skip;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class PolicyExportsTest {
    private static final Path ENGINE = Path.of("src/test/cedar/evaluate.mjs");

    @TempDir
    Path tmp;

    private Policy policy(Strictness s) throws Exception {
        return Fixture.synthesizer(s).synthesize(Fixture.calls(tmp), "records");
    }

    @ParameterizedTest
    @EnumSource(Strictness.class)
    void cedarRegoAndMcpExportsArePinnedByGoldenFiles(Strictness s) throws Exception {
        Policy p = policy(s);
        Golden.assertMatches("workload-" + s.wireName() + ".cedar", PolicyExports.cedar(p).text());
        Golden.assertMatches("workload-" + s.wireName() + ".rego", PolicyExports.rego(p).text());
        Golden.assertMatches("workload-" + s.wireName() + ".mcp-allowlist.json", PolicyExports.mcpAllowlist(p).text());
    }

    @Test
    void everyOmissionIsListedInTheFileAndLeavesTheWholeRuleOut() throws Exception {
        Policy p = policy(Strictness.BALANCED);
        PolicyExports.Export cedar = PolicyExports.cedar(p);
        PolicyExports.Export rego = PolicyExports.rego(p);
        PolicyExports.Export mcp = PolicyExports.mcpAllowlist(p);

        assertThat(cedar.omissions()).anyMatch(o -> o.startsWith("OMITTED: rule researcher/http_fetch: argument 'url': a URL"));
        assertThat(cedar.omissions()).anyMatch(o -> o.contains("docs-writer/write_file") && o.contains("character-class"));
        assertThat(rego.omissions()).containsExactly("OMITTED: rule researcher/http_fetch: argument 'url': a URL constraint,"
                + " which this Rego export does not express; the whole rule is left out, so Rego denies these calls");
        for (PolicyExports.Export e : List.of(cedar, rego, mcp)) {
            for (String o : e.omissions()) {
                assertThat(e.text()).contains(o);
            }
        }
        assertThat(cedar.text()).doesNotContain("ToolYard::Tool::\"http_fetch\"");
        assertThat(mcp.omissions()).hasSize(8).allMatch(o -> o.contains("cannot constrain arguments"));
    }

    @Test
    void anUnconstrainedRuleIsTheOnlyKindAnMcpAllowlistLists() throws Exception {
        Policy p = PolicySynthesizer.of(Strictness.BALANCED).synthesize(List.of(
                new ObservedCall("bot", "i", "search", null, true)), "traces");
        JsonNode doc = Jsons.MAPPER.readTree(PolicyExports.mcpAllowlist(p).text());
        assertThat(doc.get("agents").get(0).get("allowedTools").get(0).stringValue()).isEqualTo("search");
    }

    /** Requests: every fixture call, every call replayed as each other agent, and calls off the envelope. */
    private List<ObservedCall> requests() throws Exception {
        List<ObservedCall> out = new ArrayList<>();
        for (ObservedCall c : Fixture.calls(tmp)) {
            if (c.arguments() == null) {
                continue;
            }
            for (String agent : Workload.PERSONAS) {
                out.add(new ObservedCall(agent, c.invocationId(), c.tool(), c.arguments(), true));
            }
        }
        for (String json : List.of("{\"path\":\"docs/../notes/x.md\"}", "{\"path\":\"docs\"}", "{\"path\":\"docs2/x\"}",
                "{\"path\":\"/etc/passwd\"}", "{\"path\":\"src/main/App.java\",\"extra\":1}", "{}", "{\"path\":7}",
                "{\"path\":\"../x\"}", "{\"path\":\"README.md/../src/x\"}")) {
            for (String tool : List.of("read_file", "list_dir")) {
                for (String agent : List.of("docs-writer", "reviewer", "", "intruder")) {
                    out.add(new ObservedCall(agent, "extra", tool, Jsons.MAPPER.readTree(json), true));
                }
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Strictness.class)
    void theRealCedarEngineAgreesWithToolYardOnEveryRequestExceptOmittedRulesWhereItIsStricter(Strictness s)
            throws Exception {
        Policy p = policy(s);
        PolicyExports.Export cedar = PolicyExports.cedar(p);
        List<ObservedCall> requests = requests();
        List<String> decisions = cedarDecisions(cedar.text(), p, requests);

        int agreedAllow = 0;
        int stricter = 0;
        for (int i = 0; i < requests.size(); i++) {
            ObservedCall c = requests.get(i);
            boolean ours = p.decide(c.agent(), c.tool(), c.arguments()).allowed();
            String theirs = decisions.get(i);
            String rule = "rule " + Policy.ruleName(c.agent(), c.tool()) + ":";
            boolean omitted = cedar.omissions().stream().anyMatch(o -> o.startsWith("OMITTED: " + rule));
            assertThat(theirs).as("request %d %s %s", i, c.tool(), c.arguments()).isIn("allow", "deny");
            if (theirs.equals("allow")) {
                assertThat(ours).as("Cedar must never allow what ToolYard denies: %s %s as %s", c.tool(), c.arguments(),
                        c.agent()).isTrue();
                agreedAllow++;
            } else if (ours) {
                assertThat(omitted).as("Cedar denies only where a rule was omitted: %s %s as %s", c.tool(), c.arguments(),
                        c.agent()).isTrue();
                stricter++;
            }
        }
        assertThat(agreedAllow).as("the engine allowed something, so the comparison was not vacuous").isPositive();
        if (s != Strictness.EXACT) {
            assertThat(stricter).as("omitted rules make Cedar stricter").isPositive();
        }
    }

    /** Runs the real engine (@cedar-policy/cedar-wasm under Node) on the requests. */
    static List<String> cedarDecisions(String policies, Policy p, List<ObservedCall> requests) throws Exception {
        Path modules = ENGINE.getParent().resolve("node_modules/@cedar-policy/cedar-wasm");
        Skip.unless(Files.isDirectory(modules) && nodeAvailable(), "the real Cedar engine is not installed ("
                + modules + "); run .ci/setup-cedar.sh");
        ObjectNode input = Jsons.NODES.objectNode().put("policies", policies);
        ArrayNode list = input.putArray("requests");
        for (ObservedCall c : requests) {
            list.add(PolicyExports.cedarRequest(p, c));
        }
        Path file = Files.createTempFile("cedar-requests", ".json");
        try {
            Files.writeString(file, Jsons.canonical(input), StandardCharsets.UTF_8);
            Process proc = new ProcessBuilder("node", ENGINE.toString(), file.toString()).redirectErrorStream(false).start();
            byte[] out = proc.getInputStream().readAllBytes();
            String err = new String(proc.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(proc.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(proc.exitValue()).as("node: %s", err).isZero();
            JsonNode answer = Jsons.MAPPER.readTree(new String(out, StandardCharsets.UTF_8));
            assertThat(answer.get("parse").stringValue()).as("Cedar parses the export").isEqualTo("ok");
            List<String> decisions = new ArrayList<>();
            answer.get("decisions").values().forEach(d -> decisions.add(d.stringValue()));
            assertThat(decisions).hasSize(requests.size());
            return decisions;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static boolean nodeAvailable() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
