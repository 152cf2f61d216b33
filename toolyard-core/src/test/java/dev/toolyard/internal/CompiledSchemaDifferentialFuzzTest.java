package dev.toolyard.internal;

import dev.toolyard.spi.Json;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.networknt.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fast path and networknt (as the executor runs it) agree on every schema of the subset and every
 * argument document: the same accept or reject, and on a reject the same detail. The fuzzer's bytes
 * choose a closed schema from the subset (keywords in any order, bounds on their edges, unions,
 * nesting) and then several argument documents that mostly follow it and sometimes stray (wrong
 * types, numbers at and past the bounds, {@code 1e400}, numbers beyond {@code long}, surrogate pairs,
 * undeclared and missing properties, a pattern that backtracks past its budget), some of them with
 * their numbers as the long, {@code BigInteger} and {@code BigDecimal} nodes that arguments given as a
 * Java map become. Each document is read as the executor reads it, by {@link ArgumentsTree} where it
 * answers (its tree must equal Jackson's) and by Jackson where it declines, and that tree is judged.
 *
 * <p>Runs its seed corpus (under src/test/resources) in every build; fuzz longer on demand with
 * {@code JAZZER_FUZZ=1 mvn -pl toolyard-core test -Dtest=CompiledSchemaDifferentialFuzzTest}.
 */
class CompiledSchemaDifferentialFuzzTest {
    private static final String[] NAMES = {"a", "b", "path", "count", "tags", "v"};
    private static final String[] STRINGS = {
        "\"\"", "\"a\"", "\"b\"", "\"abc\"", "\"ab1\"", "\"B\"", "\"x\"", "\"fast\"", "\"aaaa\"", "\"a\\n\"",
        "\"\\ud83d\\ude00\"", "\"\\ud83d\\ude00\\ud83d\\ude00\"", "\"1\"", "\"not an email\"", "\"12\"",
    };
    private static final String[] NUMBERS = {
        "0", "1", "-1", "2", "3", "10", "11", "100", "1.0", "1.5", "-0.0", "0.1", "0.10", "2.5", "5.5",
        "5.500000000000001", "0.09999999999999999", "1e2", "1e-300", "1e18", "1e19", "-1e19", "1e400", "-1e400",
        "12345678901234567890", "12345678901234567891", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "1.2345678901234567890e19", "3.0", "99999999999999999999",
    };
    private static final String[] BOUNDS = {
        "0", "1", "2", "3", "-1", "10", "100", "1e2", "5.5", "2.5", "0.1", "1.0", "12345678901234567890",
        "9223372036854775807", "-9223372036854775808", "1e18",
    };
    private static final String[] COUNTS = {"0", "1", "2", "3", "5", "2.0"};
    private static final String[] PATTERNS = {
        "^[a-z]+$", "b", "^a$", "^\\\\p{Letter}+$", "^(a+)+$", "^[a-z]{2,3}$", "\\\\d", "^$", "^.{2}$", "^\\\\S*$",
    };
    private static final String[] ENUMS = {
        "[\"a\",\"b\"]", "[\"a\",1,true,null]", "[0.1,2.50,3]", "[1.0]", "[\"fast\",\"slow\"]", "[false]",
        "[12345678901234567890,\"x\"]", "[null]",
    };
    private static final String[] CONSTS = {"\"x\"", "\"a\"", "1", "100", "false", "null", "0.1", "12345678901234567890", "1e2"};
    private static final String[] ANNOTATIONS = {
        "\"description\":\"d\"", "\"title\":\"t\"", "\"default\":{\"k\":[1]}", "\"examples\":[\"e\",2]",
        "\"format\":\"email\"", "\"format\":\"uri\"", "\"$comment\":\"c\"", "\"deprecated\":true",
    };
    private static final String[] TYPES = {"string", "integer", "number", "boolean", "null", "array", "object"};

    @FuzzTest(maxDuration = "10s")
    void theFastPathAndNetworkntAgreeOnEveryDocument(FuzzedDataProvider data) {
        Generator g = new Generator(data);
        Model model = g.root();
        String schemaText = model.render();
        JsonNode schema = Json.MAPPER.readTree(schemaText);
        Schema validator = NetworkntValidation.validator(schema);
        Optional<CompiledSchema> compiled = CompiledSchema.compile(schema);
        assertThat(compiled).as("a schema inside the subset compiles: %s", schemaText).isPresent();
        int documents = 1 + data.consumeInt(0, 5);
        for (int i = 0; i < documents; i++) {
            String argumentsText = g.instance(model, 0);
            JsonNode jackson = Json.MAPPER.readTree(argumentsText);
            // The tree the executor judges: the fast reader's where it answers, Jackson's where it declines.
            ObjectNode streamed = ArgumentsTree.read(argumentsText);
            if (streamed != null) {
                ArgumentsTreeDifferentialFuzzTest.assertSameTree(streamed, jackson, argumentsText);
                assertThat(compiled.get().firstViolation(streamed)).as("schema %s%narguments %s (fast reader's tree)",
                        schemaText, argumentsText).isEqualTo(NetworkntValidation.firstViolation(validator, jackson));
            }
            JsonNode arguments = streamed != null ? streamed : jackson;
            if (g.chance(20)) {
                // As JsonValues builds them from a Map: long, BigInteger and BigDecimal nodes.
                arguments = g.retype(arguments);
                argumentsText = arguments + " (numbers retyped: " + kinds(arguments) + ")";
            }
            String reference = NetworkntValidation.firstViolation(validator, arguments);
            String fast = compiled.get().firstViolation(arguments);
            assertThat(fast).as("schema %s%narguments %s", schemaText, argumentsText).isEqualTo(reference);
        }
    }

    private static String kinds(JsonNode node) {
        StringBuilder b = new StringBuilder();
        if (node.isNumber()) {
            b.append(node.numberType()).append(' ');
        }
        for (JsonNode child : node.values()) {
            b.append(kinds(child));
        }
        return b.toString();
    }

    /** A subschema of the subset, its keywords in the order they will be written. */
    private static final class Model {
        final List<String> types = new ArrayList<>();
        final List<String> keywords = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        final List<Model> properties = new ArrayList<>();
        final List<String> required = new ArrayList<>();
        final List<String> enumValues = new ArrayList<>();
        Model items;
        boolean closed;

        String render() {
            StringBuilder b = new StringBuilder("{");
            for (String k : keywords) {
                if (b.length() > 1) {
                    b.append(',');
                }
                if (k.equals("properties")) {
                    b.append("\"properties\":{");
                    for (int i = 0; i < names.size(); i++) {
                        b.append(i == 0 ? "" : ",").append('"').append(names.get(i)).append("\":")
                                .append(properties.get(i).render());
                    }
                    b.append('}');
                } else if (k.equals("items")) {
                    b.append("\"items\":").append(items.render());
                } else {
                    b.append(k);
                }
            }
            return b.append('}').toString();
        }
    }

    private static final class Generator {
        private final FuzzedDataProvider in;
        private int nodes;

        Generator(FuzzedDataProvider in) {
            this.in = in;
        }

        private <T> T pick(T[] values) {
            return values[in.consumeInt(0, values.length - 1)];
        }

        /** The same document with its finite numbers as other node kinds of the same value. */
        JsonNode retype(JsonNode node) {
            JsonNodeFactory nodes = JsonNodeFactory.instance;
            if (node.isObject()) {
                ObjectNode copy = nodes.objectNode();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    copy.set(e.getKey(), retype(e.getValue()));
                }
                return copy;
            }
            if (node.isArray()) {
                ArrayNode copy = nodes.arrayNode();
                for (JsonNode item : node.values()) {
                    copy.add(retype(item));
                }
                return copy;
            }
            if (!node.isNumber() || !Double.isFinite(node.doubleValue())) {
                return node;
            }
            switch (in.consumeInt(0, 3)) {
                case 1:
                    return node.canConvertToLong() && node.isIntegralNumber() ? nodes.numberNode(node.longValue()) : node;
                case 2:
                    return node.isIntegralNumber() ? nodes.numberNode(node.bigIntegerValue()) : node;
                case 3:
                    return nodes.numberNode(node.decimalValue());
                default:
                    return node;
            }
        }

        /** Out of bytes, the provider answers its minimum, so that reads as "no": inputs end in plain documents. */
        boolean chance(int percent) {
            return in.consumeInt(0, 99) >= 100 - percent;
        }

        Model root() {
            Model m = new Model();
            m.types.add("object");
            object(m, 0);
            m.keywords.add("\"type\":\"object\"");
            shuffle(m.keywords);
            return m;
        }

        private void shuffle(List<String> list) {
            for (int i = list.size() - 1; i > 0; i--) {
                int j = in.consumeInt(0, i);
                String t = list.get(i);
                list.set(i, list.get(j));
                list.set(j, t);
            }
        }

        private void object(Model m, int depth) {
            int count = depth > 2 || nodes > 12 ? 0 : in.consumeInt(0, 3);
            for (int i = 0; i < count; i++) {
                String name = pick(NAMES);
                if (!m.names.contains(name)) {
                    m.names.add(name);
                    m.properties.add(subschema(depth + 1));
                    if (chance(50)) {
                        m.required.add(name);
                    }
                }
            }
            if (chance(10)) {
                m.required.add("missing");
            }
            if (!m.names.isEmpty() || chance(30)) {
                m.keywords.add("properties");
            }
            m.closed = m.keywords.contains("properties") || chance(50);
            if (m.closed) {
                m.keywords.add("\"additionalProperties\":false");
            } else if (chance(50)) {
                m.keywords.add("\"additionalProperties\":true");
            }
            if (!m.required.isEmpty()) {
                StringBuilder r = new StringBuilder("\"required\":[");
                for (int i = 0; i < m.required.size(); i++) {
                    r.append(i == 0 ? "" : ",").append('"').append(m.required.get(i)).append('"');
                }
                m.keywords.add(r.append(']').toString());
            }
        }

        private Model subschema(int depth) {
            nodes++;
            Model m = new Model();
            int typeChoice = in.consumeInt(0, 9);
            if (typeChoice < 7) {
                m.types.add(TYPES[typeChoice]);
                m.keywords.add("\"type\":\"" + TYPES[typeChoice] + "\"");
            } else if (typeChoice < 9) {
                int n = 1 + in.consumeInt(0, 2);
                for (int i = 0; i < n; i++) {
                    String t = pick(TYPES);
                    if (!m.types.contains(t)) {
                        m.types.add(t);
                    }
                }
                StringBuilder t = new StringBuilder("\"type\":[");
                for (int i = 0; i < m.types.size(); i++) {
                    t.append(i == 0 ? "" : ",").append('"').append(m.types.get(i)).append('"');
                }
                m.keywords.add(t.append(']').toString());
            } // else: no type, so every keyword applies by the kind of the value
            boolean bothNumeric = m.types.contains("integer") && m.types.contains("number");
            int extra = in.consumeInt(0, 3);
            for (int i = 0; i < extra; i++) {
                switch (in.consumeInt(0, 9)) {
                    case 0:
                        if (!bothNumeric) {
                            m.keywords.add("\"" + pick(new String[] {"minimum", "maximum", "exclusiveMinimum",
                                "exclusiveMaximum"}) + "\":" + pick(BOUNDS));
                        }
                        break;
                    case 1:
                        m.keywords.add("\"" + pick(new String[] {"minLength", "maxLength"}) + "\":" + pick(COUNTS));
                        break;
                    case 2:
                        m.keywords.add("\"pattern\":\"" + pick(PATTERNS) + "\"");
                        break;
                    case 3:
                        String e = pick(ENUMS);
                        m.keywords.add("\"enum\":" + e);
                        m.enumValues.add(e);
                        break;
                    case 4:
                        String c = pick(CONSTS);
                        m.keywords.add("\"const\":" + c);
                        m.enumValues.add("[" + c + "]");
                        break;
                    case 5:
                        m.keywords.add("\"" + pick(new String[] {"minItems", "maxItems"}) + "\":" + pick(COUNTS));
                        break;
                    case 6:
                        m.keywords.add(pick(ANNOTATIONS));
                        break;
                    default:
                        break;
                }
            }
            if (m.types.contains("array") || (m.types.isEmpty() && chance(30))) {
                if (depth < 4 && nodes < 14 && chance(80)) {
                    m.items = subschema(depth + 1);
                    m.keywords.add("items");
                }
            }
            if (m.types.contains("object") || (m.types.isEmpty() && chance(20))) {
                object(m, depth);
            }
            shuffle(m.keywords);
            // keep keywords unique: the parser refuses duplicate keys
            List<String> seen = new ArrayList<>();
            m.keywords.removeIf(k -> {
                String key = k.startsWith("\"") ? k.substring(0, k.indexOf(':')) : k;
                if (seen.contains(key)) {
                    return true;
                }
                seen.add(key);
                return false;
            });
            return m;
        }

        /** An argument document for {@code m}: usually of a type it admits, sometimes not. */
        String instance(Model m, int depth) {
            String type;
            if (!m.types.isEmpty() && !chance(15)) {
                type = m.types.get(in.consumeInt(0, m.types.size() - 1));
            } else {
                type = pick(TYPES);
            }
            if (!m.enumValues.isEmpty() && chance(40)) {
                String values = m.enumValues.get(0);
                JsonNode array = Json.MAPPER.readTree(values);
                return array.get(in.consumeInt(0, array.size() - 1)).toString();
            }
            if (depth > 6) {
                type = "null";
            }
            switch (type) {
                case "string":
                    return chance(3) ? "\"" + "a".repeat(3_000) + "!\"" : pick(STRINGS);
                case "integer":
                case "number":
                    return pick(NUMBERS);
                case "boolean":
                    return chance(50) ? "true" : "false";
                case "null":
                    return "null";
                case "array": {
                    int n = in.consumeInt(0, 4);
                    StringBuilder b = new StringBuilder("[");
                    for (int i = 0; i < n; i++) {
                        b.append(i == 0 ? "" : ",").append(m.items != null ? instance(m.items, depth + 1)
                                : instance(new Model(), depth + 1));
                    }
                    return b.append(']').toString();
                }
                default: {
                    List<String> members = new ArrayList<>();
                    for (int i = 0; i < m.names.size(); i++) {
                        if (!chance(m.required.contains(m.names.get(i)) ? 10 : 40)) {
                            members.add("\"" + m.names.get(i) + "\":" + instance(m.properties.get(i), depth + 1));
                        }
                    }
                    if (chance(4)) {
                        members.add("\"zz\":1");
                    }
                    if (chance(2)) {
                        members.add("\"missing\":0");
                    }
                    shuffle(members);
                    return "{" + String.join(",", members) + "}";
                }
            }
        }
    }
}
