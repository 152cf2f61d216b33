package dev.toolyard;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One model turn whose calls reach the executor one at a time, before the turn is complete: for an
 * adapter whose framework starts each call as the model's response streams in, so that no list of the
 * turn's calls exists when the first one must run. Each call is counted as it arrives; the first
 * {@code maxCallsPerRound} to arrive run as {@link ToolExecutor#execute} would run them, and every later
 * one is refused {@code round_limit} without being looked up, recorded, its detail telling the model to
 * ask again with fewer calls. Arrival order is the order {@link #execute} is entered, which is the
 * model's order when the framework starts the calls in that order on one thread; with several threads
 * it is the order they get here. Use {@link ToolExecutor#executeRound} whenever the whole turn is known:
 * it keeps request order exactly and bounds how many calls run at once. One instance per turn; nothing
 * is kept beyond the count. Thread-safe.
 */
public final class StreamedRound {
    private final ToolExecutor executor;
    private final ToolContext context;
    private final int maxCalls;
    private final String overLimit;
    private final AtomicInteger arrived = new AtomicInteger();

    StreamedRound(ToolExecutor executor, ToolContext context, int maxCalls) {
        this.executor = executor;
        this.context = context;
        this.maxCalls = maxCalls;
        this.overLimit = "this round asked for more than " + maxCalls + " calls; at most " + maxCalls
                + " run in one round and the first " + maxCalls + " did: ask for this call again in a later"
                + " round, with fewer calls per round";
    }

    /**
     * Runs one call of the turn, or refuses it {@code round_limit} when {@code maxCallsPerRound} calls of
     * the turn arrived before it. Never throws for anything the model controls.
     *
     * @param request the call as the model asked for it; never {@code null}
     * @return how the call ended; never {@code null}
     * @throws StoreFailureException if the store cannot record the call
     * @throws IllegalStateException if the executor is closed
     */
    public ToolResult execute(ToolCallRequest request) {
        Objects.requireNonNull(request, "request");
        if (arrived.getAndIncrement() >= maxCalls) {
            return executor.refuseRoundLimit(request, context, overLimit);
        }
        return executor.execute(request, context);
    }

    /** @return the context every call of this turn runs with; never {@code null} */
    public ToolContext context() {
        return context;
    }

    /** @return how many calls have arrived so far, refused ones included */
    public int arrived() {
        return arrived.get();
    }
}
