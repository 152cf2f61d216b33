package dev.toolyard;

/**
 * How a handler ended: it returned (an output, possibly {@code null}), threw, or ran past its deadline.
 *
 * @param output what it returned, when it returned
 * @param thrown what it threw, when it threw
 * @param timedOut whether it ran past its deadline (its output, if any, is discarded)
 * @param elapsedNanos how long it ran, for a timeout's detail
 */
record Outcome(ToolOutput output, Throwable thrown, boolean timedOut, long elapsedNanos) {
    static Outcome returned(ToolOutput output) {
        return new Outcome(output, null, false, 0);
    }

    static Outcome thrown(Throwable t) {
        return new Outcome(null, t, false, 0);
    }

    static Outcome timedOut(long elapsedNanos) {
        return new Outcome(null, null, true, elapsedNanos);
    }
}
