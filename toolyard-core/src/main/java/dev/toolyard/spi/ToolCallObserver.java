package dev.toolyard.spi;

import dev.toolyard.ToolCallRecord;

/**
 * Watches calls as they run, for tracing and metrics. Register with
 * {@link dev.toolyard.ToolExecutor.Builder#observer}; several observers are called in the order they
 * were registered. An observer never changes an outcome: whatever it throws is logged (through
 * {@link System.Logger}, logger {@code dev.toolyard.ToolExecutor}, level WARNING) and ignored, and the
 * call goes on. {@code onStart} and {@code onEnd} run on the thread that called {@code execute} (a round's
 * helper lane runs its calls after {@link #carry}), so they should be quick;
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

    /**
     * Carries what this observer reads from the calling thread, such as the OpenTelemetry context its
     * spans join, over to another thread that will run calls. It is called on the thread handing the
     * work over, before it is handed; the task it returns runs on the other thread. The executor calls
     * it for each helper lane of {@code executeRound} (at the round's start, once for each lane the round may
     * start, whether or not the round then needs it), and {@link dev.toolyard.ToolExecutor#carry} for an
     * adapter whose framework runs a turn on a thread of its own. What it throws is logged and ignored,
     * and the task then runs as it was given.
     *
     * @param task the work to run on another thread; never {@code null}
     * @return the task to run there instead; never {@code null}. Default: {@code task} itself.
     */
    default Runnable carry(Runnable task) {
        return task;
    }
}
