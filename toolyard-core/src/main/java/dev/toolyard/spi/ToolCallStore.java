package dev.toolyard.spi;

import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;

/**
 * Where the executor writes its record of every call. Implementations must be thread-safe. A method
 * that returns normally has recorded durably (for a durable store); one that cannot record throws,
 * and the executor then throws {@link StoreFailureException} out of {@code execute}.
 *
 * <p>A call that reaches its handler is written twice: {@link #markStarted} before the handler runs
 * (if it throws, the handler does not run) and {@link #complete} after. A call refused before its
 * handler is written once, with {@link #append}.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
public interface ToolCallStore {
    /**
     * Records that a call is about to run its handler.
     *
     * @param start the mark; never {@code null}
     */
    void markStarted(ToolCallStart start);

    /**
     * Completes a call marked with {@link #markStarted}; the record has the mark's {@code callId}.
     *
     * @param record the finished call; never {@code null}
     */
    void complete(ToolCallRecord record);

    /**
     * Records a call that never reached its handler (a refusal by the executor).
     *
     * @param record the refused call; never {@code null}
     */
    void append(ToolCallRecord record);
}
