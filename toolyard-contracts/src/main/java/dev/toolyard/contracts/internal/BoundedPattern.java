package dev.toolyard.contracts.internal;

import com.networknt.schema.Schema;
import dev.toolyard.internal.Json;
import dev.toolyard.internal.SchemaRules;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A manifest's anchored pattern, matched through core's schema validator, whose regular expressions
 * run with a work budget proportional to the input (core's {@code BoundedRegex}): the pattern comes
 * from the manifest but the text comes from the model, and {@code java.util.regex} backtracks. A match
 * that exceeds its budget is no match. The same pattern also travels in the wire schema, where the
 * executor checks it the same way before any handler runs. Immutable. Thread-safe.
 */
public final class BoundedPattern {
    private final String anchored;
    private final Schema schema;

    private BoundedPattern(String anchored, Schema schema) {
        this.anchored = anchored;
        this.schema = schema;
    }

    /**
     * @param pattern a manifest's pattern, anchored here as {@code ^(?:pattern)$}
     * @return the compiled pattern
     * @throws IllegalArgumentException if the validator cannot compile it
     */
    public static BoundedPattern anchor(String pattern) {
        String anchored = "^(?:" + Objects.requireNonNull(pattern, "pattern") + ")$";
        try {
            java.util.regex.Pattern.compile(anchored);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw new IllegalArgumentException("not a valid regular expression: " + e.getDescription());
        }
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "object");
        s.putObject("properties").putObject("v").put("type", "string").put("pattern", anchored);
        s.put("additionalProperties", false);
        try {
            return new BoundedPattern(anchored, SchemaRules.check(s));
        } catch (SchemaRules.Violation e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** @return the anchored form, as it appears in the wire schema */
    public String anchored() {
        return anchored;
    }

    /**
     * @param value the text to match
     * @return whether it matches the whole pattern within the work budget
     */
    public boolean matches(String value) {
        ObjectNode v = Json.MAPPER.createObjectNode();
        v.put("v", value);
        try {
            return schema.validate(v).isEmpty();
        } catch (RuntimeException | StackOverflowError e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return anchored;
    }
}
