package dev.toolyard;

import java.util.Objects;
import java.util.Optional;

/**
 * What a handler returns: text for the model and an optional shorter summary for the record, or a
 * refusal or failure with a reason (for example {@code file_not_found}); a failure may also carry the
 * raw output it refused to hand the model, for the record only. The executor caps every text.
 * Immutable. Thread-safe.
 */
public final class ToolOutput {
    private final String content;
    private final String summary;
    private final Reason reason;
    private final String reasonDetail;
    private final String networkRecord;

    private ToolOutput(String content, String summary, Reason reason, String reasonDetail) {
        this(content, summary, reason, reasonDetail, "");
    }

    private ToolOutput(String content, String summary, Reason reason, String reasonDetail, String networkRecord) {
        this.content = content;
        this.summary = summary;
        this.reason = reason;
        this.reasonDetail = reasonDetail;
        this.networkRecord = networkRecord;
    }

    /**
     * This output with what the call did on the network, for the record only
     * ({@link ToolCallRecord#network()}): a JSON object, as a networked {@code run_command} writes it.
     *
     * @param json the network record, a JSON object, or empty for none; never {@code null}
     * @return a copy carrying it
     */
    public ToolOutput withNetworkRecord(String json) {
        return new ToolOutput(content, summary, reason, reasonDetail, Objects.requireNonNull(json, "json"));
    }

    /** @return what the call did on the network, a JSON object; empty when the tool has no network; never {@code null} */
    public String networkRecord() {
        return networkRecord;
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

    /**
     * A failure decided by the handler about output it will not hand the model, for example a tool
     * whose output breaks its declared schema. The model sees only the reason and {@code detail}, as for
     * {@link #failed}; the call's record keeps {@code recordedOutput} as its summary, capped at the
     * executor's content cap (the cap a successful output's content gets, 65,536 bytes by default), cut
     * on a character boundary with the truncation label.
     *
     * @param reason a reason whose status is {@link ToolStatus#FAILED}
     * @param detail what the model may learn about it; never {@code null}
     * @param recordedOutput the output, for the record only; never {@code null}
     * @return a failure
     * @throws IllegalArgumentException if {@code reason} is not a failure
     */
    public static ToolOutput failedWithRecordedOutput(Reason reason, String detail, String recordedOutput) {
        problem(ToolStatus.FAILED, reason, detail); // the same checks as failed()
        return new ToolOutput("", Objects.requireNonNull(recordedOutput, "recordedOutput"), reason, detail);
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

    /**
     * @return the summary for the record, or empty when the content serves as summary; for a failure, the
     *     output kept for the record only ({@link #failedWithRecordedOutput}), or empty when none
     */
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
