package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;

/**
 * One model turn: its calls in the model's order, and the one round that answers them all. The first
 * call LangChain4j runs, on whatever thread, runs the round (through {@code ToolExecutor.executeRound},
 * with what the executor's observers carried from the invoking thread); every other call of the turn
 * waits for it and takes its own answer. Thread-safe; {@link #claim} is called under {@link Turns}' lock.
 */
final class Turn {
    /**
     * @param invocation the AI service invocation the turn belongs to; never {@code null}
     * @param requests the turn's calls, in the model's order; never empty
     */
    record Spec(InvocationContext invocation, List<ToolExecutionRequest> requests) {}

    /** A call's place in its turn. */
    record Place(Turn turn, int index) {
        /** @return the call's answer, once its turn's round has run; never {@code null} */
        ToolExecutionResult answer() {
            return turn.answer(index);
        }
    }

    private final Spec spec;
    private final boolean[] claimed;
    private int claims;
    private final FutureTask<List<ToolExecutionResult>> round;
    private final Runnable carried;

    /**
     * @param spec the turn
     * @param run answers every call of the turn, one result per call in order; never throws
     * @param carry carries the invoking thread's observed state to the thread that will run the round
     */
    Turn(Spec spec, Function<Spec, List<ToolExecutionResult>> run, Function<Runnable, Runnable> carry) {
        this.spec = spec;
        this.claimed = new boolean[spec.requests().size()];
        this.round = new FutureTask<>(() -> run.apply(spec));
        this.carried = carry.apply(round);
    }

    UUID invocationId() {
        return spec.invocation().invocationId();
    }

    List<ToolExecutionRequest> requests() {
        return spec.requests();
    }

    /**
     * @return the first unclaimed place holding this very request; the first place holding it when all
     *     are claimed (LangChain4j ran the same request object twice); {@code null} if none holds it
     */
    Place claim(ToolExecutionRequest request) {
        int first = -1;
        for (int i = 0; i < claimed.length; i++) {
            if (spec.requests().get(i) != request) {
                continue;
            }
            if (!claimed[i]) {
                claimed[i] = true;
                claims++;
                return new Place(this, i);
            }
            if (first < 0) {
                first = i;
            }
        }
        return first < 0 ? null : new Place(this, first);
    }

    /**
     * For a request LangChain4j rebuilt (equal to one of the turn's, not the same object): the first
     * unclaimed place holding an equal request. Equal requests have the same id, name and arguments, so
     * either place answers either.
     *
     * @return the place, claimed; {@code null} if no unclaimed place holds an equal request
     */
    Place claimEqual(ToolExecutionRequest request) {
        for (int i = 0; i < claimed.length; i++) {
            if (!claimed[i] && spec.requests().get(i).equals(request)) {
                claimed[i] = true;
                claims++;
                return new Place(this, i);
            }
        }
        return null;
    }

    boolean allClaimed() {
        return claims == claimed.length;
    }

    private ToolExecutionResult answer(int index) {
        carried.run(); // runs the round on the first call to get here; a no-op once it started elsewhere
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return round.get().get(index);
                } catch (InterruptedException e) {
                    interrupted = true; // the round is bounded by the executor's deadlines: wait it out
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw new IllegalStateException("a turn's round threw", e.getCause()); // run never throws
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
