package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.policy.internal.Jsons;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PolicySynthesizerTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(Strictness.class)
    void theWorkloadsPolicyAtEachStrictnessIsPinnedByAGoldenFile(Strictness s) throws Exception {
        Policy p = Fixture.synthesizer(s).synthesize(Fixture.calls(tmp), "records");
        Golden.assertMatches("workload-" + s.wireName() + ".policy.json", p.toJson());
    }

    @ParameterizedTest
    @EnumSource(Strictness.class)
    void thePolicyAllowsEveryAdmittedCallItWasLearnedFrom(Strictness s) throws Exception {
        List<ObservedCall> calls = Fixture.calls(tmp);
        Policy p = Fixture.synthesizer(s).synthesize(calls, "records");
        assertThat(PolicyChecks.validate(p, calls)).isEmpty();
    }

    @Test
    void theSameCallsInAnyOrderGiveTheSamePolicyByteForByte() throws Exception {
        List<ObservedCall> calls = new ArrayList<>(Fixture.calls(tmp));
        String first = Fixture.synthesizer(Strictness.BALANCED).synthesize(calls, "records").toJson();
        Collections.shuffle(calls, new Random(7));
        assertThat(Fixture.synthesizer(Strictness.BALANCED).synthesize(calls, "records").toJson()).isEqualTo(first);
        assertThat(Policy.parse(first).toJson()).as("parse and print again").isEqualTo(first);
    }

    @Test
    void refusedCallsAreNotLearnedFromAndWithheldArgumentsTeachNothing() throws Exception {
        List<ObservedCall> calls = Fixture.calls(tmp);
        Policy p = Fixture.synthesizer(Strictness.LOOSE).synthesize(calls, "records");

        assertThat(p.decide("reviewer", "read_file", Jsons.MAPPER.readTree("{\"path\":\"../outside/secrets.txt\"}"))
                .allowed()).as("the refused path escape was not learned").isFalse();
        assertThat(calls).anyMatch(c -> c.tool().equals("write_file") && c.arguments() == null);
        assertThat(p.uncapturedRules()).as("write_file had captured calls too").isEmpty();
    }

    @Test
    void aToolNoneOfWhoseCallsHadArgumentsBecomesANameOnlyRuleAndIsListedAsSuch() throws Exception {
        List<ObservedCall> calls = List.of(new ObservedCall("bot", "i1", "search", null, true),
                new ObservedCall("bot", "i1", "read_file", Jsons.MAPPER.readTree("{\"path\":\"a/b.md\"}"), true));
        Policy p = Fixture.synthesizer(Strictness.BALANCED).synthesize(calls, "traces");

        assertThat(p.uncapturedRules()).containsExactly("bot/search");
        assertThat(p.decide("bot", "search", Jsons.MAPPER.readTree("{\"q\":\"anything at all\"}")).allowed()).isTrue();
        assertThat(p.decide("bot", "read_file", Jsons.MAPPER.readTree("{\"path\":\"a/c.md\"}")).allowed()).isTrue();
        assertThat(p.decide("bot", "read_file", Jsons.MAPPER.readTree("{\"path\":\"z/c.md\"}")).allowed()).isFalse();
    }

    @Test
    void argumentsNamedLikePathsAreTreatedAsPathsWhenNoSpecIsGiven() throws Exception {
        List<ObservedCall> calls = List.of(new ObservedCall("", "i1", "open", Jsons.MAPPER.readTree("{\"file\":\"docs/a/x.md\"}"), true));
        Policy p = PolicySynthesizer.of(Strictness.BALANCED).synthesize(calls, "traces");

        assertThat(p.decide("", "open", Jsons.MAPPER.readTree("{\"file\":\"docs/b/y.md\"}")).allowed()).isTrue();
        assertThat(p.decide("", "open", Jsons.MAPPER.readTree("{\"file\":\"docs/../etc/passwd\"}")).allowed()).isFalse();
    }
}
