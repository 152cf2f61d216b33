package dev.toolyard;

import java.util.Objects;
import java.util.Optional;

/**
 * What a handler returns: text for the model and an optional shorter summary for the record, or a
 * refusal or failure with a reason (for example {@code file_not_found}). The executor caps both texts.
 * Immutable. Thread-safe.
 */
public final class ToolOutput {
    private final String content;
    private final String summary;
    private final Reason reason;
    private final String reasonDetail;

    private ToolOutput(String content, String summary, Reason reason, String reasonDetail) {
        this.content = content;
        this.summary = summary;
        this.reason = reason;
        this.reasonDetail = reasonDetail;
    }

    /**
     * @param content the text the model sees; never {@code null}
     * @return a successful output whose summary is its content
     */
    public static ToolOutput of(String content) {
        return new ToolOutput(Objects.requireNonNull(content, "content"), null, null, "");
    }

    /**
     * @param content the text the model sees; never {@code null}
     * @param summary the text the record keeps; never {@code null}
     * @return a successful output
     */
    public static ToolOutput of(String content, String summary) {
        return new ToolOutput(
                Objects.requireNonNull(content, "content"), Objects.requireNonNull(summary, "summary"), null, "");
    }

    /**
     * A refusal decided by the handler, for example {@code too_large} or {@code host_not_allowed}.
     *
     * @param reason a reason whose status is {@link ToolStatus#REFUSED}
     * @param detail what the model may learn about it; never {@code null}; must not reveal roots or allowlists
     * @return a refusal
     * @throws IllegalArgumentException if {@code reason} is not a refusal
     */
    public static ToolOutput refused(Reason reason, String detail) {
        return problem(ToolStatus.REFUSED, reason, detail);
    }

    /**
     * A failure decided by the handler, for example {@code file_not_found}.
     *
     * @param reason a reason whose status is {@link ToolStatus#FAILED}
     * @param detail what the model may learn about it; never {@code null}
     * @return a failure
     * @throws IllegalArgumentException if {@code reason} is not a failure
     */
    public static ToolOutput failed(Reason reason, String detail) {
        return problem(ToolStatus.FAILED, reason, detail);
    }

    private static ToolOutput problem(ToolStatus expected, Reason reason, String detail) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        if (reason.status() != expected) {
            throw new IllegalArgumentException(
                    "reason " + reason.wireName() + " comes with status " + reason.status() + ", not " + expected);
        }
        return new ToolOutput("", null, reason, detail);
    }

    /** @return the text for the model; empty for a refusal or failure; never {@code null} */
    public String content() {
        return content;
    }

    /** @return the summary for the record, or empty when the content serves as summary */
    public Optional<String> summary() {
        return Optional.ofNullable(summary);
    }

    /** @return the reason of a refusal or failure; empty for a success */
    public Optional<Reason> reason() {
        return Optional.ofNullable(reason);
    }

    /** @return the detail of a refusal or failure; empty for a success; never {@code null} */
    public String reasonDetail() {
        return reasonDetail;
    }

    @Override
    public String toString() {
        return reason == null ? "ToolOutput[ok, " + content.length() + " chars]" : "ToolOutput[" + reason.wireName() + "]";
    }
}
