package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.policy.internal.Jsons;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyChecksTest {
    @TempDir
    Path tmp;

    @Test
    void theEvaluationSplitsByInvocationAndMeasuresFalseDeniesThatFallAsStrictnessLoosens() throws Exception {
        PolicyChecks.Evaluation e = PolicyChecks.evaluate(Fixture.calls(tmp), Fixture.synthesizer(Strictness.BALANCED));

        assertThat(e.agents()).isEqualTo(3);
        assertThat(e.trainingInvocations()).isEqualTo(9);
        assertThat(e.heldOutInvocations()).isEqualTo(9);
        assertThat(e.rows()).extracting(PolicyChecks.Row::strictness).containsExactly(Strictness.values());
        for (PolicyChecks.Row r : e.rows()) {
            assertThat(r.trainingDenied()).as("%s allows every training call", r.strictness()).isZero();
            assertThat(r.heldOutCalls()).isPositive();
        }
        List<Double> falseDenies = new ArrayList<>();
        e.rows().forEach(r -> falseDenies.add(r.falseDenyRate()));
        assertThat(falseDenies).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        // The committed workload's figures, quoted in docs/policies.md: held-out false denies and foreign allows.
        assertThat(e.rows()).extracting(PolicyChecks.Row::heldOutCalls).containsOnly(51);
        assertThat(e.rows()).extracting(PolicyChecks.Row::heldOutDenied).containsExactly(13, 7, 1, 0);
        assertThat(e.rows()).extracting(PolicyChecks.Row::foreignCalls).containsOnly(102);
        assertThat(e.rows()).extracting(PolicyChecks.Row::foreignAllowed).containsExactly(0, 0, 0, 70);
    }

    @Test
    void validateListsEveryAdmittedCallThePolicyDeniesAndSkipsRefusedOnes() throws Exception {
        Policy p = PolicySynthesizer.of(Strictness.EXACT).synthesize(List.of(
                new ObservedCall("a", "i", "read_file", Jsons.MAPPER.readTree("{\"path\":\"x.md\"}"), true)), "records");
        List<ObservedCall> run = List.of(
                new ObservedCall("a", "j", "read_file", Jsons.MAPPER.readTree("{\"path\":\"x.md\"}"), true),
                new ObservedCall("a", "j", "read_file", Jsons.MAPPER.readTree("{\"path\":\"y.md\"}"), true),
                new ObservedCall("a", "j", "read_file", Jsons.MAPPER.readTree("{\"path\":\"z.md\"}"), false),
                new ObservedCall("a", "j", "write_file", null, true));

        List<PolicyChecks.Denial> denials = PolicyChecks.validate(p, run);

        assertThat(denials).extracting(PolicyChecks.Denial::index).containsExactly(1, 3);
        PolicyChecks.Drift drift = PolicyChecks.drift(p, run);
        assertThat(drift.checked()).isEqualTo(3);
        assertThat(drift.groups()).containsOnlyKeys("a/read_file: argument 'path'", "a/write_file: no rule (new tool or agent)");
        assertThat(drift.uncapturedCalls()).isEqualTo(1);
    }
}
