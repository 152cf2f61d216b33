package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.policy.internal.Jsons;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class PolicyTest {
    private static JsonNode json(String s) {
        return Jsons.MAPPER.readTree(s);
    }

    private static Policy policy() {
        return PolicySynthesizer.of(Strictness.TIGHT).synthesize(List.of(
                new ObservedCall("bot", "i", "lookup", json("{\"id\":5,\"mode\":\"brief\",\"path\":\"kb/a.md\"}"), true),
                new ObservedCall("bot", "i", "lookup", json("{\"id\":9,\"mode\":\"full\",\"path\":\"kb/b.md\"}"), true)),
                "records");
    }

    @Test
    void denyByDefaultEveryUnseenAgentToolAndArgumentIsRefused() {
        Policy p = policy();
        assertThat(p.decide("bot", "lookup", json("{\"id\":7,\"mode\":\"full\"}")).allowed()).isTrue();
        assertThat(p.decide("other", "lookup", json("{\"id\":7}")).allowed()).isFalse();
        assertThat(p.decide("bot", "delete", json("{}")).allowed()).isFalse();
        assertThat(p.decide("bot", "lookup", json("{\"id\":7,\"force\":true}")).argument()).contains("force");
        assertThat(p.decide("bot", "lookup", json("{\"id\":10}")).detail())
                .isEqualTo("policy rule 'bot/lookup': argument 'id' is outside the allowed range");
        assertThat(p.decide("bot", "lookup", null).allowed()).as("arguments that cannot be checked").isFalse();
    }

    @Test
    void aDenialNamesTheRuleAndArgumentButNoAllowedValue() {
        RuleDecision d = policy().decide("bot", "lookup", json("{\"mode\":\"everything\",\"path\":\"etc/x\"}"));
        assertThat(d.detail()).isEqualTo("policy rule 'bot/lookup': argument 'mode' is not one of the values this rule allows");
        assertThat(d.detail()).doesNotContain("brief", "full", "kb");
        assertThat(policy().decide("bot", "lookup", json("{\"path\":\"etc/x\"}")).detail()).doesNotContain("kb");
    }

    @Test
    void aHostileToolOrArgumentNameIsClippedAndMadePrintableInTheDetail() {
        RuleDecision d = policy().decide("bot", "x\u0000\n" + "y".repeat(200), json("{}"));
        assertThat(d.detail()).doesNotContain("\u0000", "\n").hasSizeLessThan(160);
    }

    @Test
    void aDocumentOfAnotherFormatOrVersionOrWithAnUnknownFamilyIsRefusedNamingThePlace() {
        String good = policy().toJson();
        assertThat(Policy.parse(good)).isEqualTo(policy());
        assertThatThrownBy(() -> Policy.parse("[]")).hasMessageContaining("format");
        assertThatThrownBy(() -> Policy.parse(good.replace("\"version\": 1", "\"version\": 2"))).hasMessageContaining("version");
        assertThatThrownBy(() -> Policy.parse(good.replace("\"kind\": \"enum\"", "\"kind\": \"regex\"")))
                .hasMessageContaining("bot").hasMessageContaining("unknown constraint kind 'regex'");
        assertThatThrownBy(() -> Policy.parse(good.replace("\"default\": \"deny\"", "\"default\": \"allow\"")))
                .hasMessageContaining("deny");
        assertThatThrownBy(() -> Policy.parse(good.replace("\"kb\"", "\"kb/../..\""))).hasMessageContaining("normal form");
    }
}
