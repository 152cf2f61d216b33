package dev.toolyard.spi;

import dev.toolyard.IsolationTier;
import dev.toolyard.spi.IsolationUnavailableException;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The process half of containment: run a command in isolation, on the tier this host offers.
 * {@code TieredSandbox} in {@code toolyard-sandbox} implements it. Implementations are thread-safe.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
public interface IsolatedRunner {
    /**
     * @return the isolation tier this runner runs commands on; never {@code null}; never
     *     {@link IsolationTier#IN_PROCESS}, which names calls that need no isolation
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

    /**
     * Whether {@link #runIsolated(List, SandboxPaths, Duration, Map, ProxyRoute)} can run a command with
     * network through a proxy route on this host.
     *
     * @return why it cannot (what is missing); empty when it can; never {@code null}
     */
    default Optional<String> proxyRouteUnavailable() {
        return Optional.of("this runner does not support network for commands");
    }

    /**
     * As {@link #runIsolated(List, SandboxPaths, Duration, Map)}, with network through {@code route} only:
     * the sandbox keeps its own network namespace with loopback alone, a private host directory holding
     * the route's unix socket is bound into it, and a relay listening on {@code 127.0.0.1:}
     * {@link ProxyRoute#loopbackPort()} inside forwards each connection to that socket. The relay listens
     * before the command starts, so the command never finds the port closed. The environment is used as
     * given: the caller sets the proxy variables.
     *
     * @param argv the command and its arguments
     * @param workspace the roots to bind
     * @param timeout the deadline
     * @param env the environment; {@code null} means empty
     * @param route where the relay's connections go; never {@code null}
     * @return how the run ended
     * @throws IsolationUnavailableException if {@link #proxyRouteUnavailable()} is not empty
     */
    default SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
            Map<String, String> env, ProxyRoute route) {
        throw new IsolationUnavailableException("network for commands is unavailable: "
                + proxyRouteUnavailable().orElse("this runner does not support it"));
    }
}
