package dev.toolyard.spi;

import java.util.Objects;

/**
 * An {@link ApprovalGate}'s answer: approved by a reviewer, or denied by one with a reason. Made only by
 * the application, through {@link #approve} and {@link #deny}; there is no way to build one from text.
 * The reviewer is kept in the call's record ({@code approver}); a denial's reason goes to the model in the
 * refusal's detail, capped like any detail, so it should say what a model may read. Immutable.
 * Thread-safe.
 *
 * <p>Stability: stable.
 */
public final class ApprovalDecision {
    private final boolean approved;
    private final String reviewer;
    private final String reason;

    private ApprovalDecision(boolean approved, String reviewer, String reason) {
        this.approved = approved;
        this.reviewer = reviewer;
        this.reason = reason;
    }

    /**
     * @param reviewer who approved, as the record should name them; never {@code null}
     * @return an approval
     */
    public static ApprovalDecision approve(String reviewer) {
        return new ApprovalDecision(true, Objects.requireNonNull(reviewer, "reviewer"), "");
    }

    /**
     * @param reviewer who denied, as the record should name them; never {@code null}
     * @param reason why, for the model and the record; never {@code null}
     * @return a denial
     */
    public static ApprovalDecision deny(String reviewer, String reason) {
        return new ApprovalDecision(false, Objects.requireNonNull(reviewer, "reviewer"),
                Objects.requireNonNull(reason, "reason"));
    }

    /** @return whether the call may run */
    public boolean approved() {
        return approved;
    }

    /** @return who decided; never {@code null} */
    public String reviewer() {
        return reviewer;
    }

    /** @return why a denial was given; {@code ""} for an approval; never {@code null} */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return (approved ? "approved by " : "denied by ") + reviewer + (approved ? "" : ": " + reason);
    }
}
