package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.toolyard.EgressClass;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.BuiltinTools;
import org.junit.jupiter.api.Test;

class WireSpecificationsTest {
    @Test
    void keywordsBelowTheRootReachLangChain4jAsRawSchemaNotDropped() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());

        ToolSpecification spec = WireSpecifications.toSpecification(registry, "read_file");

        assertThat(spec.parameters().properties().get("path")).isInstanceOf(JsonRawSchema.class);
        assertThat(spec.toJson()).contains("\"minLength\":1").contains("\"maxLength\":4096")
                .contains("\"additionalProperties\":false");
    }

    @Test
    void aRootKeywordLangChain4jCannotTypeIsLeftOutSoTheSpecificationStillBuilds() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("count_items").description("Count.")
                .argsSchema("""
                    {"type":"object","minProperties":1,"properties":{"n":{"type":"integer","minimum":0},
                     "opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"additionalProperties":false}},
                     "additionalProperties":false}""")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(), (a, c) -> ToolOutput.of("1"));

        ToolSpecification spec = WireSpecifications.toSpecification(registry, "count_items");

        assertThat(spec.name()).isEqualTo("count_items");
        assertThat(spec.parameters().properties()).containsOnlyKeys("n", "opts");
        assertThat(spec.toJson()).doesNotContain("minProperties").contains("\"minimum\":0");
    }
}
