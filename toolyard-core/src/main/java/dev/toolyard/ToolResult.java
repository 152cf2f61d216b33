package dev.toolyard;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How one call ended, as the model should see it. Every outcome a model can cause is one of these:
 * a success, a refusal, a failure or a timeout, each but success with a {@link Reason} from the closed
 * set. The content is capped by the executor; when it was cut, it ends with a label stating both
 * byte counts. Refusal text never reveals containment roots or allowlist members. Immutable.
 * Thread-safe.
 */
public final class ToolResult {
    private final String callId;
    private final String toolName;
    private final ToolStatus status;
    private final Reason reason;
    private final String reasonDetail;
    private final String content;
    private final boolean truncated;
    private final Duration duration;

    /**
     * For the executor and for tests. Applications receive results; they do not build them.
     *
     * @param callId the id shared with the record; never {@code null}
     * @param toolName the name the model asked for (capped); never {@code null}
     * @param status how it ended; never {@code null}; never {@link ToolStatus#INTERRUPTED}
     * @param reason why, for every status but OK; {@code null} for OK
     * @param reasonDetail details of the reason; never {@code null}
     * @param content the text for the model; never {@code null}
     * @param truncated whether the content was cut
     * @param duration how long the call took; never {@code null}
     * @throws IllegalArgumentException if status and reason do not agree
     */
    public ToolResult(String callId, String toolName, ToolStatus status, Reason reason, String reasonDetail,
            String content, boolean truncated, Duration duration) {
        this.callId = Objects.requireNonNull(callId, "callId");
        this.toolName = Objects.requireNonNull(toolName, "toolName");
        this.status = Objects.requireNonNull(status, "status");
        if (status == ToolStatus.INTERRUPTED) {
            throw new IllegalArgumentException("a result is never INTERRUPTED");
        }
        if ((status == ToolStatus.OK) != (reason == null) || (reason != null && reason.status() != status)) {
            throw new IllegalArgumentException("status " + status + " does not agree with reason " + reason);
        }
        this.reason = reason;
        this.reasonDetail = Objects.requireNonNull(reasonDetail, "reasonDetail");
        this.content = Objects.requireNonNull(content, "content");
        this.truncated = truncated;
        this.duration = Objects.requireNonNull(duration, "duration");
    }

    /** @return the call's id, the same as its record's; never {@code null} */
    public String callId() {
        return callId;
    }

    /** @return the tool name the model asked for, capped at 128 characters; never {@code null} */
    public String toolName() {
        return toolName;
    }

    /** @return how the call ended; never {@code null} */
    public ToolStatus status() {
        return status;
    }

    /** @return the reason; empty exactly when the status is {@link ToolStatus#OK} */
    public Optional<Reason> reason() {
        return Optional.ofNullable(reason);
    }

    /** @return details of the reason (validator paths, elapsed against limit, exception class); empty for OK */
    public String reasonDetail() {
        return reasonDetail;
    }

    /** @return the text for the model, within the executor's content cap; never {@code null} */
    public String content() {
        return content;
    }

    /** @return whether the content was cut to the cap (it then ends with the truncation label) */
    public boolean truncated() {
        return truncated;
    }

    /** @return how long the call took inside the executor; never {@code null} */
    public Duration duration() {
        return duration;
    }

    /** @return whether the status is {@link ToolStatus#OK} */
    public boolean isOk() {
        return status == ToolStatus.OK;
    }

    @Override
    public String toString() {
        return "ToolResult[" + toolName + ", " + status + (reason == null ? "" : ", " + reason.wireName()) + "]";
    }
}
