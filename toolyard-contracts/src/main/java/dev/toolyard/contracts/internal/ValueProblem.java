package dev.toolyard.contracts.internal;

import dev.toolyard.Reason;

/**
 * Why a model's value was refused: {@code args_invalid} or {@code out_of_scope}, with a detail that
 * names the argument and the rule, never the value itself. An outcome, not a bug: no stack trace.
 */
public final class ValueProblem extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Reason reason;

    /**
     * @param reason the refusal's reason
     * @param detail what the model may learn
     */
    public ValueProblem(Reason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    /** @return the reason */
    public Reason reason() {
        return reason;
    }
}
