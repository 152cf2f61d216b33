package dev.toolyard;

/** Thrown when a different tool is registered under a name that is already taken. */
public final class DuplicateToolException extends ToolYardException {
    private static final long serialVersionUID = 1L;
    /** The name that was already taken. */
    private final String toolName;

    /** @param toolName the taken name; never {@code null} */
    public DuplicateToolException(String toolName) {
        super("a different tool is already registered under the name '" + toolName + "'");
        this.toolName = toolName;
    }

    /** @return the name that was already taken; never {@code null} */
    public String toolName() {
        return toolName;
    }
}
