package dev.toolyard;

import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.ApprovalRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stage {@link Stage#APPROVAL}: a call whose tool declares
 * {@link ToolSpec#requiresApproval()}, or whose risk class is at or above the executor's
 * {@code requireApprovalFrom}, runs only when the application's {@link ApprovalGate} approves it within
 * the approval timeout. It fails closed: a denial, an exception, a {@code null} or no gate at all is
 * {@code approval_denied}; no answer in time is {@code approval_timeout}; the call never runs and a
 * handler slot the capacity check took is given back. It comes after capacity, so a reviewer is only asked
 * about a call that can run at once; a handed-off call therefore holds its slot while it waits, and the
 * tool's handler bound also bounds its pending approvals. Immutable; thread-safe.
 */
final class ApprovalCheck implements Check<Admitted, Admitted> {
    private final ApprovalGate gate;
    private final RiskClass from;
    private final long timeoutNanos;

    /**
     * @param gate the gate, or {@code null} when none is configured
     * @param from the lowest risk class that always needs approval, or {@code null} for none
     * @param timeoutNanos how long to wait for an answer
     */
    ApprovalCheck(ApprovalGate gate, RiskClass from, long timeoutNanos) {
        this.gate = gate;
        this.from = from;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public Stage stage() {
        return Stage.APPROVAL;
    }

    /** @return whether calls of this tool must be approved by this executor */
    boolean needsApproval(ToolSpec spec) {
        return spec.requiresApproval() || (from != null && spec.riskClass().permits(from));
    }

    @Override
    public Admitted apply(Admitted in) {
        ToolSpec spec = in.contained().tool().spec();
        if (!needsApproval(spec)) {
            return in;
        }
        Call call = in.call();
        if (gate == null) {
            return refuse(in, Reason.APPROVAL_DENIED, "the tool needs approval and no approval gate is configured");
        }
        ApprovalRequest request = new ApprovalRequest(spec.name(), call.recordedArguments(), call.digest,
                call.context.invocationId(), call.callId, call.requestCallId, spec.riskClass());
        CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
        CompletionStage<ApprovalDecision> stage;
        try {
            stage = gate.review(request);
            if (stage == null) {
                return refuse(in, Reason.APPROVAL_DENIED, "the approval gate answered null");
            }
            stage.whenComplete((decision, failure) -> {
                if (failure != null) {
                    answer.completeExceptionally(failure);
                } else {
                    answer.complete(decision);
                }
            });
        } catch (Throwable t) {
            rethrowIfFatal(t);
            return refuse(in, Reason.APPROVAL_DENIED, "the approval gate threw " + t.getClass().getName());
        }
        ApprovalDecision decision;
        try {
            decision = answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            cancel(stage);
            return refuse(in, Reason.APPROVAL_TIMEOUT, "no answer from the approval gate within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return refuse(in, Reason.APPROVAL_DENIED, "the approval gate failed: " + cause.getClass().getName());
        } catch (InterruptedException e) {
            cancel(stage);
            Thread.currentThread().interrupt();
            return refuse(in, Reason.APPROVAL_DENIED, "interrupted while waiting for approval");
        }
        if (decision == null) {
            return refuse(in, Reason.APPROVAL_DENIED, "the approval gate answered null");
        }
        call.reviewedBy(decision.reviewer());
        if (!decision.approved()) {
            return refuse(in, Reason.APPROVAL_DENIED, "denied: " + decision.reason());
        }
        return in;
    }

    private static Admitted refuse(Admitted in, Reason reason, String detail) {
        if (in.slot() != null) {
            in.slot().release(); // the handler never runs
        }
        return in.call().refuse(reason, detail);
    }

    private static void cancel(CompletionStage<ApprovalDecision> stage) {
        if (stage instanceof Future<?> f) {
            try {
                f.cancel(true);
            } catch (RuntimeException ignored) {
                // the application's future; cancelling is a courtesy, the call is refused either way
            }
        }
    }

    private static void rethrowIfFatal(Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
    }
}
