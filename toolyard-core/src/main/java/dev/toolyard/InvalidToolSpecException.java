package dev.toolyard;

/**
 * Thrown by {@link ToolSpec.Builder#build()} when a spec breaks a rule. The message starts with the
 * JSON path of the failing part, for example {@code $.properties.path.type: ...}.
 */
public final class InvalidToolSpecException extends ToolYardException {
    private static final long serialVersionUID = 1L;
    /** Where the rule broke. */
    private final String jsonPath;

    /**
     * @param jsonPath where the rule broke, {@code $} for the whole spec; never {@code null}
     * @param problem what is wrong there; never {@code null}
     */
    public InvalidToolSpecException(String jsonPath, String problem) {
        super(jsonPath + ": " + problem);
        this.jsonPath = jsonPath;
    }

    /** @return the JSON path of the failing part, for example {@code $.properties.path}; never {@code null} */
    public String jsonPath() {
        return jsonPath;
    }
}
