package dev.toolyard.spi;

import dev.toolyard.ToolCallRecord;
import java.time.Instant;
import java.util.Objects;

/**
 * The write-ahead mark the executor writes before a handler runs, so that a process dying during a
 * call leaves a trace that it started. Its fields mean what the same fields of {@link ToolCallRecord}
 * mean. Immutable. Thread-safe.
 *
 * @param callId unique id of the call; never {@code null}
 * @param invocationId the invocation's id; never {@code null}
 * @param toolName the tool's name; never {@code null}
 * @param arguments the arguments as a record keeps them; never {@code null}
 * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
 * @param argumentsRedacted whether the plaintext was withheld
 * @param startedAt when the call started; never {@code null}
 * @param requestCallId the agent framework's id of the call, capped; {@code ""} when none; never {@code null}
 * @param approver the reviewer who approved the call at the executor's approval gate, capped at 128
 *     characters; {@code ""} when the call needed no approval; never {@code null}
 * @param agent the context's agent name; {@code ""} when none; never {@code null}
 * @param shadowDenial what a {@link dev.toolyard.spi.PolicyGate} in shadow mode would have refused, and why;
 *     {@code ""} when nothing; never {@code null}
 */
public record ToolCallStart(
        String callId,
        String invocationId,
        String toolName,
        String arguments,
        String argumentsSha256,
        boolean argumentsRedacted,
        Instant startedAt,
        String requestCallId,
        String approver,
        String agent,
        String shadowDenial) {

    /**
     * Checks the components.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the tool's name; never {@code null}
     * @param arguments the arguments as a record keeps them; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param startedAt when the call started; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param approver who approved the call; {@code ""} when none was asked; never {@code null}
     * @param agent the context's agent name; {@code ""} when none; never {@code null}
     * @param shadowDenial what a gate in shadow mode would have refused; {@code ""} when nothing; never {@code null}
     * @throws NullPointerException if a field is {@code null}
     */
    public ToolCallStart {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(invocationId, "invocationId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(argumentsSha256, "argumentsSha256");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(requestCallId, "requestCallId");
        Objects.requireNonNull(approver, "approver");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(shadowDenial, "shadowDenial");
    }

    /**
     * A mark of a call whose context named no agent and that no shadow gate noted: the constructor of
     * version 3, kept so that code written against it compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the tool's name; never {@code null}
     * @param arguments the arguments as a record keeps them; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param startedAt when the call started; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param approver who approved the call; {@code ""} when none was asked; never {@code null}
     */
    public ToolCallStart(String callId, String invocationId, String toolName, String arguments,
            String argumentsSha256, boolean argumentsRedacted, Instant startedAt, String requestCallId,
            String approver) {
        this(callId, invocationId, toolName, arguments, argumentsSha256, argumentsRedacted, startedAt, requestCallId,
                approver, "", "");
    }

    /**
     * A mark of a call that needed no approval and whose context named no agent: the constructor of
     * version 2, kept so that code written against it compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the tool's name; never {@code null}
     * @param arguments the arguments as a record keeps them; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param startedAt when the call started; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     */
    public ToolCallStart(String callId, String invocationId, String toolName, String arguments,
            String argumentsSha256, boolean argumentsRedacted, Instant startedAt, String requestCallId) {
        this(callId, invocationId, toolName, arguments, argumentsSha256, argumentsRedacted, startedAt, requestCallId, "", "", "");
    }

    /**
     * A mark of a call whose request carried no framework id: the constructor of version 1, kept so
     * that code written against it compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the tool's name; never {@code null}
     * @param arguments the arguments as a record keeps them; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param startedAt when the call started; never {@code null}
     */
    public ToolCallStart(String callId, String invocationId, String toolName, String arguments,
            String argumentsSha256, boolean argumentsRedacted, Instant startedAt) {
        this(callId, invocationId, toolName, arguments, argumentsSha256, argumentsRedacted, startedAt, "", "", "", "");
    }
}
