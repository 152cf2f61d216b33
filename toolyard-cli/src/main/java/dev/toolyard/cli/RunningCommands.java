package dev.toolyard.cli;

import dev.toolyard.spi.ProxyRoute;
import dev.toolyard.IsolationTier;
import dev.toolyard.spi.PathDecision;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.spi.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The sandbox {@code toolyard mcp} runs commands through, counting the commands running in it, so the
 * server can wait, before it exits, until every command it cancelled is gone: the sandbox returns from
 * {@code runIsolated} only once everything the run started is dead. Thread-safe.
 */
final class RunningCommands implements Sandbox {
    private final Sandbox sandbox;
    private final Object lock = new Object();
    private int running;

    RunningCommands(Sandbox sandbox) {
        this.sandbox = sandbox;
    }

    @Override
    public IsolationTier isolationTier() {
        return sandbox.isolationTier();
    }

    @Override
    public SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
            Map<String, String> env) {
        synchronized (lock) {
            running++;
        }
        try {
            return sandbox.runIsolated(argv, workspace, timeout, env);
        } finally {
            synchronized (lock) {
                running--;
                lock.notifyAll();
            }
        }
    }

    @Override
    public Optional<String> proxyRouteUnavailable() {
        return sandbox.proxyRouteUnavailable();
    }

    @Override
    public SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
            Map<String, String> env, ProxyRoute route) {
        synchronized (lock) {
            running++;
        }
        try {
            return sandbox.runIsolated(argv, workspace, timeout, env, route);
        } finally {
            synchronized (lock) {
                running--;
                lock.notifyAll();
            }
        }
    }

    @Override
    public PathDecision resolveRead(String candidate, SandboxPaths workspace) {
        return sandbox.resolveRead(candidate, workspace);
    }

    @Override
    public PathDecision resolveWrite(String candidate, SandboxPaths workspace) {
        return sandbox.resolveWrite(candidate, workspace);
    }

    /** @return whether no command was running any more within the timeout */
    boolean awaitNone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }
}
