package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The container rung (podman or docker). Every limit is enforced: memory and processes by the
 * engine's cgroups, the rest by {@code prlimit} inside. A stopped run's container is removed with
 * the engine's {@code rm -f}, since signalling the client leaves the container running; the engine's
 * own timeout is a backstop behind that.
 *
 * <p>A container outlives its client, so neither a killed client nor a JVM that dies ends it by
 * itself. Each cold run therefore has a watchdog ({@link ContainerCommand#watchdog}), started before
 * the client: a shell on the host that reads a pipe whose other end only this JVM holds, and removes the
 * container when the pipe closes without the word {@code done} (the JVM died, however it died); and the
 * client itself dies with the JVM ({@code setpriv --pdeathsig KILL}), so it cannot go on to create the
 * container after the watchdog looked. The run's uid is released only once its container is known to be
 * gone: when a removal fails or times out, the lease stays held (and the watchdog armed) while removals
 * are retried in the background, and is released by the first that succeeds. Immutable. Thread-safe.
 */
public final class ContainerRung implements Rung {
    private static final System.Logger LOG = System.getLogger(ContainerRung.class.getName());
    private static final Duration REMOVE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration REMOVE_RETRY = Duration.ofSeconds(10);

    private final ContainerCommand.Tools tools;
    private final String image;
    private final HostLayout layout;
    private final ResourceLimits limits;
    private final Map<String, String> clientEnv;
    private final Optional<SandboxIds> ids;
    private final Optional<Path> seccompProfile;
    private final Duration removeTimeout;
    private final Duration removeRetry;

    /**
     * @param clientEnv the environment of the engine's client
     * @param ids the uids to lend, one per run, when this process is root; empty when it is not
     * @param seccompProfile the seccomp profile to load; empty for the engine's default
     */
    public ContainerRung(ContainerCommand.Tools tools, String image, HostLayout layout, ResourceLimits limits,
            Map<String, String> clientEnv, Optional<SandboxIds> ids, Optional<Path> seccompProfile) {
        this(tools, image, layout, limits, clientEnv, ids, seccompProfile, REMOVE_TIMEOUT, REMOVE_RETRY);
    }

    /**
     * @param removeTimeout how long one {@code rm -f} may take before it counts as failed
     * @param removeRetry how long after a failed removal the next is tried
     */
    ContainerRung(ContainerCommand.Tools tools, String image, HostLayout layout, ResourceLimits limits,
            Map<String, String> clientEnv, Optional<SandboxIds> ids, Optional<Path> seccompProfile, Duration removeTimeout,
            Duration removeRetry) {
        this.ids = ids;
        this.seccompProfile = seccompProfile;
        this.tools = tools;
        this.image = image;
        this.layout = layout;
        this.limits = limits;
        this.clientEnv = Map.copyOf(clientEnv);
        this.removeTimeout = removeTimeout;
        this.removeRetry = removeRetry;
    }

    @Override
    public String name() {
        return tools.userSpaceKernel() ? Ladder.GVISOR : tools.engine().command();
    }

    @Override
    public IsolationTier tier() {
        return tools.userSpaceKernel() ? IsolationTier.GVISOR : IsolationTier.CONTAINER;
    }

    @Override
    public Set<String> limitsUnenforced() {
        // Under gVisor the pids cgroup must leave room for the runtime's own threads, so without a
        // lent uid (whose RLIMIT_NPROC binds) the configured process count holds only loosely.
        return tools.userSpaceKernel() && ids.isEmpty() ? Set.of("processCount") : Set.of();
    }

    @Override
    public boolean filtered() {
        return seccompProfile.isPresent();
    }

    @Override
    public Map<String, String> enforcement() {
        Map<String, String> m = new LinkedHashMap<>();
        if (tools.userSpaceKernel()) {
            m.put("cpuSeconds", "RLIMIT_CPU, set by prlimit and enforced by gVisor's kernel (SIGKILL at the limit), which "
                    + "charges its own work for the command's system calls to the command: a limit buys less work than on the "
                    + "container rung (a fork costs tens of ms here)");
            m.put("memoryBytes", "the container's memory cgroup (--memory, gVisor's own memory included), and RLIMIT_AS "
                    + "per process, enforced by gVisor's kernel");
            m.put("fileSizeBytes", "RLIMIT_FSIZE, set by prlimit and enforced by gVisor's kernel");
            m.put("processCount", ids.isPresent()
                    ? "RLIMIT_NPROC on a uid lent to this run alone (" + ids.get() + "), set by prlimit and enforced by "
                            + "gVisor's kernel; the pids cgroup (--pids-limit) is a backstop with room for gVisor's own host threads"
                    : "not enforced at the configured count: only the pids cgroup, which must leave room for gVisor's own "
                            + "host threads (this process is not root, so no uid of its own binds RLIMIT_NPROC)");
            return m;
        }
        m.put("cpuSeconds", "RLIMIT_CPU, set by prlimit inside the container (SIGKILL at the limit)");
        m.put("memoryBytes", "the container's memory cgroup (--memory), and RLIMIT_AS per process by prlimit");
        m.put("fileSizeBytes", "RLIMIT_FSIZE, set by prlimit inside the container");
        m.put("processCount", "the container's pids cgroup (--pids-limit)"
                + (ids.isPresent() ? ", and RLIMIT_NPROC on a uid lent to this run alone (" + ids.get() + ")" : ""));
        return m;
    }

    @Override
    public Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout) {
        Optional<SandboxIds.Lease> lease = ids.map(i -> i.acquireHandedOverOrThrow(binds.writeRoot(),
                BwrapRung.saturatedNanos(timeout)));
        String name = "toolyard-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        Process watchdog;
        List<String> argv;
        try {
            argv = ContainerCommand.run(tools, image, name, layout, limits, binds, env, command, timeout,
                    new ContainerCommand.Run(lease.map(SandboxIds.Lease::pair), seccompProfile));
            watchdog = startWatchdog(name);
        } catch (RuntimeException e) {
            lease.ifPresent(SandboxIds.Lease::close);
            throw e;
        }
        return new ContainerLaunch(argv, name, lease.orElse(null), null, Optional.of(watchdog));
    }

    /** Starts the watchdog of container {@code name}; its standard input is a pipe only this JVM writes. */
    private Process startWatchdog(String name) {
        ProcessBuilder pb = new ProcessBuilder(ContainerCommand.watchdog(tools, name))
                .directory(new java.io.File("/"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().clear();
        pb.environment().putAll(clientEnv);
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the watchdog that removes the container if this process dies", e);
        }
    }

    @Override
    public Optional<String> warmUnavailable() {
        // gVisor runs warm too (issue 26): the supervisor gives the wiped directories to the sandbox gid through its
        // effective gid (gVisor has no setfsgid), wipes /run (1777 under runsc), refuses System V IPC (gVisor cannot
        // list it), spends a sandbox whose packet counters moved (gVisor's /proc/net hides TIME_WAIT), and seals the
        // directories runsc makes 0777 above the roots' mount points in /tmp.
        if (tools.engine() != ContainerCommand.Engine.PODMAN) {
            return Optional.of("warm mode is built and tested for podman only; runs on " + name() + " are cold");
        }
        return ids.isPresent() ? Optional.empty() : Optional.of("warm mode needs this process to be root, so that "
                + "commands run as a sandbox uid and cannot reach their supervisor; runs are cold");
    }

    @Override
    public WarmLaunch prepareWarm(BindSet binds, Path supervisor, Duration timeout) {
        if (warmUnavailable().isPresent()) {
            throw new IllegalStateException(warmUnavailable().get());
        }
        SandboxIds.Lease lease = ids.get().acquireExclusiveOrThrow(BwrapRung.saturatedNanos(timeout));
        String name = "toolyard-warm-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        List<String> argv;
        try {
            argv = ContainerCommand.warmRun(tools, image, name, layout, limits, binds,
                    new ContainerCommand.Run(Optional.of(lease.pair()), seccompProfile), supervisor);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        return new ContainerLaunch(argv, name, lease, binds.writeRoot(), Optional.empty());
    }

    private final class ContainerLaunch implements WarmLaunch {
        private final List<String> argv;
        private final String name;
        /** The run's lease, or the warm sandbox's exclusive one; {@code null} when this process is not root. */
        private final SandboxIds.Lease lease;
        /** The warm sandbox's write root; {@code null} for a cold run. */
        private final Path writeRoot;
        /** A cold run's watchdog; a warm container ends when its supervisor's input closes. */
        private final Optional<Process> watchdog;
        private final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        private boolean removed; // guarded by this

        ContainerLaunch(List<String> argv, String name, SandboxIds.Lease lease, Path writeRoot, Optional<Process> watchdog) {
            this.argv = List.copyOf(argv);
            this.name = name;
            this.lease = lease;
            this.writeRoot = writeRoot;
            this.watchdog = watchdog;
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public Map<String, String> environment() {
            return clientEnv;
        }

        @Override
        public void killTree(Process client) {
            client.destroyForcibly();
            remove();
        }

        /**
         * The client has exited. Its container is gone when the client ended it ({@code --rm}) with the
         * command's own status; after a kill, or a status the engine gives its own failures (125 and
         * above, which is also what a command killed by a signal exits with), it is removed first, and
         * the uid is released only once that removal succeeded.
         */
        @Override
        public void close(Process client, boolean killed) {
            boolean sure = !killed && !client.isAlive() && client.exitValue() < ContainerCommand.ENGINE_FAILED;
            if (sure || remove()) {
                finish();
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "container " + name + " may outlive its run: its sandbox uid stays "
                    + "held until a removal succeeds (retried every " + removeRetry.toSeconds() + " s)");
            Thread retry = new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(removeRetry.toMillis());
                    } catch (InterruptedException e) {
                        return; // the lease stays held, and the watchdog armed, until the JVM ends
                    }
                    synchronized (this) {
                        removed = false;
                    }
                    if (remove()) {
                        finish();
                        return;
                    }
                }
            }, "toolyard-remove-" + name);
            retry.setDaemon(true);
            retry.start();
        }

        @Override
        public void abandon() {
            finish();
        }

        @Override
        public SandboxIds.Pair pair() {
            if (writeRoot == null) {
                throw new IllegalStateException("a cold run's lease is its own");
            }
            return lease.pair();
        }

        @Override
        public Optional<SandboxIds.Claim> claimWriteRoot(long waitNanos) throws IOException {
            if (writeRoot == null) {
                throw new IllegalStateException("a cold run's write root is its lease's");
            }
            return lease.claim(writeRoot, waitNanos);
        }

        /** The container is gone: disarms the watchdog and releases the lease, once. */
        private void finish() {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            watchdog.ifPresent(ContainerRung::disarm);
            if (lease != null) {
                lease.close();
            }
        }

        /** @return whether the container is gone: {@code rm -f} succeeded in time, now or before */
        private synchronized boolean remove() {
            if (removed) {
                return true;
            }
            List<String> rmArgv = new java.util.ArrayList<>();
            if (tools.setpriv().isPresent()) {
                // If this JVM dies mid-removal the watchdog takes over; an engine that hangs must not keep
                // this client alive after the JVM.
                rmArgv.addAll(List.of(tools.setpriv().get().toString(), "--pdeathsig=KILL", "--"));
            }
            rmArgv.addAll(ContainerCommand.remove(tools, name));
            ProcessBuilder pb = new ProcessBuilder(rmArgv)
                    .directory(new java.io.File("/"))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.PIPE);
            pb.environment().clear();
            pb.environment().putAll(clientEnv);
            try {
                Process rm = pb.start();
                rm.getOutputStream().close();
                if (!rm.waitFor(removeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    rm.destroyForcibly();
                    LOG.log(System.Logger.Level.WARNING, "removing container " + name + " timed out after "
                            + removeTimeout.toSeconds() + " s");
                    return false;
                }
                String said = new String(rm.getErrorStream().readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8);
                // Docker's rm -f fails on a container that is gone already; podman's succeeds.
                removed = rm.exitValue() == 0 || said.toLowerCase(java.util.Locale.ROOT).contains("no such container");
                if (!removed) {
                    LOG.log(System.Logger.Level.WARNING, "removing container " + name + " failed (exit " + rm.exitValue()
                            + "): " + said.strip());
                }
                return removed;
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not remove container " + name + ": " + e);
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.log(System.Logger.Level.WARNING, "interrupted while removing container " + name);
                return false;
            }
        }
    }

    /** Tells a watchdog its container is gone, and lets it go. */
    private static void disarm(Process watchdog) {
        try (java.io.OutputStream in = watchdog.getOutputStream()) {
            in.write(ContainerCommand.WATCHDOG_DONE);
        } catch (IOException e) {
            // it is gone already; its removal of a container that is gone does no harm
        }
    }
}
