package dev.toolyard.policy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.policy.Strictness;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class InferenceTest {
    private static List<JsonNode> values(String... json) {
        List<JsonNode> out = new ArrayList<>();
        for (String j : json) {
            out.add(Jsons.MAPPER.readTree(j));
        }
        return out;
    }

    @Test
    void numbersGoFromTheValuesSeenToTheirRangeToTwiceItToAny() {
        List<JsonNode> seen = values("3", "8");
        assertThat(Inference.infer(seen, Strictness.EXACT, false)).isEqualTo(new Constraint.OneOf(List.of("3", "8")));
        assertThat(Inference.infer(seen, Strictness.TIGHT, false))
                .isEqualTo(new Constraint.Range(BigDecimal.valueOf(3), BigDecimal.valueOf(8), true));
        assertThat(Inference.infer(seen, Strictness.BALANCED, false))
                .isEqualTo(new Constraint.Range(BigDecimal.ZERO, BigDecimal.valueOf(16), true));
        assertThat(Inference.infer(seen, Strictness.LOOSE, false)).isEqualTo(new Constraint.Any());
    }

    @Test
    void pathsGoFromTheFilesSeenToTheirDirectoriesToTheFirstSegmentToTheWorkspace() {
        List<JsonNode> seen = values("\"docs/api/a.md\"", "\"docs/guide/b.md\"", "\"README.md\"");
        assertThat(Inference.infer(seen, Strictness.EXACT, true))
                .isEqualTo(new Constraint.PathUnder(List.of("docs/api/a.md", "docs/guide/b.md", "README.md")));
        assertThat(Inference.infer(seen, Strictness.TIGHT, true))
                .isEqualTo(new Constraint.PathUnder(List.of("docs/api", "docs/guide", "README.md")));
        assertThat(Inference.infer(seen, Strictness.BALANCED, true))
                .isEqualTo(new Constraint.PathUnder(List.of("docs", "README.md")));
        assertThat(Inference.infer(seen, Strictness.LOOSE, true)).isEqualTo(new Constraint.PathUnder(List.of(".")));
    }

    @Test
    void urlsKeepTheirSchemesAndHostsAtEveryStrictnessButExact() {
        List<JsonNode> seen = values("\"http://a.internal:9/v1/items/3\"", "\"http://b.internal/guides/x\"");
        assertThat(Inference.infer(seen, Strictness.TIGHT, false)).isEqualTo(new Constraint.Url(List.of("http"),
                List.of("a.internal", "b.internal"), List.of("/guides", "/v1/items")));
        assertThat(Inference.infer(seen, Strictness.LOOSE, false)).isEqualTo(new Constraint.Url(List.of("http"),
                List.of("a.internal", "b.internal"), List.of("/")));
    }

    @Test
    void stringsBecomeCharacterClassesAtBalancedAndABoundedLengthAtLoose() {
        List<JsonNode> seen = values("\"ab-1\"", "\"Cd-22\"", "\"ef\"", "\"gh\"");
        assertThat(Inference.infer(seen, Strictness.BALANCED, false))
                .isEqualTo(new Constraint.CharClass(List.of("digit", "lower", "upper"), "-", 0, 10));
        assertThat(Inference.infer(seen, Strictness.LOOSE, false)).isEqualTo(new Constraint.Length(0, 256));
        assertThat(Inference.infer(values("\"on\"", "\"on\"", "\"on\""), Strictness.BALANCED, false))
                .as("a value repeated is an enumeration").isEqualTo(new Constraint.OneOf(List.of("\"on\"")));
    }

    @Test
    void structuredValuesAreNeverGeneralisedBelowLoose() {
        List<JsonNode> seen = values("[\"ls\",\"-l\"]");
        assertThat(Inference.infer(seen, Strictness.BALANCED, false)).isEqualTo(new Constraint.OneOf(List.of("[\"ls\",\"-l\"]")));
        assertThat(Inference.infer(seen, Strictness.LOOSE, false)).isEqualTo(new Constraint.Any());
    }
}
