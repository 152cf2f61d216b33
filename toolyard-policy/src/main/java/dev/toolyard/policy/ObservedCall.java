package dev.toolyard.policy;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * One tool call as a policy learns from it or is checked against: whose it was, which invocation, which
 * tool, and its arguments when they were captured. Built from a record or an {@code execute_tool} span
 * by {@link CallSources}. Immutable. Thread-safe (the arguments tree is never changed after reading).
 *
 * @param agent the agent's name, {@code ""} when none was given; never {@code null}
 * @param invocationId the invocation (or trace) it belongs to; never {@code null}
 * @param tool the tool's name; never {@code null}
 * @param arguments the arguments object, or {@code null} when they were not captured (redacted, over the
 *     record's size cap, or not recorded by the tracer)
 * @param admitted whether the call passed the executor's own checks (it ran, or failed or timed out in
 *     its handler); a call the executor or a policy refused is not learned from
 */
public record ObservedCall(String agent, String invocationId, String tool, JsonNode arguments, boolean admitted) {
    /**
     * Checks the components.
     *
     * @param agent the agent's name; never {@code null}
     * @param invocationId the invocation; never {@code null}
     * @param tool the tool; never {@code null}
     * @param arguments an object, or {@code null}
     * @param admitted whether the executor let it run
     * @throws IllegalArgumentException if arguments are given and are not an object
     */
    public ObservedCall {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(invocationId, "invocationId");
        Objects.requireNonNull(tool, "tool");
        if (arguments != null && !arguments.isObject()) {
            throw new IllegalArgumentException("arguments must be a JSON object");
        }
    }

    /** @return the arguments, when captured */
    public Optional<JsonNode> argumentsOptional() {
        return Optional.ofNullable(arguments);
    }
}
