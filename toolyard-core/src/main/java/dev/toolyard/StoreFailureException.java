package dev.toolyard;

/**
 * Thrown by {@link ToolExecutor#execute} when its {@link dev.toolyard.spi.ToolCallStore} cannot write. A broken store is
 * the application's problem, not the model's: a call that cannot be recorded is not reported as a
 * result. When the write-ahead mark fails, the handler never runs.
 */
public final class StoreFailureException extends ToolYardException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what could not be written; never {@code null}
     * @param cause the store's own failure; may be {@code null}
     */
    public StoreFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
