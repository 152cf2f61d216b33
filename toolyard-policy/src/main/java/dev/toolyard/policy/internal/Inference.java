package dev.toolyard.policy.internal;

import dev.toolyard.policy.Strictness;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * Learns one argument's constraint from the values seen, as the strictness preset says (the table is in
 * docs/policies.md). Deterministic: the same values in any order give the same constraint. Stateless.
 */
public final class Inference {
    /** Strings longer than this are never enumerated or generalised character by character. */
    static final int LOOSE_MIN_LENGTH = 256;

    private Inference() {}

    /**
     * @param values every value seen for the argument (at least one)
     * @param strictness how far to generalise
     * @param isPath whether the argument is a path (declared by the tool, or named like one)
     * @return the constraint
     */
    public static Constraint infer(List<JsonNode> values, Strictness strictness, boolean isPath) {
        Set<String> distinct = new TreeSet<>();
        boolean allNumbers = true;
        boolean allWhole = true;
        boolean allBooleans = true;
        boolean allStrings = true;
        for (JsonNode v : values) {
            distinct.add(Jsons.canonical(v));
            allNumbers &= v.isNumber() && (!v.isDouble() || Double.isFinite(v.doubleValue()));
            allWhole &= Jsons.isWhole(v);
            allBooleans &= v.isBoolean();
            allStrings &= v.isString();
        }
        if (strictness == Strictness.EXACT) {
            if (allStrings && isPath) {
                List<String> normal = new ArrayList<>();
                for (JsonNode v : values) {
                    String n = PathValues.normalize(v.stringValue());
                    if (n == null) {
                        return new Constraint.OneOf(List.copyOf(distinct));
                    }
                    normal.add(n);
                }
                return new Constraint.PathUnder(normal);
            }
            return new Constraint.OneOf(List.copyOf(distinct));
        }
        if (allBooleans) {
            return strictness == Strictness.LOOSE ? new Constraint.Any() : new Constraint.OneOf(List.copyOf(distinct));
        }
        if (allNumbers) {
            return numbers(values, strictness, allWhole);
        }
        if (allStrings) {
            List<String> strings = new ArrayList<>();
            values.forEach(v -> strings.add(v.stringValue()));
            if (isPath) {
                Constraint c = paths(strings, strictness);
                if (c != null) {
                    return c;
                }
            }
            Constraint url = urls(strings, strictness);
            if (url != null) {
                return url;
            }
            return strings(strings, distinct, strictness);
        }
        // Structured or mixed values: no family generalises them safely.
        return strictness == Strictness.LOOSE ? new Constraint.Any() : new Constraint.OneOf(List.copyOf(distinct));
    }

    private static Constraint numbers(List<JsonNode> values, Strictness strictness, boolean whole) {
        if (strictness == Strictness.LOOSE) {
            return new Constraint.Any();
        }
        BigDecimal min = null;
        BigDecimal max = null;
        for (JsonNode v : values) {
            BigDecimal d = v.decimalValue();
            min = min == null || d.compareTo(min) < 0 ? d : min;
            max = max == null || d.compareTo(max) > 0 ? d : max;
        }
        if (strictness == Strictness.BALANCED) {
            BigDecimal two = BigDecimal.valueOf(2);
            min = min.signum() >= 0 ? BigDecimal.ZERO : min.multiply(two);
            max = max.signum() <= 0 ? BigDecimal.ZERO : max.multiply(two);
        }
        return new Constraint.Range(min, max, whole);
    }

    private static Constraint paths(List<String> values, Strictness strictness) {
        Set<String> prefixes = new TreeSet<>();
        for (String v : values) {
            String normal = PathValues.normalize(v);
            if (normal == null) {
                return null;
            }
            switch (strictness) {
                case TIGHT: {
                    String parent = PathValues.parent(normal);
                    // A file at the top has the workspace as its parent: keep the file itself, not everything.
                    prefixes.add(parent.equals(PathValues.WHOLE_WORKSPACE) || parent.equals("/") ? normal : parent);
                    break;
                }
                case BALANCED:
                    prefixes.add(PathValues.first(normal));
                    break;
                default:
                    prefixes.add(normal.startsWith("/") ? PathValues.first(normal) : PathValues.WHOLE_WORKSPACE);
                    break;
            }
        }
        return new Constraint.PathUnder(List.copyOf(prefixes));
    }

    private static Constraint urls(List<String> values, Strictness strictness) {
        Set<String> schemes = new TreeSet<>();
        Set<String> hosts = new TreeSet<>();
        Set<String> prefixes = new TreeSet<>();
        for (String v : values) {
            UrlValues.Parts p = UrlValues.parse(v);
            if (p == null) {
                return null;
            }
            schemes.add(p.scheme());
            hosts.add(p.host());
            String path = p.path();
            switch (strictness) {
                case TIGHT: {
                    int slash = path.lastIndexOf('/');
                    prefixes.add(slash <= 0 ? (path.equals("/") ? "/" : path) : path.substring(0, slash));
                    break;
                }
                case BALANCED: {
                    int next = path.indexOf('/', 1);
                    prefixes.add(next < 0 ? path : path.substring(0, next));
                    break;
                }
                default:
                    prefixes.add("/");
                    break;
            }
        }
        return new Constraint.Url(List.copyOf(schemes), List.copyOf(hosts), List.copyOf(prefixes));
    }

    private static Constraint strings(List<String> values, Set<String> distinct, Strictness strictness) {
        int minLen = Integer.MAX_VALUE;
        int maxLen = 0;
        Set<Integer> chars = new LinkedHashSet<>();
        for (String s : values) {
            int n = s.codePointCount(0, s.length());
            minLen = Math.min(minLen, n);
            maxLen = Math.max(maxLen, n);
            s.codePoints().forEach(chars::add);
        }
        switch (strictness) {
            case TIGHT: {
                if (distinct.size() <= 8) {
                    return new Constraint.OneOf(List.copyOf(distinct));
                }
                StringBuilder literal = new StringBuilder();
                chars.forEach(literal::appendCodePoint);
                return new Constraint.CharClass(List.of(), literal.toString(), minLen, maxLen);
            }
            case BALANCED: {
                if (distinct.size() <= 3 && values.size() >= 3 * distinct.size()) {
                    return new Constraint.OneOf(List.copyOf(distinct));
                }
                Set<String> classes = new TreeSet<>();
                StringBuilder literal = new StringBuilder();
                for (int cp : chars) {
                    if (cp >= 'a' && cp <= 'z') {
                        classes.add("lower");
                    } else if (cp >= 'A' && cp <= 'Z') {
                        classes.add("upper");
                    } else if (cp >= '0' && cp <= '9') {
                        classes.add("digit");
                    } else {
                        literal.appendCodePoint(cp);
                    }
                }
                return new Constraint.CharClass(List.copyOf(classes), literal.toString(), 0,
                        (int) Math.min(Integer.MAX_VALUE, 2L * maxLen));
            }
            default:
                return new Constraint.Length(0, (int) Math.min(Integer.MAX_VALUE, Math.max(LOOSE_MIN_LENGTH, 4L * maxLen)));
        }
    }
}
