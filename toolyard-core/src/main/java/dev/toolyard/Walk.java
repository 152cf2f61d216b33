package dev.toolyard;

import java.util.ArrayList;
import java.util.List;

import java.util.Arrays;

/**
 * The refusal walk as one declared sequence of {@link Check}s. The types chain (a check can only follow
 * one whose hand-off it takes), and each check names its {@link Stage}: declaring one out of the order
 * {@code Stage} declares fails, so an executor with a misdeclared walk cannot be built. Walking is a loop over an array, with no allocation of its own. Immutable; thread-safe.
 *
 * @param <I> what the walk starts from
 * @param <O> what a call that passes every check becomes
 */
final class Walk<I, O> {
    private final Check<Object, Object>[] checks;

    private Walk(Check<Object, Object>[] checks) {
        this.checks = checks;
    }

    /**
     * @param check the first check, at position 0
     * @return a walk of that one check
     * @throws IllegalStateException if the check's position is not 0
     */
    @SuppressWarnings("unchecked")
    static <I, O> Walk<I, O> first(Check<I, O> check) {
        return new Walk<I, O>(new Check[0]).append(check);
    }

    /**
     * @param next the check after the last one, at the next position
     * @return the longer walk; this one is unchanged
     * @throws IllegalStateException if the check's position is not the next one
     */
    <N> Walk<I, N> then(Check<? super O, N> next) {
        return append(next);
    }

    @SuppressWarnings("unchecked")
    private <N> Walk<I, N> append(Check<?, ?> next) {
        if (next.stage().position() != checks.length) {
            throw new IllegalStateException("refusal sequence positions must be exactly 0.." + checks.length
                    + " in Stage's order; " + next.getClass().getSimpleName() + " is stage " + next.stage()
                    + " (position " + next.stage().position() + ") at place " + checks.length);
        }
        Check<Object, Object>[] longer = Arrays.copyOf(checks, checks.length + 1);
        longer[checks.length] = (Check<Object, Object>) next;
        return new Walk<>(longer);
    }

    /**
     * @param start the first hand-off
     * @return what the last check handed on, or {@code null} when a check refused the call
     */
    @SuppressWarnings("unchecked")
    O walk(I start) {
        Object value = start;
        for (Check<Object, Object> check : checks) {
            value = check.apply(value);
            if (value == null) {
                return null;
            }
        }
        return (O) value;
    }

    /** @return the stages of the walk's checks, in the order they run; unmodifiable */
    List<Stage> stages() {
        List<Stage> stages = new ArrayList<>(checks.length);
        for (Check<Object, Object> check : checks) {
            stages.add(check.stage());
        }
        return List.copyOf(stages);
    }

    /** @return how many checks the walk has */
    int length() {
        return checks.length;
    }
}
