package dev.toolyard.spi;

import java.util.concurrent.CompletionStage;

/**
 * A human (or the application's own policy) approving a call before it runs. Register with
 * {@link dev.toolyard.ToolExecutor.Builder#approvalGate}. The executor asks only about a call that passed
 * every other check, right before its write-ahead mark, and waits for the answer at most
 * {@link dev.toolyard.ToolExecutor.Builder#approvalTimeout}. It fails closed: no answer in time is
 * {@code approval_timeout}; an exception (thrown, or completing the stage), a {@code null} stage or a
 * {@code null} decision is {@code approval_denied}; in none of these cases does the call run. On a
 * timeout the executor cancels the stage when it is a {@link java.util.concurrent.Future}.
 *
 * <p>{@link #review} runs on the thread that called {@code execute}, so it should hand the question on
 * (to a queue, a UI, a chat) and return at once; the executor waits, not the gate. Implementations must be
 * thread-safe: a round asks about several calls at once.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
@FunctionalInterface
public interface ApprovalGate {
    /**
     * @param request what is about to run; never {@code null}
     * @return the answer, now or later; {@code null} or an exception counts as a denial
     */
    CompletionStage<ApprovalDecision> review(ApprovalRequest request);
}
