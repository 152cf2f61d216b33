package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The bubblewrap rung. The process count is held by a pids cgroup when the host runs as root (where
 * {@code RLIMIT_NPROC} does nothing), by {@code RLIMIT_NPROC} when it does not; with neither, the
 * limit is reported unenforced. Immutable. Thread-safe.
 */
public final class BwrapRung implements Rung {
    /** Bubblewrap's own process in the cgroup: the monitor outside; the command is the init inside. */
    static final int BWRAP_PROCESSES = 1;
    private static final long CLONE_WAIT_NANOS = 200_000_000L;

    private final BwrapCommand.Tools tools;
    private final HostLayout layout;
    private final ResourceLimits limits;
    private final ProcessCount processCount;
    private final Optional<PidsCgroups> cgroups;

    /** How the process count is held. */
    public enum ProcessCount {
        /** A per-run pids cgroup, entered through {@code cgexec}. */
        PIDS_CGROUP,
        /** {@code RLIMIT_NPROC}, which holds because the command's uid is not 0. */
        RLIMIT_NPROC,
        /** Nothing: reported in {@link #limitsUnenforced()}. */
        UNENFORCED
    }

    /** @param cgroups required for {@link ProcessCount#PIDS_CGROUP}, with {@code tools.cgexec()} */
    public BwrapRung(BwrapCommand.Tools tools, HostLayout layout, ResourceLimits limits, ProcessCount processCount,
            Optional<PidsCgroups> cgroups) {
        if (processCount == ProcessCount.PIDS_CGROUP && (cgroups.isEmpty() || tools.cgexec().isEmpty())) {
            throw new IllegalArgumentException("a pids cgroup needs the pool and cgexec");
        }
        this.tools = tools;
        this.layout = layout;
        this.limits = limits;
        this.processCount = processCount;
        this.cgroups = processCount == ProcessCount.PIDS_CGROUP ? cgroups : Optional.empty();
    }

    @Override
    public String name() {
        return "bwrap";
    }

    @Override
    public IsolationTier tier() {
        return IsolationTier.BWRAP;
    }

    /** @return how this rung holds the process count */
    public ProcessCount processCount() {
        return processCount;
    }

    @Override
    public Set<String> limitsUnenforced() {
        return processCount == ProcessCount.UNENFORCED ? Set.of("processCount") : Set.of();
    }

    @Override
    public Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout) {
        PidsCgroups.Lease lease = null;
        if (cgroups.isPresent()) {
            try {
                lease = cgroups.get().acquire((long) limits.processCount() + BWRAP_PROCESSES);
            } catch (IOException e) {
                throw new UncheckedIOException("could not prepare the pids cgroup that holds the process count", e);
            }
        }
        long nproc = limits.processCount();
        List<String> argv = BwrapCommand.argv(tools, layout, limits, binds, env, command,
                Optional.ofNullable(lease).map(PidsCgroups.Lease::controllerPath), nproc);
        return new BwrapLaunch(argv, cgroups.orElse(null), lease);
    }

    private static final class BwrapLaunch implements Launch {
        private final List<String> argv;
        private final PidsCgroups pool;
        private final PidsCgroups.Lease lease;

        BwrapLaunch(List<String> argv, PidsCgroups pool, PidsCgroups.Lease lease) {
            this.argv = List.copyOf(argv);
            this.pool = pool;
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

        /**
         * Kills the command, the pid namespace's init: the kernel then kills everything else in the
         * namespace, and bubblewrap reaps the command and exits. Killing bubblewrap first would leave
         * the command to the host's init to reap, which may take seconds. Processes left in the cgroup
         * after that are killed on release.
         */
        @Override
        public void killTree(Process client) {
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

        @Override
        public void close(Process client, boolean killed) {
            if (lease != null) {
                pool.release(lease);
            }
        }

        @Override
        public void abandon() {
            if (lease != null) {
                pool.release(lease);
            }
        }
    }
}
