package dev.toolyard.internal;

import dev.toolyard.spi.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts plain Java values (strings, numbers, booleans, {@code null}, lists and string-keyed maps of
 * these) to JSON nodes, refusing anything else and anything nested deeper than {@link Json#MAX_DEPTH}
 * (which also stops a map that contains itself). Never calls getters of arbitrary objects.
 * Exported only to ToolYard's own modules.
 */
public final class JsonValues {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonValues() {}

    /** A value that has no JSON form. */
    public static final class NotJson extends Exception {
        private static final long serialVersionUID = 1L;

        NotJson(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * @param map the arguments
     * @return the JSON object
     * @throws NotJson if a value has no JSON form or nesting is too deep
     */
    public static ObjectNode toObject(Map<?, ?> map) throws NotJson {
        return object(map, 1);
    }

    private static ObjectNode object(Map<?, ?> map, int depth) throws NotJson {
        if (depth > Json.MAX_DEPTH) {
            throw new NotJson("arguments nest deeper than " + Json.MAX_DEPTH);
        }
        ObjectNode node = NODES.objectNode();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new NotJson("an object key is not a string");
            }
            node.set(key, value(e.getValue(), depth));
        }
        return node;
    }

    private static JsonNode value(Object v, int depth) throws NotJson {
        if (v == null) {
            return NODES.nullNode();
        } else if (v instanceof String s) {
            return NODES.stringNode(s);
        } else if (v instanceof Boolean b) {
            return NODES.booleanNode(b);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return NODES.numberNode(((Number) v).longValue());
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                throw new NotJson("a number is not finite");
            }
            return NODES.numberNode(d);
        } else if (v instanceof Float f) {
            if (f.isNaN() || f.isInfinite()) {
                throw new NotJson("a number is not finite");
            }
            return NODES.numberNode(f.doubleValue());
        } else if (v instanceof BigInteger bi) {
            return NODES.numberNode(bi);
        } else if (v instanceof BigDecimal bd) {
            return NODES.numberNode(bd);
        } else if (v instanceof Map<?, ?> m) {
            return object(m, depth + 1);
        } else if (v instanceof List<?> list) {
            if (depth + 1 > Json.MAX_DEPTH) {
                throw new NotJson("arguments nest deeper than " + Json.MAX_DEPTH);
            }
            ArrayNode array = NODES.arrayNode(list.size());
            for (Object item : list) {
                array.add(value(item, depth + 1));
            }
            return array;
        }
        throw new NotJson("a value of type " + v.getClass().getName() + " has no JSON form");
    }
}
