package dev.toolyard.internal;

import dev.toolyard.spi.Text;
import dev.toolyard.spi.Json;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules an argument schema must follow, checked when a spec is built, and the compiled validator.
 * The walk knows which keywords hold subschemas, so a property <em>named</em> {@code $ref} is allowed
 * while the keyword is not, and data under {@code const}, {@code enum} or {@code default} is never
 * mistaken for a schema. Exported only to ToolYard's own modules.
 */
public final class SchemaRules {
    /** Keywords that reference other schemas by URI (a validator may try to fetch one), or name the dialect. */
    private static final Set<String> REFUSED = Set.of(
            "$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor", "$defs", "definitions",
            "$recursiveRef", "$recursiveAnchor", "$schema", "$vocabulary");
    /** Keywords whose value is one subschema. */
    private static final Set<String> ONE = Set.of(
            "additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames",
            "unevaluatedProperties", "unevaluatedItems", "contentSchema", "additionalItems");
    /** Keywords whose value is an array of subschemas. */
    private static final Set<String> ARRAY = Set.of("allOf", "anyOf", "oneOf", "prefixItems");
    /** Keywords whose value maps names to subschemas. */
    private static final Set<String> MAP = Set.of("properties", "patternProperties", "dependentSchemas");
    private static final Set<String> TYPES = Set.of("object", "array", "string", "number", "integer", "boolean", "null");

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder()
                    .formatAssertionsEnabled(false)
                    .pathType(PathType.JSON_PATH)
                    .regularExpressionFactory(BoundedRegex.INSTANCE)
                    .build()));

    private SchemaRules() {}

    /** A rule broken at a JSON path. */
    public static final class Violation extends Exception {
        private static final long serialVersionUID = 1L;
        /** Where the rule broke. */
        private final String path;

        Violation(String path, String problem) {
            super(problem, null, false, false);
            this.path = path;
        }

        /** @return the JSON path where the rule broke */
        public String path() {
            return path;
        }
    }

    /**
     * Checks the rules and compiles the schema.
     *
     * @param schema the parsed schema
     * @return the compiled validator
     * @throws Violation naming the JSON path of the first rule broken
     */
    public static Schema check(JsonNode schema) throws Violation {
        if (!schema.isObject()) {
            throw new Violation("$.parameters", "the argument schema must be a JSON object");
        }
        JsonNode type = schema.get("type");
        if (type == null || !type.isString() || !type.stringValue().equals("object")) {
            throw new Violation("$.parameters.type", "the argument schema must have \"type\": \"object\"");
        }
        walk(schema, "$.parameters", 0);
        try {
            Schema compiled = REGISTRY.getSchema(schema);
            compiled.initializeValidators();
            return compiled;
        } catch (RuntimeException e) {
            throw new Violation("$.parameters", "the validator cannot compile the schema: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Text.clip(e.getMessage(), 200)));
        }
    }

    private static void walk(JsonNode node, String path, int depth) throws Violation {
        if (depth > Json.MAX_DEPTH / 2) {
            throw new Violation(path, "the schema nests deeper than " + (Json.MAX_DEPTH / 2) + " subschemas");
        }
        if (node.isBoolean()) {
            return;
        }
        if (!node.isObject()) {
            throw new Violation(path, "a subschema must be an object or a boolean");
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            String at = path + "." + key;
            if (REFUSED.contains(key)) {
                throw new Violation(at, "\"" + key + "\" is not allowed: references are URIs a validator may fetch");
            }
            if (key.equals("type")) {
                checkType(value, at);
            } else if (key.equals("required")) {
                checkRequired(value, at);
            } else if (ONE.contains(key)) {
                walk(value, at, depth + 1);
            } else if (ARRAY.contains(key)) {
                if (!value.isArray()) {
                    throw new Violation(at, "must be an array of subschemas");
                }
                for (int i = 0; i < value.size(); i++) {
                    walk(value.get(i), at + "[" + i + "]", depth + 1);
                }
            } else if (MAP.contains(key)) {
                if (!value.isObject()) {
                    throw new Violation(at, "must be an object of subschemas");
                }
                for (Map.Entry<String, JsonNode> p : value.properties()) {
                    walk(p.getValue(), at + "." + p.getKey(), depth + 1);
                }
            }
        }
        if (node.has("properties")) {
            JsonNode ap = node.get("additionalProperties");
            if (ap == null || !ap.isBoolean() || ap.booleanValue()) {
                throw new Violation(path + ".additionalProperties",
                        "an object schema with properties must be closed with \"additionalProperties\": false");
            }
        }
    }

    private static void checkType(JsonNode value, String at) throws Violation {
        if (value.isString()) {
            if (!TYPES.contains(value.stringValue())) {
                throw new Violation(at, "unknown type \"" + Text.clip(value.stringValue(), 40) + "\"");
            }
            return;
        }
        if (!value.isArray() || value.isEmpty()) {
            throw new Violation(at, "must be a type name or a non-empty array of type names");
        }
        for (JsonNode t : value) {
            if (!t.isString() || !TYPES.contains(t.stringValue())) {
                throw new Violation(at, "must be a type name or a non-empty array of type names");
            }
        }
    }

    private static void checkRequired(JsonNode value, String at) throws Violation {
        if (!value.isArray()) {
            throw new Violation(at, "must be an array of property names");
        }
        for (JsonNode t : value) {
            if (!t.isString()) {
                throw new Violation(at, "must be an array of property names");
            }
        }
    }

    /**
     * Checks that {@code name} is a top-level property typed {@code string}, as a path argument must be.
     *
     * @param schema the parsed schema
     * @param name the path argument
     * @throws Violation naming the path of the property
     */
    public static void checkPathArg(ObjectNode schema, String name) throws Violation {
        String at = "$.parameters.properties." + name;
        JsonNode props = schema.get("properties");
        JsonNode prop = props == null ? null : props.get(name);
        if (prop == null) {
            throw new Violation(at, "a path argument must name a top-level property of the schema");
        }
        JsonNode type = prop.get("type");
        if (type == null || !type.isString() || !type.stringValue().equals("string")) {
            throw new Violation(at + ".type", "a path argument must be typed \"string\"");
        }
    }
}
