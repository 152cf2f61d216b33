package dev.toolyard.policy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ConstraintTest {
    private static JsonNode v(String json) {
        return Jsons.MAPPER.readTree(json);
    }

    @Test
    void enumeratedValuesCompareAsCanonicalJson() {
        Constraint c = new Constraint.OneOf(List.of("2", "\"a\"", "{\"x\":[1,2]}"));
        assertThat(c.check(v("2.0"))).isNull();
        assertThat(c.check(v("{\"x\": [1, 2]}"))).isNull();
        assertThat(c.check(v("{\"x\":[2,1]}"))).isNotNull();
        assertThat(c.check(v("\"b\""))).isNotNull();
    }

    @Test
    void aWholeRangeRefusesFractionsNonNumbersAndValuesOutside() {
        Constraint c = new Constraint.Range(BigDecimal.ZERO, BigDecimal.TEN, true);
        assertThat(c.check(v("10"))).isNull();
        assertThat(c.check(v("4.0"))).isNull();
        assertThat(c.check(v("4.5"))).isEqualTo("is not a whole number");
        assertThat(c.check(v("11"))).isEqualTo("is outside the allowed range");
        assertThat(c.check(v("\"5\""))).isEqualTo("is not a number");
        assertThat(c.check(v("1e400"))).isNotNull();
    }

    @Test
    void lengthAndCharacterClassCountCodePoints() {
        assertThat(new Constraint.Length(0, 2).check(v("\"\ud83d\ude00\ud83d\ude00\""))).isNull();
        Constraint p = new Constraint.CharClass(List.of("lower"), "-", 1, 5);
        assertThat(p.check(v("\"a-b\""))).isNull();
        assertThat(p.check(v("\"a_b\""))).isEqualTo("holds a character this rule does not allow");
        assertThat(p.check(v("\"abcdef\""))).isEqualTo("has a length outside the allowed range");
        assertThat(p.check(v("\"\""))).isNotNull();
    }

    @Test
    void everyFamilyPrintsAndReadsBackTheSame() {
        List<Constraint> all = List.of(new Constraint.Any(), new Constraint.OneOf(List.of("1", "\"x\"")),
                new Constraint.Range(BigDecimal.valueOf(-2), BigDecimal.valueOf(3.5), false), new Constraint.Length(1, 9),
                new Constraint.CharClass(List.of("digit", "upper"), "._", 0, 8), new Constraint.PathUnder(List.of("docs", ".")),
                new Constraint.Url(List.of("https"), List.of("a.example"), List.of("/v1")));
        for (Constraint c : all) {
            assertThat(Constraint.fromJson(c.toJson(), "here")).isEqualTo(c);
        }
    }
}
