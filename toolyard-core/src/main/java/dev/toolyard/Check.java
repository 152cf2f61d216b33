package dev.toolyard;

/**
 * One check of the refusal walk. It takes the hand-off of the check before it and either hands on its
 * own (the next type of the walk) or refuses, by returning {@link Call#refuse}'s {@code null}. A check
 * holds no per-call state and is thread-safe.
 *
 * @param <I> the hand-off it needs
 * @param <O> the hand-off it gives
 */
interface Check<I, O> {
    /** @return this check's stage of the refusal order; {@link Walk} refuses a check out of place */
    Stage stage();

    /**
     * @param in the previous check's hand-off; never {@code null}
     * @return the next hand-off, or {@code null} when the call is refused (the reason is on the call)
     */
    O apply(I in);
}
