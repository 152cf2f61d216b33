package dev.toolyard;

/**
 * Base of the exceptions ToolYard's modules other than core throw, such as
 * {@code dev.toolyard.contracts.ContractException}. A sealed class cannot permit a class of another
 * module, so this branch of the sealed {@link ToolYardException} is {@code non-sealed}; it stays
 * closed all the same, because its constructor refuses a subclass outside a {@code dev.toolyard}
 * package. Applications catch it (or {@link ToolYardException}); they do not extend it.
 * Thread-safe, like any exception that is not mutated.
 */
public abstract non-sealed class ModuleException extends ToolYardException {
    private static final long serialVersionUID = 1L;
    private static final String OWN_PACKAGES = "dev.toolyard.";

    /**
     * @param message what the application got wrong, naming the file or parameter; never {@code null}
     * @throws IllegalStateException if the subclass is not ToolYard's own (not in a {@code dev.toolyard} package)
     */
    protected ModuleException(String message) {
        super(message);
        ownSubclass();
    }

    /**
     * @param message what the application got wrong, naming the file or parameter; never {@code null}
     * @param cause the underlying failure; may be {@code null}
     * @throws IllegalStateException if the subclass is not ToolYard's own (not in a {@code dev.toolyard} package)
     */
    protected ModuleException(String message, Throwable cause) {
        super(message, cause);
        ownSubclass();
    }

    private void ownSubclass() {
        String name = getClass().getName();
        if (!name.startsWith(OWN_PACKAGES)) {
            throw new IllegalStateException("only ToolYard's own modules extend ModuleException; " + name
                    + " is not in a dev.toolyard package (catch ToolYardException, or throw your own exception)");
        }
    }
}
