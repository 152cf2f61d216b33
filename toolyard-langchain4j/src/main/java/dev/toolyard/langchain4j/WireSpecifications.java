package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.toolyard.ToolRegistry;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** ToolYard's wire definitions as LangChain4j tool specifications. */
final class WireSpecifications {
    /**
     * The root keywords LangChain4j 1.19.0 represents as a typed object schema; with any other (such as
     * {@code $schema} or {@code $id}) it reads the root as a raw schema and refuses it as parameters.
     * Deeper keywords are kept: it carries them as raw schema to the model.
     */
    private static final Set<String> ROOT_KEYS = Set.of("type", "description", "properties", "required",
            "additionalProperties");
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private WireSpecifications() {}

    /**
     * @throws IllegalArgumentException if LangChain4j cannot express the tool's definition
     */
    static ToolSpecification toSpecification(ToolRegistry registry, String name) {
        JsonNode array = MAPPER.readTree(registry.wireDefinitions(List.of(name)));
        ObjectNode definition = (ObjectNode) array.get(0);
        JsonNode parameters = definition.get("parameters");
        if (parameters instanceof ObjectNode root) {
            root.retain(ROOT_KEYS);
        }
        try {
            return ToolSpecification.fromJson(MAPPER.writeValueAsString(definition));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("tool '" + name + "' cannot be offered to LangChain4j: " + e.getMessage(), e);
        }
    }
}
