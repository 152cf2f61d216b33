package dev.toolyard.policy.internal;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one agent may do with one tool: either any arguments (when none of the calls learned from had
 * their arguments captured, so only the tool's name is known), or a constraint per argument, where an
 * argument with no constraint is refused whenever it is present. An absent argument is never refused
 * here (the tool's schema decides what is required). Immutable; thread-safe.
 *
 * @param argumentsCaptured whether the rule constrains arguments at all
 * @param observedCalls how many calls it was learned from
 * @param arguments the constraint of each argument, by name, sorted; empty when not captured
 */
public record Rule(boolean argumentsCaptured, int observedCalls, Map<String, Constraint> arguments) {
    /**
     * Copies and sorts.
     *
     * @param argumentsCaptured whether the rule constrains arguments
     * @param observedCalls how many calls it was learned from
     * @param arguments the constraint of each argument
     */
    public Rule {
        Objects.requireNonNull(arguments, "arguments");
        arguments = Collections.unmodifiableMap(new TreeMap<>(arguments));
    }
}
