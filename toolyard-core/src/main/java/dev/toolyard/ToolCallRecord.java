package dev.toolyard;

import dev.toolyard.spi.ToolCallStart;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a store keeps of one call, refused and failed calls included. {@code arguments} is the JSON the
 * model sent; when the spec says {@code redactArgs} it is {@code {"redacted":true}} and only the
 * digest is kept; when the arguments exceed the record's size cap it is an object stating their size.
 * {@code argumentsSha256} is always the lower-case hex SHA-256 of the arguments as received.
 * Immutable. Thread-safe.
 *
 * @param callId unique id of the call; never {@code null}
 * @param invocationId the invocation's id; never {@code null}
 * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
 * @param status how it ended; never {@code null}
 * @param reason why, for every status but OK and INTERRUPTED; empty otherwise; never {@code null}
 * @param reasonDetail details of the reason; never {@code null}
 * @param arguments the arguments as kept (see above); never {@code null}
 * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
 * @param argumentsRedacted whether the plaintext was withheld
 * @param summary the capped summary of the output, or the refusal text; for a failure whose handler kept
 *     its output for the record ({@link ToolOutput#failedWithRecordedOutput}), that output, capped at the
 *     executor's content cap; never {@code null}
 * @param startedAt when the call started, by the context's clock; never {@code null}
 * @param duration how long it took; zero for an interrupted call; never {@code null}
 * @param requestCallId the agent framework's id of the call ({@link ToolCallRequest#callId()}), capped at
 *     128 characters; {@code ""} when the request carried none; never {@code null}
 * @param approver the reviewer who answered the executor's approval gate, capped at 128 characters: who
 *     approved a call that then ran, or who denied one refused {@code approval_denied}; {@code ""} when no
 *     reviewer answered (no approval needed, a timeout, a gate that failed); never {@code null}
 * @param agent the agent the invocation's context named ({@link ToolContext#agent()}); {@code ""} when it
 *     named none; never {@code null}
 * @param shadowDenial what a {@link dev.toolyard.spi.PolicyGate} in shadow mode would have refused, and why
 *     (the call ran); {@code ""} when nothing; never {@code null}
 * @param network what the call's command did on the network, a JSON object (each destination reached or
 *     refused, with bytes each way, bounded: see docs/isolation.md, "Network for commands"); {@code ""}
 *     for a tool without network; never {@code null}
 */
public record ToolCallRecord(
        String callId,
        String invocationId,
        String toolName,
        ToolStatus status,
        Optional<Reason> reason,
        String reasonDetail,
        String arguments,
        String argumentsSha256,
        boolean argumentsRedacted,
        String summary,
        Instant startedAt,
        Duration duration,
        String requestCallId,
        String approver,
        String agent,
        String shadowDenial,
        String network) {

    /**
     * Checks the components.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
     * @param status how it ended; never {@code null}
     * @param reason why, for every status but OK and INTERRUPTED; empty otherwise; never {@code null}
     * @param reasonDetail details of the reason; never {@code null}
     * @param arguments the arguments as kept (see above); never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param summary the capped summary of the output, or the refusal text; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param duration how long it took; zero for an interrupted call; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param approver the reviewer who answered the approval gate; {@code ""} when none; never {@code null}
     * @param agent the context's agent name; {@code ""} when none; never {@code null}
     * @param shadowDenial what a gate in shadow mode would have refused; {@code ""} when nothing; never {@code null}
     * @param network what the command did on the network, JSON; {@code ""} for none; never {@code null}
     * @throws NullPointerException if a field documented as never {@code null} is; IllegalArgumentException if status and reason disagree
     */
    public ToolCallRecord {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(invocationId, "invocationId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(reasonDetail, "reasonDetail");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(argumentsSha256, "argumentsSha256");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(requestCallId, "requestCallId");
        Objects.requireNonNull(approver, "approver");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(shadowDenial, "shadowDenial");
        Objects.requireNonNull(network, "network");
        boolean needsReason = status != ToolStatus.OK && status != ToolStatus.INTERRUPTED;
        if (needsReason != reason.isPresent() || reason.filter(r -> r.status() != status).isPresent()) {
            throw new IllegalArgumentException("status " + status + " does not agree with reason "
                    + reason.map(Reason::wireName).orElse("(none)"));
        }
    }

    /**
     * A record of a call of a tool without network ({@code network} {@code ""}): the constructor of
     * version 4, kept so that code written against it compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
     * @param status how it ended; never {@code null}
     * @param reason why, for every status but OK and INTERRUPTED; {@code null} otherwise
     * @param reasonDetail details of the reason; never {@code null}
     * @param arguments the arguments as kept; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param summary the capped summary of the output, or the refusal text; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param duration how long it took; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param approver the reviewer who answered the approval gate; {@code ""} when none; never {@code null}
     * @param agent the context's agent name; {@code ""} when none; never {@code null}
     * @param shadowDenial what a gate in shadow mode would have refused; {@code ""} when nothing; never {@code null}
     */
    public ToolCallRecord(String callId, String invocationId, String toolName, ToolStatus status, Reason reason,
            String reasonDetail, String arguments, String argumentsSha256, boolean argumentsRedacted, String summary,
            Instant startedAt, Duration duration, String requestCallId, String approver, String agent,
            String shadowDenial) {
        this(callId, invocationId, toolName, status, Optional.ofNullable(reason), reasonDetail, arguments,
                argumentsSha256, argumentsRedacted, summary, startedAt, duration, requestCallId, approver, agent,
                shadowDenial, "");
    }

    /**
     * A record of a call whose context named no agent and that no shadow gate noted ({@code agent} and
     * {@code shadowDenial} {@code ""}): the constructor of version 3, kept so that code written against it
     * compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
     * @param status how it ended; never {@code null}
     * @param reason why, for every status but OK and INTERRUPTED; {@code null} otherwise
     * @param reasonDetail details of the reason; never {@code null}
     * @param arguments the arguments as kept; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param summary the capped summary of the output, or the refusal text; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param duration how long it took; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     * @param approver the reviewer who answered the approval gate; {@code ""} when none; never {@code null}
     */
    public ToolCallRecord(String callId, String invocationId, String toolName, ToolStatus status, Reason reason,
            String reasonDetail, String arguments, String argumentsSha256, boolean argumentsRedacted, String summary,
            Instant startedAt, Duration duration, String requestCallId, String approver) {
        this(callId, invocationId, toolName, status, Optional.ofNullable(reason), reasonDetail, arguments,
                argumentsSha256, argumentsRedacted, summary, startedAt, duration, requestCallId, approver, "", "", "");
    }

    /**
     * A record of a call that no reviewer answered for ({@code approver}, {@code agent} and
     * {@code shadowDenial} {@code ""}): the constructor of version 2, kept so that code written against it
     * compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
     * @param status how it ended; never {@code null}
     * @param reason why, for every status but OK and INTERRUPTED; {@code null} otherwise
     * @param reasonDetail details of the reason; never {@code null}
     * @param arguments the arguments as kept; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param summary the capped summary of the output, or the refusal text; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param duration how long it took; never {@code null}
     * @param requestCallId the framework's id of the call; {@code ""} when none; never {@code null}
     */
    public ToolCallRecord(String callId, String invocationId, String toolName, ToolStatus status, Reason reason,
            String reasonDetail, String arguments, String argumentsSha256, boolean argumentsRedacted, String summary,
            Instant startedAt, Duration duration, String requestCallId) {
        this(callId, invocationId, toolName, status, Optional.ofNullable(reason), reasonDetail, arguments,
                argumentsSha256, argumentsRedacted, summary, startedAt, duration, requestCallId, "", "", "", "");
    }

    /**
     * A record of a call whose request carried no framework id ({@code requestCallId} {@code ""}): the
     * constructor of version 1, kept so that code written against it compiles unchanged.
     *
     * @param callId unique id of the call; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param toolName the name the model asked for, capped at 128 characters; never {@code null}
     * @param status how it ended; never {@code null}
     * @param reason why, for every status but OK and INTERRUPTED; {@code null} otherwise
     * @param reasonDetail details of the reason; never {@code null}
     * @param arguments the arguments as kept; never {@code null}
     * @param argumentsSha256 hex SHA-256 of the arguments as received; never {@code null}
     * @param argumentsRedacted whether the plaintext was withheld
     * @param summary the capped summary of the output, or the refusal text; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param duration how long it took; never {@code null}
     */
    public ToolCallRecord(String callId, String invocationId, String toolName, ToolStatus status, Reason reason,
            String reasonDetail, String arguments, String argumentsSha256, boolean argumentsRedacted, String summary,
            Instant startedAt, Duration duration) {
        this(callId, invocationId, toolName, status, Optional.ofNullable(reason), reasonDetail, arguments,
                argumentsSha256, argumentsRedacted, summary, startedAt, duration, "", "", "", "", "");
    }

    /** @return the framework's id of the call; empty when the request carried none */
    public Optional<String> requestCallIdOptional() {
        return requestCallId.isEmpty() ? Optional.empty() : Optional.of(requestCallId);
    }

    /** @return the reviewer who answered the approval gate; empty when none did */
    public Optional<String> approverOptional() {
        return approver.isEmpty() ? Optional.empty() : Optional.of(approver);
    }

    /** @return the agent the context named; empty when none */
    public Optional<String> agentOptional() {
        return agent.isEmpty() ? Optional.empty() : Optional.of(agent);
    }

    /** @return what a policy gate in shadow mode would have refused; empty when nothing */
    public Optional<String> shadowDenialOptional() {
        return shadowDenial.isEmpty() ? Optional.empty() : Optional.of(shadowDenial);
    }


    /**
     * The record a store reads back for a call that was marked as started but never completed.
     *
     * @param start the write-ahead mark; never {@code null}
     * @return an {@link ToolStatus#INTERRUPTED} record
     */
    public static ToolCallRecord interrupted(ToolCallStart start) {
        return new ToolCallRecord(start.callId(), start.invocationId(), start.toolName(), ToolStatus.INTERRUPTED,
                Optional.empty(), "started, no completion recorded", start.arguments(), start.argumentsSha256(),
                start.argumentsRedacted(), "", start.startedAt(), Duration.ZERO, start.requestCallId(),
                start.approver(), start.agent(), start.shadowDenial(), "");
    }
}
