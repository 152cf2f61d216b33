package dev.toolyard.spi;

import dev.toolyard.IsolationTier;
import dev.toolyard.ToolSpec;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What an observer learns about one call when it starts (and again when it ends). The texts are
 * capped as the call's record caps them, so an observer never sees more of a model-chosen name than
 * the record keeps. Immutable. Thread-safe.
 *
 * <p>Stability: stable; members may be added.
 */
public final class ToolCallEvent {
    private final String callId;
    private final Optional<String> requestCallId;
    private final String toolName;
    private final Optional<ToolSpec> spec;
    private final String invocationId;
    private final Instant startedAt;
    private final IsolationTier isolationTier;

    private ToolCallEvent(String callId, Optional<String> requestCallId, String toolName, Optional<ToolSpec> spec,
            String invocationId, Instant startedAt, IsolationTier isolationTier) {
        this.callId = callId;
        this.requestCallId = requestCallId;
        this.toolName = toolName;
        this.spec = spec;
        this.invocationId = invocationId;
        this.startedAt = startedAt;
        this.isolationTier = isolationTier;
    }

    /**
     * For the executor and for tests of observers. Applications receive events; they do not build them.
     *
     * @param callId ToolYard's call id; never {@code null}
     * @param requestCallId the framework's id of the call, or {@code ""} when the request carried none; never {@code null}
     * @param toolName the tool name as asked, capped; never {@code null}
     * @param spec the tool's spec, or {@code null} for an unknown tool
     * @param invocationId the invocation's id; never {@code null}
     * @param startedAt when the call started, by the context's clock; never {@code null}
     * @param isolationTier the tier the call runs on; never {@code null}
     * @return the event
     * @throws NullPointerException if a parameter documented as never {@code null} is
     */
    public static ToolCallEvent of(String callId, String requestCallId, String toolName, ToolSpec spec,
            String invocationId, Instant startedAt, IsolationTier isolationTier) {
        Objects.requireNonNull(requestCallId, "requestCallId");
        return new ToolCallEvent(Objects.requireNonNull(callId, "callId"),
                requestCallId.isEmpty() ? Optional.empty() : Optional.of(requestCallId),
                Objects.requireNonNull(toolName, "toolName"), Optional.ofNullable(spec),
                Objects.requireNonNull(invocationId, "invocationId"), Objects.requireNonNull(startedAt, "startedAt"),
                Objects.requireNonNull(isolationTier, "isolationTier"));
    }

    /** @return ToolYard's call id, the same as the record's {@code callId}; never {@code null} */
    public String callId() {
        return callId;
    }

    /** @return the agent framework's id of the call, when the request carried one; capped at 128 characters */
    public Optional<String> requestCallId() {
        return requestCallId;
    }

    /** @return the tool name as the model asked for it, capped at 128 characters; never {@code null} */
    public String toolName() {
        return toolName;
    }

    /** @return the tool's spec; empty exactly when no tool of that name is registered ({@code unknown_tool}) */
    public Optional<ToolSpec> spec() {
        return spec;
    }

    /** @return the invocation's id; never {@code null} */
    public String invocationId() {
        return invocationId;
    }

    /** @return when the call started, by the context's clock; never {@code null} */
    public Instant startedAt() {
        return startedAt;
    }

    /**
     * @return the tier the call runs on: the sandbox's tier when the tool requires isolation, otherwise
     *     {@link IsolationTier#IN_PROCESS}; never {@code null}
     */
    public IsolationTier isolationTier() {
        return isolationTier;
    }

    @Override
    public String toString() {
        return "ToolCallEvent[" + callId + ", " + (toolName.length() > 64 ? toolName.substring(0, 64) + "…" : toolName)
                + "]";
    }
}
