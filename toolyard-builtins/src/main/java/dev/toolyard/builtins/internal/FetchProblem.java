package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolStatus;

/**
 * Why a fetch stopped: a refusal or a failure with its reason and the detail the model may read. Thrown
 * inside the fetch to leave it from any depth, and turned into a {@link ToolOutput} at its edge; it
 * never leaves the handler. Carries no stack trace: it is an outcome, not a bug. Public only for
 * {@link EgressClient}'s callers in {@code dev.toolyard.contracts}.
 */
public final class FetchProblem extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Reason reason;

    FetchProblem(Reason reason, String detail) {
        super(detail, null, false, false);
        if (reason.status() != ToolStatus.REFUSED && reason.status() != ToolStatus.FAILED) {
            throw new IllegalArgumentException("a fetch stops with a refusal or a failure, not " + reason);
        }
        this.reason = reason;
    }

    /** @return the reason; never {@code null} */
    public Reason reason() {
        return reason;
    }

    /** @return what the model may learn; never {@code null} */
    public String detail() {
        return getMessage();
    }

    /** @return the refusal or failure as a handler's output */
    public ToolOutput toOutput() {
        return reason.status() == ToolStatus.REFUSED
                ? ToolOutput.refused(reason, getMessage())
                : ToolOutput.failed(reason, getMessage());
    }

    @Override
    public String toString() {
        return "FetchProblem[" + reason.wireName() + ": " + getMessage() + "]";
    }
}
