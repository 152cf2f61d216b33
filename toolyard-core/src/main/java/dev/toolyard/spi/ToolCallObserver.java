package dev.toolyard.spi;

import dev.toolyard.ToolCallRecord;

/**
 * Watches calls as they run, for tracing and metrics. Register with
 * {@link dev.toolyard.ToolExecutor.Builder#observer}; several observers are called in the order they
 * were registered. An observer never changes an outcome: whatever it throws is logged (through
 * {@link System.Logger}, logger {@code dev.toolyard.ToolExecutor}, level WARNING) and ignored, and the
 * call goes on. Both methods run on the thread that called {@code execute}, so they should be quick;
 * an executor with no observer allocates nothing for them. Implementations must be thread-safe when the
 * executor is used from several threads.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
public interface ToolCallObserver {
    /**
     * A call passed every check and is about to run its handler: after the write-ahead mark, on the
     * thread that called execute.
     *
     * @param call the call; never {@code null}
     */
    default void onStart(ToolCallEvent call) {}

    /**
     * Every call ends here exactly once, refusals included (those get no onStart), after its record is
     * stored, on the thread that called execute, with the same event instance as onStart. When the store
     * fails to keep the record, this still runs, with the record the store refused, and then
     * {@code execute} throws {@link dev.toolyard.StoreFailureException}.
     *
     * @param call the call; never {@code null}
     * @param record how it ended, as recorded; never {@code null}
     */
    default void onEnd(ToolCallEvent call, ToolCallRecord record) {}
}
