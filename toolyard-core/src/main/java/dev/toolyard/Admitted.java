package dev.toolyard;

/**
 * The last hand-off: a call that passed every check, with where its handler runs and, for a handed-off
 * handler, the slot it holds until the handler returns.
 *
 * @param contained the contained arguments
 * @param onCallersThread whether the handler runs on the thread that called {@code execute}
 * @param slot the handler slot of a handed-off call; {@code null} on the caller's thread
 */
record Admitted(ContainedArgs contained, boolean onCallersThread, HandlerSlots.Slot slot) {
    Call call() {
        return contained.call();
    }
}
