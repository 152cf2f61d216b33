package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The bubblewrap rung. When this process is root, each run is lent a uid and gid of its own
 * ({@link SandboxIds}), its write root is handed over to them ({@link WriteRootHandover}), and the
 * command runs as them; the process count is then held by {@code RLIMIT_NPROC}, which the kernel
 * applies to every uid but root, on a uid no other run has. When it is not root, the command keeps
 * this process's uid and {@code RLIMIT_NPROC} counts that uid's processes. Immutable. Thread-safe.
 */
public final class BwrapRung implements Rung {
    private static final long CLONE_WAIT_NANOS = 200_000_000L;

    private final BwrapCommand.Tools tools;
    private final HostLayout layout;
    private final ResourceLimits limits;
    private final Optional<SandboxIds> ids;
    private final Optional<Path> etcSnapshot;
    private final Optional<Path> seccompProgram;

    /**
     * @param ids the uids to lend, when this process is root; empty when it is not
     * @param etcSnapshot the {@code /etc} entries in one directory; empty to bind them one by one
     * @param seccompProgram the seccomp program to load; empty for none
     */
    public BwrapRung(BwrapCommand.Tools tools, HostLayout layout, ResourceLimits limits, Optional<SandboxIds> ids,
            Optional<Path> etcSnapshot, Optional<Path> seccompProgram) {
        if (ids.isPresent() && tools.setpriv().isEmpty()) {
            throw new IllegalArgumentException("running as a sandbox uid needs setpriv");
        }
        this.tools = tools;
        this.layout = layout;
        this.limits = limits;
        this.ids = ids;
        this.etcSnapshot = etcSnapshot;
        this.seccompProgram = seccompProgram;
    }

    @Override
    public String name() {
        return "bwrap";
    }

    @Override
    public IsolationTier tier() {
        return IsolationTier.BWRAP;
    }

    @Override
    public Set<String> limitsUnenforced() {
        return Set.of();
    }

    @Override
    public boolean filtered() {
        return seccompProgram.isPresent();
    }

    @Override
    public Map<String, String> enforcement() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cpuSeconds", "RLIMIT_CPU, set by the launcher's ulimit (SIGKILL at the limit)");
        m.put("memoryBytes", "RLIMIT_AS per process, set by the launcher's ulimit");
        m.put("fileSizeBytes", "RLIMIT_FSIZE, set by the launcher's ulimit (whole 512-byte blocks)");
        m.put("processCount", ids.isPresent()
                ? "RLIMIT_NPROC on a uid lent to this run alone (" + ids.get() + ")"
                : "RLIMIT_NPROC on this process's uid, counting its other processes too (not running as root)");
        return m;
    }

    @Override
    public Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout) {
        Optional<SandboxIds.Lease> lease = ids.isPresent() ? Optional.of(lease(binds, timeout)) : Optional.empty();
        List<String> argv = BwrapCommand.argv(tools, layout, limits, binds, env, command,
                new BwrapCommand.Run(lease, etcSnapshot, seccompProgram), limits.processCount());
        return new BwrapLaunch(argv, ids.orElse(null), lease.orElse(null), binds.writeRoot());
    }

    @Override
    public Optional<String> warmUnavailable() {
        return ids.isPresent() ? Optional.empty() : Optional.of("warm mode needs this process to be root, so that "
                + "commands run as a sandbox uid and cannot reach their supervisor; runs are cold");
    }

    @Override
    public WarmLaunch prepareWarm(BindSet binds, Path supervisor, Duration timeout) {
        if (ids.isEmpty()) {
            throw new IllegalStateException(warmUnavailable().orElseThrow());
        }
        SandboxIds.Exclusive lease = exclusive(ids.get(), binds, timeout);
        try {
            List<String> argv = BwrapCommand.warmArgv(tools, layout, limits, binds,
                    new BwrapCommand.Run(Optional.of(lease.lease()), etcSnapshot, seccompProgram), supervisor);
            return new BwrapWarmLaunch(argv, lease);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
    }

    /** @return a lease of a warm sandbox's own, no other run's */
    static SandboxIds.Exclusive exclusive(SandboxIds ids, BindSet binds, Duration timeout) {
        return ids.acquireExclusive(binds.writeRoot(), saturatedNanos(timeout)).orElseThrow(() -> new UncheckedIOException(
                new IOException("no sandbox uid was free for a warm sandbox within the timeout (" + ids + ")")));
    }

    private SandboxIds.Lease lease(BindSet binds, Duration timeout) {
        return ids.get().acquireHandedOverOrThrow(binds.writeRoot(), saturatedNanos(timeout));
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static final class BwrapLaunch implements Launch {
        private final List<String> argv;
        private final SandboxIds pool;
        private final SandboxIds.Lease lease;
        private final Path writeRoot;

        BwrapLaunch(List<String> argv, SandboxIds pool, SandboxIds.Lease lease, Path writeRoot) {
            this.argv = List.copyOf(argv);
            this.pool = pool;
            this.lease = lease;
            this.writeRoot = writeRoot;
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public Map<String, String> environment() {
            return Map.of();
        }

        @Override
        public void killTree(Process client) {
            killInitThenBwrap(client);
        }

        /**
         * Bubblewrap has exited, so its pid namespace is gone with every process of the run in it:
         * the uid is free for the next run.
         */
        @Override
        public void close(Process client, boolean killed) {
            if (lease != null) {
                pool.release(writeRoot, lease);
            }
        }

        @Override
        public void abandon() {
            if (lease != null) {
                pool.release(writeRoot, lease);
            }
        }
    }

    /** A warm sandbox's start: its lease is its own, released once when bubblewrap is gone. */
    private static final class BwrapWarmLaunch implements WarmLaunch {
        private final List<String> argv;
        private final SandboxIds.Exclusive lease;

        BwrapWarmLaunch(List<String> argv, SandboxIds.Exclusive lease) {
            this.argv = List.copyOf(argv);
            this.lease = lease;
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public Map<String, String> environment() {
            return Map.of();
        }

        @Override
        public SandboxIds.Lease lease() {
            return lease.lease();
        }

        @Override
        public void killTree(Process client) {
            killInitThenBwrap(client);
        }

        @Override
        public void close(Process client, boolean killed) {
            lease.close();
        }

        @Override
        public void abandon() {
            lease.close();
        }

        @Override
        public void beginCommand() throws IOException {
            lease.beginCommand();
        }

        @Override
        public void endCommand() {
            lease.endCommand();
        }
    }

    /**
     * Kills the command (or the supervisor), the pid namespace's init: the kernel then kills everything
     * else in the namespace, and bubblewrap reaps it and exits. Killing bubblewrap first would leave the
     * init to the host's init to reap, which may take seconds.
     */
    private static void killInitThenBwrap(Process client) {
        // Right after the start bubblewrap may not have cloned the command yet: give it a moment.
        long deadline = System.nanoTime() + CLONE_WAIT_NANOS;
        List<ProcessHandle> commands = client.children().toList();
        while (commands.isEmpty() && client.isAlive() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            commands = client.children().toList();
        }
        commands.forEach(ProcessHandle::destroyForcibly);
        if (commands.isEmpty()) {
            client.destroyForcibly();
        }
    }
}
