package dev.toolyard;

/**
 * The code behind a tool. The executor calls it only after every check passed, with arguments that
 * were validated against the tool's schema and whose path arguments were already resolved and
 * contained: read them with {@link ToolArgs#path(String)} and never re-resolve the candidate.
 *
 * <p>A handler may throw: the executor turns the exception into {@code FAILED}/{@code handler_error}
 * carrying the exception's class name only. It should honour interruption, which is how the executor
 * asks it to stop at its deadline.
 */
@FunctionalInterface
public interface ToolHandler {
    /**
     * @param args the validated arguments; never {@code null}
     * @param context the invocation's context; never {@code null}
     * @return the output; never {@code null}
     * @throws Exception any failure, reported to the model by class name only
     */
    ToolOutput handle(ToolArgs args, ToolContext context) throws Exception;
}
