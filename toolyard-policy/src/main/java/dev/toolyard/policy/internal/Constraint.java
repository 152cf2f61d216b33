package dev.toolyard.policy.internal;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one argument of one tool may be: one of a closed set of families. Each checks a value in a
 * single pass with no regular expression and no allocation beyond what normalising a path or URL takes.
 * {@link #check} answers {@code null} when the value is inside, otherwise a short phrase naming the
 * family only (never the allowed values), because the phrase reaches the model. Immutable; thread-safe.
 */
public sealed interface Constraint {
    /** @return the family's name in the policy document */
    String kind();

    /**
     * @param value the argument's value; never {@code null} (JSON null is a value)
     * @return {@code null} if allowed, else why not, without revealing the constraint's contents
     */
    String check(JsonNode value);

    /** @return the constraint as it appears in the policy document */
    ObjectNode toJson();

    /** Any value. */
    record Any() implements Constraint {
        @Override
        public String kind() {
            return "any";
        }

        @Override
        public String check(JsonNode value) {
            return null;
        }

        @Override
        public ObjectNode toJson() {
            return Jsons.NODES.objectNode().put("kind", kind());
        }
    }

    /**
     * One of the values seen, compared by canonical JSON ({@code 2} equals {@code 2.0}).
     *
     * @param values the canonical texts, sorted
     */
    record OneOf(List<String> values) implements Constraint {
        /**
         * Copies and sorts.
         *
         * @param values the canonical texts
         */
        public OneOf {
            values = List.copyOf(new TreeSet<>(values));
        }

        @Override
        public String kind() {
            return "enum";
        }

        @Override
        public String check(JsonNode value) {
            return values.contains(Jsons.canonical(value)) ? null : "is not one of the values this rule allows";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode o = Jsons.NODES.objectNode().put("kind", kind());
            ArrayNode a = o.putArray("values");
            for (String v : values) {
                a.add(Jsons.MAPPER.readTree(v));
            }
            return o;
        }
    }

    /**
     * A number in {@code [min, max]}; whole numbers only when {@code whole}.
     *
     * @param min lower bound, inclusive
     * @param max upper bound, inclusive
     * @param whole whether only whole numbers are allowed
     */
    record Range(BigDecimal min, BigDecimal max, boolean whole) implements Constraint {
        @Override
        public String kind() {
            return "range";
        }

        @Override
        public String check(JsonNode value) {
            if (!value.isNumber()) {
                return "is not a number";
            }
            if (whole && !Jsons.isWhole(value)) {
                return "is not a whole number";
            }
            if (value.isDouble() && !Double.isFinite(value.doubleValue())) {
                return "is outside the allowed range";
            }
            BigDecimal v = value.decimalValue();
            return v.compareTo(min) >= 0 && v.compareTo(max) <= 0 ? null : "is outside the allowed range";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode o = Jsons.NODES.objectNode().put("kind", kind());
            o.put("min", new BigDecimal(Jsons.number(min)));
            o.put("max", new BigDecimal(Jsons.number(max)));
            return o.put("whole", whole);
        }
    }

    /**
     * A string of {@code min..max} code points.
     *
     * @param min fewest code points
     * @param max most code points
     */
    record Length(int min, int max) implements Constraint {
        @Override
        public String kind() {
            return "length";
        }

        @Override
        public String check(JsonNode value) {
            if (!value.isString()) {
                return "is not a string";
            }
            String s = value.stringValue();
            int n = s.codePointCount(0, s.length());
            return n >= min && n <= max ? null : "has a length outside the allowed range";
        }

        @Override
        public ObjectNode toJson() {
            return Jsons.NODES.objectNode().put("kind", kind()).put("min", min).put("max", max);
        }
    }

    /**
     * A string of {@code min..max} code points, each in one of the named classes ({@code lower} a-z,
     * {@code upper} A-Z, {@code digit} 0-9) or among the literal characters.
     *
     * @param classes class names, sorted
     * @param chars literal code points, sorted, as a string
     * @param min fewest code points
     * @param max most code points
     */
    record CharClass(List<String> classes, String chars, int min, int max) implements Constraint {
        /** The class names a pattern may use. */
        public static final List<String> CLASSES = List.of("digit", "lower", "upper");

        /**
         * Copies and sorts.
         *
         * @param classes class names
         * @param chars literal code points
         * @param min fewest code points
         * @param max most code points
         */
        public CharClass {
            classes = List.copyOf(new TreeSet<>(classes));
            chars = sortedDistinct(chars);
        }

        @Override
        public String kind() {
            return "pattern";
        }

        /**
         * @param cp a code point
         * @return whether the code point is allowed
         */
        public boolean allows(int cp) {
            if (cp >= 'a' && cp <= 'z') {
                return classes.contains("lower") || chars.indexOf(cp) >= 0;
            }
            if (cp >= 'A' && cp <= 'Z') {
                return classes.contains("upper") || chars.indexOf(cp) >= 0;
            }
            if (cp >= '0' && cp <= '9') {
                return classes.contains("digit") || chars.indexOf(cp) >= 0;
            }
            return chars.indexOf(cp) >= 0;
        }

        @Override
        public String check(JsonNode value) {
            if (!value.isString()) {
                return "is not a string";
            }
            String s = value.stringValue();
            int n = 0;
            for (int i = 0; i < s.length(); ) {
                int cp = s.codePointAt(i);
                if (!allows(cp)) {
                    return "holds a character this rule does not allow";
                }
                i += Character.charCount(cp);
                n++;
            }
            return n >= min && n <= max ? null : "has a length outside the allowed range";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode o = Jsons.NODES.objectNode().put("kind", kind());
            ArrayNode a = o.putArray("classes");
            classes.forEach(a::add);
            return o.put("chars", chars).put("min", min).put("max", max);
        }

        static String sortedDistinct(String s) {
            TreeSet<Integer> cps = new TreeSet<>();
            s.codePoints().forEach(cps::add);
            StringBuilder b = new StringBuilder();
            cps.forEach(b::appendCodePoint);
            return b.toString();
        }
    }

    /**
     * A path under one of the prefixes (see {@link PathValues}).
     *
     * @param prefixes normal forms, sorted
     */
    record PathUnder(List<String> prefixes) implements Constraint {
        /**
         * Copies and sorts.
         *
         * @param prefixes normal forms
         */
        public PathUnder {
            prefixes = List.copyOf(new TreeSet<>(prefixes));
        }

        @Override
        public String kind() {
            return "path";
        }

        @Override
        public String check(JsonNode value) {
            if (!value.isString()) {
                return "is not a path";
            }
            String normal = PathValues.normalize(value.stringValue());
            if (normal == null) {
                return "is not a path inside the workspace";
            }
            for (String p : prefixes) {
                if (PathValues.under(normal, p)) {
                    return null;
                }
            }
            return "is not under a path prefix this rule allows";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode o = Jsons.NODES.objectNode().put("kind", kind());
            ArrayNode a = o.putArray("prefixes");
            prefixes.forEach(a::add);
            return o;
        }
    }

    /**
     * An http(s) URL with one of the schemes, one of the hosts and a path under one of the prefixes.
     *
     * @param schemes lower case, sorted
     * @param hosts lower case, sorted
     * @param pathPrefixes starting with {@code /}, sorted
     */
    record Url(List<String> schemes, List<String> hosts, List<String> pathPrefixes) implements Constraint {
        /**
         * Copies and sorts.
         *
         * @param schemes lower case
         * @param hosts lower case
         * @param pathPrefixes starting with {@code /}
         */
        public Url {
            schemes = List.copyOf(new TreeSet<>(schemes));
            hosts = List.copyOf(new TreeSet<>(hosts));
            pathPrefixes = List.copyOf(new TreeSet<>(pathPrefixes));
        }

        @Override
        public String kind() {
            return "url";
        }

        @Override
        public String check(JsonNode value) {
            if (!value.isString()) {
                return "is not a URL";
            }
            UrlValues.Parts parts = UrlValues.parse(value.stringValue());
            if (parts == null) {
                return "is not a plain http(s) URL";
            }
            if (!schemes.contains(parts.scheme())) {
                return "has a scheme this rule does not allow";
            }
            if (!hosts.contains(parts.host())) {
                return "names a host this rule does not allow";
            }
            for (String p : pathPrefixes) {
                if (UrlValues.under(parts.path(), p)) {
                    return null;
                }
            }
            return "has a path outside the prefixes this rule allows";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode o = Jsons.NODES.objectNode().put("kind", kind());
            schemes.forEach(o.putArray("schemes")::add);
            hosts.forEach(o.putArray("hosts")::add);
            pathPrefixes.forEach(o.putArray("pathPrefixes")::add);
            return o;
        }
    }

    /**
     * @param json a constraint as the policy document holds it
     * @param where where it is, for the message
     * @return the constraint
     * @throws IllegalArgumentException if it is not one of the families or is malformed
     */
    static Constraint fromJson(JsonNode json, String where) {
        if (json == null || !json.isObject() || !json.path("kind").isString()) {
            throw new IllegalArgumentException(where + ": a constraint is an object with a string \"kind\"");
        }
        String kind = json.get("kind").stringValue();
        try {
            switch (kind) {
                case "any":
                    return new Any();
                case "enum": {
                    List<String> values = new ArrayList<>();
                    for (JsonNode v : array(json, "values", where)) {
                        values.add(Jsons.canonical(v));
                    }
                    return new OneOf(values);
                }
                case "range":
                    return new Range(number(json, "min", where), number(json, "max", where),
                            json.path("whole").asBoolean(false));
                case "length":
                    return new Length(integer(json, "min", where), integer(json, "max", where));
                case "pattern": {
                    List<String> classes = strings(json, "classes", where);
                    for (String c : classes) {
                        if (!CharClass.CLASSES.contains(c)) {
                            throw new IllegalArgumentException(where + ": unknown character class '" + c + "'");
                        }
                    }
                    return new CharClass(classes, json.path("chars").asString(""), integer(json, "min", where),
                            integer(json, "max", where));
                }
                case "path": {
                    List<String> prefixes = new ArrayList<>();
                    for (String p : strings(json, "prefixes", where)) {
                        String normal = PathValues.normalize(p);
                        if (normal == null || !normal.equals(p)) {
                            throw new IllegalArgumentException(where + ": path prefix '" + p + "' is not in normal form");
                        }
                        prefixes.add(p);
                    }
                    return new PathUnder(prefixes);
                }
                case "url":
                    return new Url(strings(json, "schemes", where), strings(json, "hosts", where),
                            strings(json, "pathPrefixes", where));
                default:
                    throw new IllegalArgumentException(where + ": unknown constraint kind '" + kind + "'");
            }
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new IllegalArgumentException(where + ": malformed " + kind + " constraint: " + e.getMessage(), e);
        }
    }

    private static Iterable<JsonNode> array(JsonNode json, String field, String where) {
        JsonNode a = json.get(field);
        if (a == null || !a.isArray()) {
            throw new IllegalArgumentException(where + ": \"" + field + "\" must be an array");
        }
        return a.values();
    }

    private static List<String> strings(JsonNode json, String field, String where) {
        List<String> out = new ArrayList<>();
        for (JsonNode v : array(json, field, where)) {
            if (!v.isString()) {
                throw new IllegalArgumentException(where + ": \"" + field + "\" must hold strings");
            }
            out.add(v.stringValue());
        }
        return out;
    }

    private static BigDecimal number(JsonNode json, String field, String where) {
        JsonNode n = json.get(field);
        if (n == null || !n.isNumber()) {
            throw new IllegalArgumentException(where + ": \"" + field + "\" must be a number");
        }
        return n.decimalValue();
    }

    private static int integer(JsonNode json, String field, String where) {
        JsonNode n = json.get(field);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 0) {
            throw new IllegalArgumentException(where + ": \"" + field + "\" must be a non-negative integer");
        }
        return n.intValue();
    }
}
