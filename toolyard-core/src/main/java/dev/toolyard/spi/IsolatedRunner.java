package dev.toolyard.spi;

import dev.toolyard.IsolationTier;
import dev.toolyard.spi.IsolationUnavailableException;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The process half of containment: run a command in isolation, on the tier this host offers.
 * {@code TieredSandbox} in {@code toolyard-sandbox} implements it. Implementations are thread-safe.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
public interface IsolatedRunner {
    /**
     * @return the isolation tier this runner runs commands on; never {@code null}; never
     *     {@link IsolationTier#NONE}, which names calls that need no isolation
     */
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
