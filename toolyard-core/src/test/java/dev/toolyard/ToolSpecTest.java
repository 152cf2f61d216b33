package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolSpecTest {
    private static ToolSpec.Builder with(String schema) {
        return ToolSpec.builder("tool").description("d").argsSchema(schema).riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE);
    }

    private static void assertRefusedAt(ToolSpec.Builder builder, String jsonPath) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(InvalidToolSpecException.class,
                e -> assertThat(e.jsonPath()).isEqualTo(jsonPath));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "A_tool", "1tool", "tool-name", "tool name", "tööl", "_tool", "Tool"})
    void aNameOutsideThePatternIsRefused(String name) {
        assertRefusedAt(ToolSpec.builder(name).description("d").argsSchema("{\"type\":\"object\"}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE), "$.name");
    }

    @Test
    void theLongestNameIsSixtyFourCharacters() {
        String ok = "a" + "b".repeat(63);
        assertThat(ToolSpec.builder(ok).description("d").argsSchema("{\"type\":\"object\"}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build().name()).isEqualTo(ok);
        assertRefusedAt(ToolSpec.builder(ok + "c").description("d").argsSchema("{\"type\":\"object\"}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE), "$.name");
    }

    @Test
    void securitySettingsHaveNoSilentDefaults() {
        assertRefusedAt(ToolSpec.builder("tool").description("d").argsSchema("{\"type\":\"object\"}")
                .egress(EgressClass.NONE), "$.riskClass");
        assertRefusedAt(ToolSpec.builder("tool").description("d").argsSchema("{\"type\":\"object\"}")
                .riskClass(RiskClass.READ_ONLY), "$.egress");
        assertRefusedAt(ToolSpec.builder("tool").description("d").riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE), "$.parameters");
        assertRefusedAt(ToolSpec.builder("tool").description(" ").argsSchema("{\"type\":\"object\"}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE), "$.description");
    }

    @Test
    void anObjectSchemaWithPropertiesMustBeClosedAtEveryLevel() {
        assertRefusedAt(with("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}"),
                "$.parameters.additionalProperties");
        assertRefusedAt(with("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
                + "\"additionalProperties\":true}"), "$.parameters.additionalProperties");
        assertRefusedAt(with("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
                + "\"additionalProperties\":{\"type\":\"string\"}}"), "$.parameters.additionalProperties");
        assertRefusedAt(with("""
                {"type":"object","additionalProperties":false,"properties":{
                  "outer":{"type":"object","properties":{"inner":{"type":"string"}}}}}"""),
                "$.parameters.properties.outer.additionalProperties");
        assertRefusedAt(with("""
                {"type":"object","additionalProperties":false,"properties":{
                  "list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}}}"""),
                "$.parameters.properties.list.items.additionalProperties");
        assertRefusedAt(with("""
                {"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}},
                 "anyOf":[{"properties":{"b":{"type":"string"}}}]}"""), "$.parameters.anyOf[0].additionalProperties");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"type\":\"object\",\"$ref\":\"http://x/s.json\"}|$.parameters.$ref",
        "{\"type\":\"object\",\"$defs\":{}}|$.parameters.$defs",
        "{\"type\":\"object\",\"definitions\":{}}|$.parameters.definitions",
        "{\"type\":\"object\",\"$id\":\"http://x/\"}|$.parameters.$id",
        "{\"type\":\"object\",\"$anchor\":\"a\"}|$.parameters.$anchor",
        "{\"type\":\"object\",\"$dynamicRef\":\"#a\"}|$.parameters.$dynamicRef",
        "{\"type\":\"object\",\"$dynamicAnchor\":\"a\"}|$.parameters.$dynamicAnchor",
        "{\"type\":\"object\",\"$schema\":\"http://json-schema.org/draft-04/schema#\"}|$.parameters.$schema",
        "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"a\":{\"$ref\":\"#\"}}}|$.parameters.properties.a.$ref",
        "{\"type\":\"object\",\"not\":{\"$ref\":\"file:///etc/passwd\"}}|$.parameters.not.$ref",
    })
    void theRefFamilyIsRefusedWherePresent(String schema, String path) {
        assertRefusedAt(with(schema), path);
    }

    @Test
    void aPropertyNamedLikeAKeywordAndDataUnderConstAreNotMistakenForKeywords() {
        ToolSpec spec = with("""
                {"type":"object","additionalProperties":false,
                 "properties":{"$ref":{"type":"string","const":"x","default":{"$ref":"y"}},
                               "e":{"enum":[{"$id":"z"}]}}}""").build();
        assertThat(spec.argsSchema()).contains("\"$ref\"");
    }

    @Test
    void formatIsAcceptedButNeverAsserted() {
        ToolSpec spec = with("""
                {"type":"object","additionalProperties":false,"properties":{"u":{"type":"string","format":"uri"}}}""")
                .build();
        assertThat(spec.argsSchema()).contains("format");
    }

    @Test
    void anInvalidPatternFailsAtBuildNotAtCallTime() {
        assertThatThrownBy(with("""
                {"type":"object","additionalProperties":false,"properties":{"s":{"type":"string","pattern":"(unclosed"}}}""")
                ::build).isInstanceOf(InvalidToolSpecException.class).hasMessageContaining("$.parameters");
    }

    @Test
    void theRootMustBeAnObjectSchema() {
        assertRefusedAt(with("{\"type\":\"array\"}"), "$.parameters.type");
        assertRefusedAt(with("[]"), "$.parameters");
        assertRefusedAt(with("not json"), "$.parameters");
        assertRefusedAt(with("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strin\"}},"
                + "\"additionalProperties\":false}"), "$.parameters.properties.a.type");
    }

    @Test
    void aSchemaNestedDeeperThanTheLimitIsRefusedAtBuildNotAtCallTime() {
        String deep = "{\"type\":\"object\",\"not\":".repeat(40) + "{}" + "}".repeat(40);
        assertThatThrownBy(with(deep)::build).isInstanceOf(InvalidToolSpecException.class)
                .hasMessageContaining("nests deeper");
    }

    @Test
    void aPathArgumentMustBeATopLevelStringProperty() {
        String schema = """
                {"type":"object","additionalProperties":false,
                 "properties":{"path":{"type":"string"},"n":{"type":"integer"},
                   "nested":{"type":"object","additionalProperties":false,"properties":{"p":{"type":"string"}}}}}""";
        assertThat(with(schema).pathArg("path", PathAccess.READ).build().pathArgs()).containsEntry("path", PathAccess.READ);
        assertRefusedAt(with(schema).pathArg("n", PathAccess.READ), "$.parameters.properties.n.type");
        assertRefusedAt(with(schema).pathArg("missing", PathAccess.WRITE), "$.parameters.properties.missing");
        assertRefusedAt(with(schema).pathArg("p", PathAccess.WRITE), "$.parameters.properties.p");
    }

    @Test
    void equalSpecsAreEqualAndTheSchemaKeepsTheOrderItWasWrittenIn() {
        String schema = "{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"string\"},\"a\":{\"type\":\"string\"}},"
                + "\"additionalProperties\":false}";
        assertThat(with(schema).build()).isEqualTo(with(schema).build());
        assertThat(with(schema).build().argsSchema()).isEqualTo(schema);
        assertThat(with(schema).build()).isNotEqualTo(with(schema).redactArgs(true).build());
    }
}
