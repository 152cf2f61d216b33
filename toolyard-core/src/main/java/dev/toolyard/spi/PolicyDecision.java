package dev.toolyard.spi;

import dev.toolyard.Reason;
import dev.toolyard.ToolStatus;
import java.util.Objects;

/**
 * A {@link PolicyGate}'s answer: allow; refuse with a reason and detail (the model sees both, so the
 * detail should name the rule and argument and nothing else of the policy); or allow and record what
 * would have been refused (shadow mode), kept in the record's {@code shadowDenial}. Immutable.
 * Thread-safe.
 */
public final class PolicyDecision {
    private static final PolicyDecision ALLOW = new PolicyDecision(null, "", "");

    private final Reason reason;
    private final String detail;
    private final String shadowDenial;

    private PolicyDecision(Reason reason, String detail, String shadowDenial) {
        this.reason = reason;
        this.detail = detail;
        this.shadowDenial = shadowDenial;
    }

    /** @return the verdict that lets the call run; the same instance each time */
    public static PolicyDecision allow() {
        return ALLOW;
    }

    /**
     * @param reason a reason that comes with {@link ToolStatus#REFUSED}; never {@code null}
     * @param detail what the model and the record are told; never {@code null}
     * @return a refusal
     * @throws IllegalArgumentException if the reason comes with another status
     */
    public static PolicyDecision refuse(Reason reason, String detail) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        if (reason.status() != ToolStatus.REFUSED) {
            throw new IllegalArgumentException("a gate refuses with a REFUSED reason, not " + reason.wireName());
        }
        return new PolicyDecision(reason, detail, "");
    }

    /**
     * @param wouldDeny what an enforcing policy would have refused and why; non-empty; never {@code null}
     * @return a verdict that lets the call run and records {@code wouldDeny} in its record
     * @throws IllegalArgumentException if {@code wouldDeny} is empty
     */
    public static PolicyDecision allowAndRecord(String wouldDeny) {
        Objects.requireNonNull(wouldDeny, "wouldDeny");
        if (wouldDeny.isEmpty()) {
            throw new IllegalArgumentException("wouldDeny must not be empty; use allow()");
        }
        return new PolicyDecision(null, "", wouldDeny);
    }

    /** @return whether the call is refused */
    public boolean refuses() {
        return reason != null;
    }

    /** @return the refusal's reason, or {@code null} when the call runs */
    public Reason reason() {
        return reason;
    }

    /** @return the refusal's detail; {@code ""} when the call runs; never {@code null} */
    public String detail() {
        return detail;
    }

    /** @return what would have been refused (shadow mode); {@code ""} for none; never {@code null} */
    public String shadowDenial() {
        return shadowDenial;
    }
}
