package dev.toolyard;

import dev.toolyard.spi.IsolationUnavailableException;

/**
 * Base of every exception ToolYard throws. Exceptions signal bugs in the calling application (a
 * duplicate registration, an invalid spec, a broken store), never bad input from a model: that
 * comes back as a {@link ToolResult}.
 *
 * <p>The hierarchy is closed: this class is sealed, core's subclasses are final, and the one open
 * branch, {@link ModuleException}, is for the exceptions of ToolYard's other modules (a sealed class
 * cannot permit a class of another module) and accepts only subclasses in a {@code dev.toolyard}
 * package. So {@code catch (ToolYardException e)} catches exactly what ToolYard throws, and a switch
 * over the permitted subclasses is complete. Thread-safe, like any exception that is not mutated.
 */
public abstract sealed class ToolYardException extends RuntimeException
        permits DuplicateToolException, InvalidToolSpecException, StoreFailureException,
                IsolationUnavailableException, ModuleException {
    private static final long serialVersionUID = 1L;

    /** @param message what the application got wrong; never {@code null} */
    protected ToolYardException(String message) {
        super(message);
    }

    /**
     * @param message what the application got wrong; never {@code null}
     * @param cause the underlying failure; may be {@code null}
     */
    protected ToolYardException(String message, Throwable cause) {
        super(message, cause);
    }
}
