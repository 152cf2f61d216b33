package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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

    /** @param clientEnv the environment of the engine's client */
    public ContainerRung(ContainerCommand.Tools tools, String image, HostLayout layout, ResourceLimits limits,
            Map<String, String> clientEnv) {
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
    public Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout) {
        String name = "toolyard-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        List<String> argv = ContainerCommand.run(tools, image, name, layout, limits, binds, env, command, timeout);
        return new ContainerLaunch(argv, name);
    }

    private final class ContainerLaunch implements Launch {
        private final List<String> argv;
        private final String name;
        private volatile boolean removed;

        ContainerLaunch(List<String> argv, String name) {
            this.argv = List.copyOf(argv);
            this.name = name;
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
        }

        @Override
        public void abandon() {
            // nothing was started
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
