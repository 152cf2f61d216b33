package dev.toolyard.spi;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import java.util.List;

/**
 * The read side of a store. Every list is in append order (the order calls were first written) and
 * unmodifiable. A call marked as started with no completion reads back as
 * {@link ToolStatus#INTERRUPTED}. Implementations are thread-safe.
 *
 * <p>Stability: stable; a query added later comes with a default.
 */
public interface ToolCallReader {
    /**
     * @param invocationId an invocation id; never {@code null}
     * @return that invocation's calls; never {@code null}
     */
    List<ToolCallRecord> byInvocation(String invocationId);

    /**
     * @param limit how many at most; positive
     * @return the most recent calls, oldest first; never {@code null}
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    List<ToolCallRecord> recent(int limit);

    /**
     * @param toolName a tool name; never {@code null}
     * @param status a status; never {@code null}
     * @return the calls of that tool that ended with that status; never {@code null}
     */
    List<ToolCallRecord> byToolAndStatus(String toolName, ToolStatus status);
}
