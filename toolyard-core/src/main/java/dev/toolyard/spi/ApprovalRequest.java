package dev.toolyard.spi;

import dev.toolyard.RiskClass;
import java.util.Objects;

/**
 * What an {@link ApprovalGate} is asked about: a call that passed every other check. It holds what the
 * record holds and nothing more: the arguments exactly as recorded ({@code {"redacted":true}} when the
 * spec redacts them, a size-and-digest object above the record's size cap, so a reviewer who cannot see
 * them should deny), their digest, ToolYard's call id (the record's), the framework's id and the
 * invocation. Nothing here can approve a call: a decision is an {@link ApprovalDecision} object the
 * application makes, and the model's text is only ever data in {@link #argumentsJson}. Immutable.
 * Thread-safe.
 *
 * <p>Stability: stable; a component added later comes with a constructor keeping this one.
 *
 * @param toolName the registered tool's name; never {@code null}
 * @param argumentsJson the arguments as the record keeps them (model text: show it, never parse it for a
 *     decision); never {@code null}
 * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
 * @param invocationId the invocation's id; never {@code null}
 * @param callId ToolYard's id of the call, as in its record and result; never {@code null}
 * @param requestCallId the agent framework's id of the call, capped; {@code ""} when none; never {@code null}
 * @param riskClass the tool's risk class; never {@code null}
 */
public record ApprovalRequest(
        String toolName,
        String argumentsJson,
        String argumentsSha256,
        String invocationId,
        String callId,
        String requestCallId,
        RiskClass riskClass) {

    /**
     * Checks the components.
     *
     * @param toolName the registered tool's name; never {@code null}
     * @param argumentsJson the arguments as the record keeps them; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param callId ToolYard's id of the call; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param riskClass the tool's risk class; never {@code null}
     * @throws NullPointerException if a component is {@code null}
     */
    public ApprovalRequest {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        Objects.requireNonNull(argumentsSha256, "argumentsSha256");
        Objects.requireNonNull(invocationId, "invocationId");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(requestCallId, "requestCallId");
        Objects.requireNonNull(riskClass, "riskClass");
    }
}
