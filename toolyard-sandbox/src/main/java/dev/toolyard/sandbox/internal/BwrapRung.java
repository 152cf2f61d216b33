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
        String by = BwrapCommand.helperSetsTheLimits(tools, ids.isPresent()) ? "toolyard-warm --exec-once" : "the launcher's ulimit";
        m.put("cpuSeconds", "RLIMIT_CPU, set by " + by + " (SIGKILL at the limit)");
        m.put("memoryBytes", "RLIMIT_AS per process, set by " + by + " (whole KiB)");
        m.put("fileSizeBytes", "RLIMIT_FSIZE, set by " + by + " (whole 512-byte blocks)");
        m.put("processCount", ids.isPresent()
                ? "RLIMIT_NPROC on a uid lent to this run alone (" + ids.get() + ")"
                : "RLIMIT_NPROC on this process's uid, counting its other processes too (not running as root)");
        return m;
    }

    @Override
    public Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout) {
        Optional<SandboxIds.Lease> lease = ids.map(i -> i.acquireHandedOverOrThrow(binds.writeRoot(), saturatedNanos(timeout)));
        List<String> argv;
        try {
            argv = BwrapCommand.argv(tools, layout, limits, binds, env, command,
                    new BwrapCommand.Run(lease.map(SandboxIds.Lease::pair), etcSnapshot, seccompProgram), limits.processCount());
        } catch (RuntimeException e) {
            lease.ifPresent(SandboxIds.Lease::close);
            throw e;
        }
        return new BwrapLaunch(argv, lease.orElse(null), null, false);
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
        SandboxIds.Lease lease = ids.get().acquireExclusiveOrThrow(saturatedNanos(timeout));
        List<String> argv;
        try {
            argv = BwrapCommand.warmArgv(tools, layout, limits, binds,
                    new BwrapCommand.Run(Optional.of(lease.pair()), etcSnapshot, seccompProgram), supervisor);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        return new BwrapLaunch(argv, lease, binds.writeRoot(), true);
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static final class BwrapLaunch implements WarmLaunch {
        private final List<String> argv;
        /** The run's lease, or the warm sandbox's exclusive one; {@code null} when this process is not root. */
        private final SandboxIds.Lease lease;
        private final Path writeRoot;
        private final boolean warm;

        BwrapLaunch(List<String> argv, SandboxIds.Lease lease, Path writeRoot, boolean warm) {
            this.argv = List.copyOf(argv);
            this.lease = lease;
            this.writeRoot = writeRoot;
            this.warm = warm;
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
        public SandboxIds.Pair pair() {
            if (!warm) {
                throw new IllegalStateException("a cold run's lease is its own");
            }
            return lease.pair();
        }

        /**
         * Kills the pid namespace's init (bubblewrap's own on a cold run, the supervisor on a warm
         * sandbox): the kernel then kills everything else in the namespace, and bubblewrap reaps it and
         * exits. Killing bubblewrap first would leave the init to the host's init to reap, which may
         * take seconds.
         */
        @Override
        public void killTree(Process client) {
            // Right after the start bubblewrap may not have cloned the init yet: give it a moment.
            long deadline = System.nanoTime() + CLONE_WAIT_NANOS;
            List<ProcessHandle> inits = client.children().toList();
            while (inits.isEmpty() && client.isAlive() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                inits = client.children().toList();
            }
            inits.forEach(ProcessHandle::destroyForcibly);
            if (inits.isEmpty()) {
                client.destroyForcibly();
            }
        }

        /**
         * Bubblewrap has exited, so its pid namespace is gone with every process of the run in it:
         * the uid is free for the next run.
         */
        @Override
        public void close(Process client, boolean killed) {
            if (lease != null) {
                lease.close();
            }
        }

        @Override
        public void abandon() {
            if (lease != null) {
                lease.close();
            }
        }

        @Override
        public Optional<SandboxIds.Claim> claimWriteRoot(long waitNanos) throws IOException {
            if (!warm) {
                throw new IllegalStateException("a cold run's write root is its lease's");
            }
            return lease.claim(writeRoot, waitNanos);
        }
    }
}
