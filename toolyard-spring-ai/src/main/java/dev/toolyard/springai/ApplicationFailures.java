package dev.toolyard.springai;

import dev.toolyard.StoreFailureException;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Logs what kept a call from completing on the application's side (the model only reads
 * {@link ToolYardToolCallbacks#NOT_COMPLETED}): each kind of failure once at {@code WARNING} with its
 * exception, then at {@code DEBUG}, so a model retrying in a loop cannot flood the log while the first
 * occurrence is never silent. Logger: {@code dev.toolyard.springai}. Thread-safe.
 */
final class ApplicationFailures {
    private static final System.Logger LOG = System.getLogger("dev.toolyard.springai");

    private final AtomicBoolean resolverNull = new AtomicBoolean();
    private final AtomicBoolean resolverOrExecutor = new AtomicBoolean();
    private final AtomicBoolean store = new AtomicBoolean();

    void resolverReturnedNull() {
        log(resolverNull, "the ToolContextResolver returned null, so the tool calls of this turn were answered"
                + " \"" + ToolYardToolCallbacks.NOT_COMPLETED + "\" and not run", null);
    }

    void failed(RuntimeException e) {
        if (e instanceof StoreFailureException) {
            log(store, "the ToolCallStore could not record a call, so the tool calls of this turn were answered"
                    + " \"" + ToolYardToolCallbacks.NOT_COMPLETED + "\" (no handler runs unrecorded)", e);
        } else {
            log(resolverOrExecutor, "the ToolContextResolver or the ToolExecutor threw, so the tool calls of this"
                    + " turn were answered \"" + ToolYardToolCallbacks.NOT_COMPLETED + "\" and not run", e);
        }
    }

    private static void log(AtomicBoolean logged, String message, Throwable e) {
        boolean first = logged.compareAndSet(false, true);
        Level level = first ? Level.WARNING : Level.DEBUG;
        String text = first ? message + " (later occurrences are logged at DEBUG)" : message;
        if (e == null) {
            LOG.log(level, text);
        } else {
            LOG.log(level, text, e);
        }
    }
}
