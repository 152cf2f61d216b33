package dev.toolyard.contracts.internal;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import com.networknt.schema.path.PathType;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A manifest's {@code [output.schema]}, enforced fail-closed on the parsed output. Refused at load:
 * the {@code $ref} family (a reference is a URI a validator may fetch), and {@code pattern} and
 * {@code patternProperties}, because the text they would run on is the tool's output, which a target
 * can shape, and a backtracking pattern on it is unbounded work. {@code format} is not asserted.
 * Immutable. Thread-safe.
 */
public final class OutputSchema {
    private static final Set<String> REFUSED = Set.of("$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor",
            "$defs", "definitions", "$recursiveRef", "$recursiveAnchor", "$schema", "$vocabulary", "pattern",
            "patternProperties");
    private static final Set<String> DATA = Set.of("const", "enum", "default", "examples", "description", "title");
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder()
                    .formatAssertionsEnabled(false)
                    .pathType(PathType.JSON_PATH)
                    .build()));

    private final Schema schema;

    private OutputSchema(Schema schema) {
        this.schema = schema;
    }

    /**
     * Checks the schema's keywords and compiles it.
     *
     * @param schema the {@code [output.schema]} table
     * @return the compiled schema
     * @throws IllegalArgumentException naming the refused keyword's path
     */
    public static OutputSchema check(ObjectNode schema) {
        walk(schema, "[output.schema]", 0);
        try {
            Schema s = REGISTRY.getSchema(schema);
            s.initializeValidators();
            return new OutputSchema(s);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot be compiled: " + e.getClass().getSimpleName());
        }
    }

    private static void walk(JsonNode node, String path, int depth) {
        if (depth > 32) {
            throw new IllegalArgumentException("nests deeper than 32 levels at " + path);
        }
        if (!node.isObject()) {
            return;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (REFUSED.contains(e.getKey())) {
                throw new IllegalArgumentException("uses '" + e.getKey() + "' at " + path + ", which is refused (no"
                        + " references; no patterns on a tool's output)");
            }
            if (!DATA.contains(e.getKey())) {
                if (e.getKey().equals("properties") && e.getValue().isObject()) {
                    for (Map.Entry<String, JsonNode> p : e.getValue().properties()) {
                        walk(p.getValue(), path + ".properties." + p.getKey(), depth + 1);
                    }
                } else {
                    walk(e.getValue(), path + "." + e.getKey(), depth + 1);
                }
            }
            if (e.getValue().isArray() && !DATA.contains(e.getKey())) {
                for (JsonNode item : e.getValue()) {
                    walk(item, path + "." + e.getKey() + "[]", depth + 1);
                }
            }
        }
    }

    /**
     * @param value the parsed output
     * @return {@code null} when valid, else the first violation as {@code $.json.path: fails "keyword"}
     */
    public String violation(JsonNode value) {
        List<Error> errors;
        try {
            errors = schema.validate(value);
        } catch (RuntimeException | StackOverflowError e) {
            return "$: the output is too complex to validate (" + e.getClass().getSimpleName() + ")";
        }
        if (errors.isEmpty()) {
            return null;
        }
        Error e = errors.get(0);
        StringBuilder b = new StringBuilder("$");
        NodePath at = e.getInstanceLocation();
        for (int i = 0, n = Math.min(at.getNameCount(), 16); i < n; i++) {
            Object element = at.getElement(i);
            if (element instanceof Integer index) {
                b.append('[').append(index.intValue()).append(']');
            } else {
                String s = String.valueOf(element);
                b.append('.').append(s.length() > 64 ? s.substring(0, 64) + "…" : s);
            }
        }
        b.append(": fails \"").append(e.getKeyword()).append('"');
        if (e.getProperty() != null) {
            b.append(" for property '").append(e.getProperty().length() > 64 ? e.getProperty().substring(0, 64)
                    : e.getProperty()).append('\'');
        }
        JsonNode expected = e.getSchemaNode();
        if (expected != null && expected.isValueNode()) {
            String s = expected.toString();
            b.append(" (").append(e.getKeyword()).append(": ").append(s.length() > 80 ? s.substring(0, 80) + "…" : s)
                    .append(')');
        }
        return b.toString();
    }
}
