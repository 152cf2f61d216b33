package dev.toolyard.contracts.internal;

import dev.toolyard.Schemas;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A manifest's anchored pattern, matched through core's schema validator, whose regular expressions
 * run with a work budget proportional to the input (core's {@code BoundedRegex}): the pattern comes
 * from the manifest but the text comes from the model, and {@code java.util.regex} backtracks. A match
 * that exceeds its budget is no match. The same pattern also travels in the wire schema, where the
 * executor checks it the same way before any handler runs. Immutable. Thread-safe.
 */
public final class BoundedPattern {
    private final String anchored;
    private final Predicate<String> matcher;

    private BoundedPattern(String anchored, Predicate<String> matcher) {
        this.anchored = anchored;
        this.matcher = matcher;
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
        return new BoundedPattern(anchored, Schemas.boundedPattern(anchored));
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
        return matcher.test(value);
    }

    @Override
    public String toString() {
        return anchored;
    }
}
