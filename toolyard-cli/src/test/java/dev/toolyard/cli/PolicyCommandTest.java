package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.spi.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The policy verbs on toolyard-policy's committed workload fixture and trace files. */
class PolicyCommandTest {
    private static final Path POLICY_RESOURCES = Path.of("../toolyard-policy/src/test/resources/dev/toolyard/policy");

    @TempDir
    Path tmp;

    Path store;

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    @BeforeEach
    void copyTheFixture() throws Exception {
        store = tmp.resolve("workload.db");
        Files.copy(POLICY_RESOURCES.resolve("workload.db"), store, StandardCopyOption.REPLACE_EXISTING);
    }

    private Path synthesize(String strictness) {
        Path out = tmp.resolve(strictness + ".json");
        Run r = run("policy", "synthesize", "--store", store.toString(), "--out", out.toString(), "--strictness", strictness);
        assertThat(r.exit()).as(r.err()).isZero();
        return out;
    }

    @Test
    void synthesizeWritesThePolicyAndValidateOnTheSameRunExitsZero() throws Exception {
        Path policy = synthesize("balanced");
        assertThat(Files.readString(policy)).contains("\"format\": \"toolyard-policy\"", "\"agent\": \"researcher\"");

        Run ok = run("policy", "validate", "--policy", policy.toString(), "--store", store.toString());
        assertThat(ok.exit()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("ok: the policy allows every admitted call");
    }

    @Test
    void validateExitsOneListingEveryDenialWhenThePolicyIsTighterThanTheRun() {
        Path exact = tmp.resolve("one.json");
        Path traces = POLICY_RESOURCES.resolve("traces/captured.json");
        assertThat(run("policy", "synthesize", "--traces", traces.toString(), "--out", exact.toString(),
                "--strictness", "exact").exit()).isZero();

        Run r = run("policy", "validate", "--policy", exact.toString(), "--store", store.toString(), "--json");

        assertThat(r.exit()).isEqualTo(1);
        JsonNode j = Json.MAPPER.readTree(r.out());
        assertThat(j.get("denied").intValue()).isEqualTo(99).isEqualTo(j.get("denials").size());
        assertThat(j.get("denials").get(0).get("detail").stringValue()).startsWith("no policy rule allows tool");
    }

    @Test
    void diffReportsDriftAndAlwaysExitsZero() {
        Path tight = synthesize("exact");
        Run r = run("policy", "diff", "--policy", tight.toString(), "--traces",
                POLICY_RESOURCES.resolve("traces").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("fall outside the policy", "support/read_file: no rule (new tool or agent)");
        assertThat(r.out()).contains("could not be checked");
    }

    @Test
    void exportPrintsTheTextAndListsEveryOmissionOnStandardError() {
        Path policy = synthesize("balanced");
        Run cedar = run("policy", "export", "--policy", policy.toString(), "--format", "cedar");
        Run rego = run("policy", "export", "--policy", policy.toString(), "--format", "rego");
        Run mcp = run("policy", "export", "--policy", policy.toString(), "--format", "mcp-allowlist", "--json");
        Run bad = run("policy", "export", "--policy", policy.toString(), "--format", "xacml");

        assertThat(cedar.out()).contains("permit (");
        assertThat(cedar.err()).contains("OMITTED: rule researcher/http_fetch");
        assertThat(rego.out()).contains("package toolyard.policy", "NOT ENGINE-CHECKED");
        assertThat(rego.err().lines()).hasSize(1);
        assertThat(Json.MAPPER.readTree(mcp.out()).get("omissions").size()).isEqualTo(8);
        assertThat(bad.exit()).isEqualTo(Main.USAGE);
    }

    @Test
    void evaluatePrintsTheHeldOutTableWithItsCaveats() {
        Run r = run("policy", "evaluate", "--store", store.toString());
        Run j = run("policy", "evaluate", "--store", store.toString(), "--json");

        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("balanced", "1/51", "LOWER BOUND", "caveat:");
        JsonNode rows = Json.MAPPER.readTree(j.out()).get("rows");
        assertThat(rows.size()).isEqualTo(4);
        assertThat(rows.get(3).get("heldOutDenied").intValue()).isZero();
    }

    @Test
    void inspectReportsCoverageAndWarnsLoudlyWhenArgumentsWereNotCaptured() {
        Run store = run("policy", "inspect", "--store", this.store.toString(), "--json");
        Run traces = run("policy", "inspect", "--traces", POLICY_RESOURCES.resolve("traces/uncaptured.jsonl").toString());
        Run policy = run("policy", "inspect", "--policy", synthesize("loose").toString());

        JsonNode j = Json.MAPPER.readTree(store.out());
        assertThat(j.get("calls").intValue()).isEqualTo(100);
        assertThat(j.get("argumentsCaptured").intValue()).isEqualTo(99);
        assertThat(traces.err()).contains("WARNING", "content capture appears OFF", "tool-name allowlist");
        assertThat(policy.out()).contains("researcher", "http_fetch");
    }

    @Test
    void userMistakesEndWithOneLineAndExitTwo() {
        Run noSource = run("policy", "synthesize", "--out", tmp.resolve("x.json").toString());
        Run badStrictness = run("policy", "synthesize", "--store", store.toString(), "--out",
                tmp.resolve("x.json").toString(), "--strictness", "paranoid");
        Run notAPolicy = run("policy", "validate", "--policy", store.toString(), "--store", store.toString());

        assertThat(noSource.exit()).isEqualTo(Main.USAGE);
        assertThat(badStrictness.exit()).isEqualTo(Main.USAGE);
        assertThat(badStrictness.err()).contains("exact, tight, balanced, loose");
        assertThat(notAPolicy.exit()).isEqualTo(Main.USAGE);
    }
}
