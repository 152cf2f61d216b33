package dev.toolyard;

/**
 * Where the executor runs handlers. Both modes enforce the deadline; they differ in what happens to a
 * handler that ignores interruption.
 */
public enum HandlerMode {
    /**
     * The default. Each handler runs on a pooled worker thread and the caller waits at most until the
     * deadline. A handler that ignores interruption cannot hold the caller: at the deadline the caller
     * gets {@code TIMEOUT}, the worker is interrupted and abandoned, and whatever it returns later is
     * discarded. The handoff costs tens of microseconds on a small VM.
     */
    HANDOFF,
    /**
     * For trusted, cooperative handlers only. The handler runs on the caller's thread, which is
     * interrupted at the deadline; a late return is discarded and reported as {@code TIMEOUT}. A handler
     * that ignores interruption holds the caller until it returns, so use this only for handlers you
     * wrote and that block only in interruptible calls.
     */
    CALLER_THREAD
}
