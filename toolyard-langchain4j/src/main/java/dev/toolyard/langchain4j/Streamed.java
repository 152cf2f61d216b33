package dev.toolyard.langchain4j;

import dev.langchain4j.invocation.InvocationContext;
import dev.toolyard.StreamedRound;
import java.util.function.Function;

/**
 * The turn of a streamed response whose calls LangChain4j started before the response was complete
 * ({@code executeToolsConcurrently()} with a {@code TokenStream}): one {@link StreamedRound}, opened with
 * the invocation's ToolYard context when its first call arrives. Thread-safe.
 */
final class Streamed {
    private final InvocationContext invocation;
    private final Function<InvocationContext, StreamedRound> opener;
    private StreamedRound round;

    /**
     * @param invocation the invocation the turn belongs to; never {@code null}
     * @param opener opens the round from the invocation; may throw (the application's context function)
     */
    Streamed(InvocationContext invocation, Function<InvocationContext, StreamedRound> opener) {
        this.invocation = invocation;
        this.opener = opener;
    }

    /**
     * @return the turn's round, opened on the first call; the same one for every later call
     * @throws RuntimeException what opening threw; the next call tries again
     */
    synchronized StreamedRound round() {
        if (round == null) {
            round = opener.apply(invocation);
        }
        return round;
    }
}
