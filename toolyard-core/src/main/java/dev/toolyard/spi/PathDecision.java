package dev.toolyard.spi;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The outcome of containing one candidate path: either the resolved absolute path inside the
 * workspace, or a refusal with a detail that names neither root nor host layout. Immutable.
 */
public final class PathDecision {
    private final Path path;
    private final String refusal;

    private PathDecision(Path path, String refusal) {
        this.path = path;
        this.refusal = refusal;
    }

    /**
     * @param resolved the resolved path inside the workspace; never {@code null}
     * @return an admitting decision
     */
    public static PathDecision inside(Path resolved) {
        return new PathDecision(Objects.requireNonNull(resolved, "resolved"), null);
    }

    /**
     * @param detail why it was refused, safe to show the model; never {@code null}
     * @return a refusing decision
     */
    public static PathDecision escape(String detail) {
        return new PathDecision(null, Objects.requireNonNull(detail, "detail"));
    }

    /** @return whether the candidate resolved inside the workspace */
    public boolean isInside() {
        return path != null;
    }

    /**
     * @return the resolved path
     * @throws IllegalStateException if the candidate was refused
     */
    public Path path() {
        if (path == null) {
            throw new IllegalStateException("the candidate was refused: " + refusal);
        }
        return path;
    }

    /** @return why the candidate was refused; empty when it was admitted; never {@code null} */
    public String refusal() {
        return refusal == null ? "" : refusal;
    }

    @Override
    public String toString() {
        return path != null ? "inside " + path : "escape: " + refusal;
    }
}
