package dev.toolyard.spi;

import dev.toolyard.spi.PathDecision;
import dev.toolyard.SandboxPaths;

/**
 * The path half of containment: resolve a candidate for reading or writing inside a workspace.
 * {@link dev.toolyard.PathContainment} is the implementation ToolYard ships. Implementations are
 * thread-safe and never throw for a candidate a model supplied: a bad candidate is a refusing
 * {@link PathDecision}.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
public interface PathPolicy {
    /**
     * Resolves a candidate for reading: inside a read root or the write root, after resolving symbolic
     * links and {@code ..}. A relative candidate resolves against the write root.
     *
     * @param candidate the path a model supplied; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return the decision; never {@code null}
     */
    PathDecision resolveRead(String candidate, SandboxPaths workspace);

    /**
     * Resolves a candidate for writing: inside the write root, with no symbolic link as the target or
     * any of its parents below the root. A target that does not exist yet is resolved through its
     * nearest existing ancestor.
     *
     * @param candidate the path a model supplied; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return the decision; never {@code null}
     */
    PathDecision resolveWrite(String candidate, SandboxPaths workspace);
}
