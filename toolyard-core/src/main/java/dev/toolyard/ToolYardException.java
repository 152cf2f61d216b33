package dev.toolyard;

/**
 * Base of every exception ToolYard throws. Exceptions signal bugs in the calling application (a
 * duplicate registration, an invalid spec, a broken store), never bad input from a model: that
 * comes back as a {@link ToolResult}.
 */
public class ToolYardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what the application got wrong; never {@code null} */
    public ToolYardException(String message) {
        super(message);
    }

    /**
     * @param message what the application got wrong; never {@code null}
     * @param cause the underlying failure; may be {@code null}
     */
    public ToolYardException(String message, Throwable cause) {
        super(message, cause);
    }
}
