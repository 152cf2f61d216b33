package dev.toolyard.contracts.internal;

import dev.toolyard.Reason;
import dev.toolyard.ToolStatus;

/** The reasons contracts declare beyond core's set. */
public final class Reasons {
    /** A target outside the application's scope file (or an always-blocked one): a refusal. */
    public static final Reason OUT_OF_SCOPE = Reason.declare("out_of_scope", ToolStatus.REFUSED);
    /**
     * The tool ran, but its output is not what the manifest's {@code [output.schema]} (or parser)
     * promises: a failure of the tool, not of the model's input, so {@code FAILED}.
     */
    public static final Reason RESULT_INVALID = Reason.declare("result_invalid", ToolStatus.FAILED);

    private Reasons() {}
}
