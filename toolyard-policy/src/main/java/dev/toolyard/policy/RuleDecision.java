package dev.toolyard.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * A policy's answer for one call. The detail names the rule and the argument and never the policy's
 * other contents (no allowed value, prefix or host), since the executor shows it to the model. Immutable.
 * Thread-safe.
 *
 * @param allowed whether the call is allowed
 * @param rule the rule that decided, as {@code agent/tool} ({@code (none)} for no agent); empty when no
 *     rule exists for the agent and tool
 * @param argument the argument that failed; empty when the call is allowed or no argument decided
 * @param detail one line for the model and the record; {@code ""} when allowed; never {@code null}
 */
public record RuleDecision(boolean allowed, Optional<String> rule, Optional<String> argument, String detail) {

    /**
     * Checks the components.
     *
     * @param allowed whether allowed
     * @param rule the rule; never {@code null}
     * @param argument the argument; never {@code null}
     * @param detail the detail; never {@code null}
     */
    public RuleDecision {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(argument, "argument");
        Objects.requireNonNull(detail, "detail");
    }
}
