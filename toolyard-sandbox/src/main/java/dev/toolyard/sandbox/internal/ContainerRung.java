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
 * own timeout is a backstop behind that. Immutable. Thread-safe.
 */
public final class ContainerRung implements Rung {
    private static final System.Logger LOG = System.getLogger(ContainerRung.class.getName());
    private static final long REMOVE_TIMEOUT_SECONDS = 60;

    private final ContainerCommand.Tools tools;
    private final String image;
    private final HostLayout layout;
    private final ResourceLimits limits;
    private final Map<String, String> clientEnv;
    private final Optional<SandboxIds> ids;
    private final Optional<Path> seccompProfile;

    /**
     * @param clientEnv the environment of the engine's client
     * @param ids the uids to lend, one per run, when this process is root; empty when it is not
     * @param seccompProfile the seccomp profile to load; empty for the engine's default
     */
    public ContainerRung(ContainerCommand.Tools tools, String image, HostLayout layout, ResourceLimits limits,
            Map<String, String> clientEnv, Optional<SandboxIds> ids, Optional<Path> seccompProfile) {
        this.ids = ids;
        this.seccompProfile = seccompProfile;
        this.tools = tools;
        this.image = image;
        this.layout = layout;
        this.limits = limits;
        this.clientEnv = Map.copyOf(clientEnv);
    }

    @Override
    public String name() {
        return tools.engine().command();
    }

    @Override
    public IsolationTier tier() {
        return IsolationTier.CONTAINER;
    }

    @Override
    public Set<String> limitsUnenforced() {
        return Set.of();
    }

    @Override
    public boolean filtered() {
        return seccompProfile.isPresent();
    }

    @Override
    public Map<String, String> enforcement() {
        Map<String, String> m = new LinkedHashMap<>();
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
        List<String> argv = ContainerCommand.run(tools, image, name, layout, limits, binds, env, command, timeout,
                new ContainerCommand.Run(lease, seccompProfile));
        return new ContainerLaunch(argv, name, lease.orElse(null), binds.writeRoot(), null);
    }

    @Override
    public Optional<String> warmUnavailable() {
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
        SandboxIds.Exclusive lease = BwrapRung.exclusive(ids.get(), binds, timeout);
        String name = "toolyard-warm-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        try {
            List<String> argv = ContainerCommand.warmRun(tools, image, name, layout, limits, binds,
                    new ContainerCommand.Run(Optional.of(lease.lease()), seccompProfile), supervisor);
            return new ContainerLaunch(argv, name, null, binds.writeRoot(), lease);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
    }

    /** A run's or a warm sandbox's container: a cold run shares its lease by tree, a warm sandbox's is its own. */
    private final class ContainerLaunch implements WarmLaunch {
        private final List<String> argv;
        private final String name;
        private final SandboxIds.Lease lease;
        private final Path writeRoot;
        private final SandboxIds.Exclusive exclusive;
        private volatile boolean removed;

        ContainerLaunch(List<String> argv, String name, SandboxIds.Lease lease, Path writeRoot, SandboxIds.Exclusive exclusive) {
            this.argv = List.copyOf(argv);
            this.name = name;
            this.lease = lease;
            this.writeRoot = writeRoot;
            this.exclusive = exclusive;
        }

        private void release() {
            if (exclusive != null) {
                exclusive.close();
            } else if (lease != null) {
                ids.get().release(writeRoot, lease);
            }
        }

        @Override
        public SandboxIds.Lease lease() {
            if (exclusive == null) {
                throw new IllegalStateException("a cold run's container");
            }
            return exclusive.lease();
        }

        @Override
        public void beginCommand() throws IOException {
            lease();
            exclusive.beginCommand();
        }

        @Override
        public void endCommand() {
            lease();
            exclusive.endCommand();
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

        @Override
        public void close(Process client, boolean killed) {
            if (killed && !removed) {
                remove();
            }
            release(); // the container, and every process of the run in it, is gone
        }

        @Override
        public void abandon() {
            release();
        }

        private synchronized void remove() {
            if (removed) {
                return;
            }
            removed = true;
            ProcessBuilder pb = new ProcessBuilder(ContainerCommand.remove(tools, name))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().clear();
            pb.environment().putAll(clientEnv);
            try {
                Process rm = pb.start();
                if (!rm.waitFor(REMOVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    rm.destroyForcibly();
                    LOG.log(System.Logger.Level.WARNING, "removing container " + name + " timed out; the engine's timeout will stop it");
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not remove container " + name + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.log(System.Logger.Level.WARNING, "interrupted while removing container " + name);
            }
        }
    }
}
