package dev.toolyard;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The containment port: the path half (resolve a candidate for reading or writing inside a workspace)
 * and the process half (run a command in isolation). {@link PathContainment} implements the path half
 * and has no isolation tier; {@code TieredSandbox} in {@code toolyard-sandbox} adds the process half.
 * Implementations are thread-safe.
 */
public interface Sandbox {
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

    /** @return the isolation tier this sandbox runs commands on; never {@code null} */
    IsolationTier isolationTier();

    /**
     * Runs a command in isolation: argv only (never a shell string), the write root read-write and the
     * read roots read-only at their own paths, no network, the given environment and nothing else.
     *
     * @param argv the command and its arguments, at least one item; never {@code null}
     * @param workspace the roots to bind; never {@code null}
     * @param timeout the deadline; positive; the whole process tree is killed at it
     * @param env the environment, an explicit allowlist; {@code null} means empty, never the parent's
     * @return how the run ended; never {@code null}
     * @throws IsolationUnavailableException if {@link #isolationTier()} is {@link IsolationTier#UNAVAILABLE}
     * @throws IllegalArgumentException if argv is empty or the timeout is not positive
     */
    SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout, Map<String, String> env);

    /**
     * As {@link #runIsolated(List, SandboxPaths, Duration, Map)}, with the network stated. Version 1
     * refuses network access: no shipped tool needs it, and a door with no consumer stays shut.
     *
     * @param argv the command and its arguments
     * @param workspace the roots to bind
     * @param timeout the deadline
     * @param env the environment; {@code null} means empty
     * @param network must be {@code false}
     * @return how the run ended
     * @throws IllegalArgumentException if {@code network} is {@code true}
     */
    default SubprocessResult runIsolated(
            List<String> argv, SandboxPaths workspace, Duration timeout, Map<String, String> env, boolean network) {
        if (network) {
            throw new IllegalArgumentException("network access for isolated runs is not supported in this version");
        }
        return runIsolated(argv, workspace, timeout, env);
    }
}
