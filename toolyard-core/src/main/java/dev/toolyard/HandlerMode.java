package dev.toolyard;

/**
 * Where the executor runs handlers. Every mode enforces the deadline; they differ in what happens to a
 * handler that ignores interruption, and in cost.
 */
public enum HandlerMode {
    /**
     * Each handler runs on a worker thread of the executor's and the caller waits at most until the
     * deadline. A handler that ignores interruption cannot hold the caller: at the deadline the caller
     * gets {@code TIMEOUT}, the worker is interrupted and abandoned, and whatever it returns later is
     * discarded. Abandoned and running handlers are bounded (see
     * {@link ToolExecutor.Builder#maxHandlersPerTool}); past the bound a call is refused
     * {@code tool_saturated}. The handoff costs tens of microseconds on a small VM, because a parked
     * worker has to wake.
     */
    HANDOFF,
    /**
     * For trusted, cooperative handlers only. The handler runs on the caller's thread, which is
     * interrupted at the deadline; a late return is discarded and reported as {@code TIMEOUT}. A handler
     * that ignores interruption holds the caller until it returns, so use this only for handlers you
     * wrote and that block only in interruptible calls.
     */
    CALLER_THREAD,
    /**
     * The default: each tool's own declaration decides ({@link ToolSpec.Builder#cooperative}). A
     * cooperative tool's handler runs on the caller's thread as in {@link #CALLER_THREAD}; every other
     * handler is handed off as in {@link #HANDOFF}. The built-in tools are cooperative; an application's
     * tool is not unless it says so.
     */
    BY_TOOL
}
