package dev.toolyard.policy.internal;

import dev.toolyard.spi.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The module's JSON: one strict mapper (duplicate keys refused), and a canonical text for values and
 * documents, so that a policy, a golden file or an enumerated value prints the same bytes every time.
 * Stateless; thread-safe.
 */
public final class Jsons {
    /** Core's one mapper for model input ({@link Json#MAPPER}): duplicate keys refused, depth bounded; thread-safe. */
    public static final JsonMapper MAPPER = Json.MAPPER;
    /** Builds nodes. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Jsons() {}

    /**
     * @param value any JSON value
     * @return its compact canonical text: object keys sorted, numbers in plain form without trailing
     *     zeros, strings escaped as {@link #quote} does; two equal values give equal texts
     */
    public static String canonical(JsonNode value) {
        StringBuilder b = new StringBuilder();
        write(value, b, -1, 0, true);
        return b.toString();
    }

    /**
     * @param document a document whose key order is meaningful (the writer keeps it)
     * @return the document pretty-printed with two spaces and {@code \n}, ending with a newline
     */
    public static String pretty(JsonNode document) {
        StringBuilder b = new StringBuilder();
        write(document, b, 2, 0, false);
        return b.append('\n').toString();
    }

    /**
     * @param n a number
     * @return the number in its canonical plain form ({@code 2.0} and {@code 2} are both {@code 2})
     */
    public static String number(BigDecimal n) {
        BigDecimal s = n.signum() == 0 ? BigDecimal.ZERO : n.stripTrailingZeros();
        return s.scale() < 0 ? s.setScale(0).toPlainString() : s.toPlainString();
    }

    /**
     * @param s any string
     * @return it as a JSON string literal: quotes, backslash and every character below U+0020 or a lone
     *     surrogate escaped, everything else as is
     */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean lone = Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1)));
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || lone || c == 0x7f) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
                if (Character.isHighSurrogate(c)) {
                    b.append(s.charAt(++i));
                }
            }
        }
        return b.append('"').toString();
    }

    private static void write(JsonNode v, StringBuilder b, int indent, int depth, boolean sortKeys) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            b.append("null");
        } else if (v.isBoolean()) {
            b.append(v.booleanValue());
        } else if (v.isNumber()) {
            b.append(number(v.decimalValue()));
        } else if (v.isString()) {
            b.append(quote(v.stringValue()));
        } else if (v.isArray()) {
            if (v.isEmpty()) {
                b.append("[]");
                return;
            }
            b.append('[');
            boolean first = true;
            for (JsonNode e : v.values()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                newline(b, indent, depth + 1);
                write(e, b, indent, depth + 1, sortKeys);
            }
            newline(b, indent, depth);
            b.append(']');
        } else if (v.isObject()) {
            if (v.isEmpty()) {
                b.append("{}");
                return;
            }
            List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(v.properties());
            if (sortKeys) {
                entries.sort(Map.Entry.comparingByKey());
            }
            b.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : entries) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                newline(b, indent, depth + 1);
                b.append(quote(e.getKey())).append(indent < 0 ? ":" : ": ");
                write(e.getValue(), b, indent, depth + 1, sortKeys);
            }
            newline(b, indent, depth);
            b.append('}');
        } else {
            b.append(quote(v.asString()));
        }
    }

    private static void newline(StringBuilder b, int indent, int depth) {
        if (indent >= 0) {
            b.append('\n');
            b.append(" ".repeat(indent * depth));
        }
    }

    /**
     * @param n a number node
     * @return whether its value is a whole number ({@code 2.0} is; JSON Schema's sense of "integer")
     */
    public static boolean isWhole(JsonNode n) {
        if (!n.isNumber()) {
            return false;
        }
        if (n.isIntegralNumber()) {
            return true;
        }
        if (n.isDouble() || n.isFloat()) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return false;
            }
        }
        BigDecimal d = n.decimalValue();
        return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
    }
}
