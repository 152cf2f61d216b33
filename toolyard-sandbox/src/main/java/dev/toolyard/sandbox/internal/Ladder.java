package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.internal.Text;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Climbs down the isolation ladder once: podman, docker, bubblewrap, refuse. A rung is taken only
 * when its canary passes: the exact command line a real run builds (same flags, limits and binds,
 * through the same supervisor), around {@code /bin/true}, with a temporary workspace. What the probe
 * can see is narrowed through the injected {@code which}, never by changing the host. Stateless.
 */
public final class Ladder {
    /** The canary command. */
    public static final List<String> CANARY = List.of("/bin/true");
    private static final Duration CONTAINER_CANARY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BWRAP_CANARY_TIMEOUT = Duration.ofSeconds(30);
    private static final int CANARY_CAP = 4096;
    private static final int WHY_CHARS = 300;
    private static final Set<String> ALL_LIMITS = Collections.unmodifiableSet(
            new LinkedHashSet<>(List.of("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount")));

    private Ladder() {}

    /**
     * One rung visited.
     *
     * @param name {@code podman}, {@code docker} or {@code bwrap}
     * @param taken whether it is the rung runs use
     * @param why why it was taken or skipped
     */
    public record Step(String name, boolean taken, String why) {}

    /**
     * The outcome of the climb.
     *
     * @param rung the rung taken; empty when none was
     * @param canaryArgv the canary's command line on the rung taken; empty when none was
     */
    public record Climb(List<Step> steps, Optional<Rung> rung, List<String> canaryArgv) {
        /** Copies the lists. */
        public Climb {
            steps = List.copyOf(steps);
            canaryArgv = List.copyOf(canaryArgv);
        }

        /** @return the tier of the rung taken, or {@link IsolationTier#UNAVAILABLE} */
        public IsolationTier tier() {
            return rung.map(Rung::tier).orElse(IsolationTier.UNAVAILABLE);
        }

        /** @return the limits the rung taken cannot enforce; every limit when none was taken */
        public Set<String> limitsUnenforced() {
            return rung.map(Rung::limitsUnenforced).orElse(ALL_LIMITS);
        }
    }

    /**
     * What the host gives runs, found once by the sandbox before it climbs.
     *
     * @param root whether this process's effective uid is 0: runs then switch to a lent uid
     * @param ids the uids lent to runs when {@code root}
     * @param files the private files runs use (the {@code /etc} snapshot, the seccomp filter); empty
     *     when they could not be written, in which case {@code /etc} entries are bound one by one and
     *     no rung is filtered
     */
    public record Host(boolean root, SandboxIds ids, Optional<SandboxFiles> files) {
        Optional<SandboxIds> lent() {
            return root ? Optional.of(ids) : Optional.empty();
        }
    }

    /**
     * @param image the container image; {@code null} skips the container rung
     * @return the climb, with every rung in order: those below the rung taken are listed as not probed
     */
    public static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            Map<String, String> clientEnv, Host host) {
        HostLayout layout = HostLayout.inspect();
        List<Step> steps = new ArrayList<>();
        for (ContainerCommand.Engine engine : ContainerCommand.Engine.values()) {
            Attempt a = image == null
                    ? Attempt.skip("no container image configured (TieredSandbox.builder().containerImage(...))")
                    : container(engine, which, layout, limits, image, clientEnv, host);
            steps.add(new Step(engine.command(), a.rung != null, a.why));
            if (a.rung != null) {
                return finish(steps, a, engine.command());
            }
        }
        Attempt a = bwrap(which, layout, limits, host);
        steps.add(new Step("bwrap", a.rung != null, a.why));
        if (a.rung != null) {
            return finish(steps, a, "bwrap");
        }
        return new Climb(steps, Optional.empty(), List.of());
    }

    private static Climb finish(List<Step> steps, Attempt taken, String name) {
        List<String> order = List.of("podman", "docker", "bwrap");
        for (String lower : order.subList(order.indexOf(name) + 1, order.size())) {
            steps.add(new Step(lower, false, "not probed: " + name + " was taken"));
        }
        return new Climb(steps, Optional.of(taken.rung), taken.canaryArgv);
    }

    private static Attempt container(ContainerCommand.Engine engine, Function<String, Optional<Path>> which,
            HostLayout layout, ResourceLimits limits, String image, Map<String, String> clientEnv, Host host) {
        Optional<Path> client = find(which, engine.command());
        if (client.isEmpty()) {
            return Attempt.skip(engine.command() + " not found"
                    + (engine == ContainerCommand.Engine.PODMAN ? " (apt-get install podman runc)" : ""));
        }
        Optional<Path> env = find(which, "env");
        Optional<Path> prlimit = find(which, "prlimit");
        String missing = missingInside(layout, "env", env, "coreutils");
        if (missing == null) {
            missing = missingInside(layout, "prlimit", prlimit, "util-linux");
        }
        if (missing != null) {
            return Attempt.skip(missing);
        }
        Optional<Path> runtime = engine == ContainerCommand.Engine.PODMAN ? find(which, "runc") : Optional.empty();
        ContainerCommand.Tools tools = new ContainerCommand.Tools(engine, client.get(), runtime, env.get(), prlimit.get());
        Optional<Path> profile = host.files().flatMap(SandboxFiles::seccompProfile);
        ContainerRung rung = new ContainerRung(tools, image, layout, limits, clientEnv, host.lent(), profile);
        String detail = engine.command() + " at " + client.get() + ", image " + image
                + (runtime.map(r -> ", runtime " + r).orElse(engine == ContainerCommand.Engine.PODMAN ? ", engine's default runtime" : ""))
                + "; " + runsAs(host) + "; " + (profile.isPresent() ? "ToolYard's seccomp profile" : "the engine's default seccomp profile");
        return canary(rung, CONTAINER_CANARY_TIMEOUT, detail);
    }

    private static Attempt bwrap(Function<String, Optional<Path>> which, HostLayout layout, ResourceLimits limits, Host host) {
        Optional<Path> bwrap = find(which, "bwrap");
        if (bwrap.isEmpty()) {
            return Attempt.skip("bwrap not found (apt-get install bubblewrap)");
        }
        Optional<Path> dash = find(which, "dash");
        if (dash.isEmpty()) {
            return Attempt.skip("dash not found (apt-get install dash): the launcher relies on its ulimit");
        }
        Optional<Path> env = find(which, "env");
        String missing = missingInside(layout, "env", env, "coreutils");
        Optional<Path> setpriv = Optional.empty();
        if (missing == null && host.root()) {
            setpriv = find(which, "setpriv");
            missing = missingInside(layout, "setpriv", setpriv, "util-linux");
            if (missing != null) {
                missing += "; running as root, the command must switch to a sandbox uid, so the rung is not used";
            }
        }
        if (missing != null) {
            return Attempt.skip(missing);
        }
        Optional<Path> program = host.files().flatMap(SandboxFiles::seccompProgram);
        BwrapRung rung = new BwrapRung(new BwrapCommand.Tools(dash.get(), bwrap.get(), env.get(), setpriv), layout, limits,
                host.lent(), host.files().map(SandboxFiles::etcSnapshot), program);
        String detail = "bwrap at " + bwrap.get() + "; " + runsAs(host) + "; "
                + (program.isPresent() ? "ToolYard's seccomp filter" : "no seccomp filter");
        return canary(rung, BWRAP_CANARY_TIMEOUT, detail);
    }

    private static String runsAs(Host host) {
        return host.root() ? "commands run as " + host.ids() + ", one pair per run" : "commands keep this process's uid (not root)";
    }

    private static Attempt canary(Rung rung, Duration timeout, String detail) {
        if (Thread.currentThread().isInterrupted()) {
            return Attempt.skip(detail + "; not probed: the probing thread was interrupted");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("toolyard-canary-");
        } catch (IOException e) {
            return Attempt.skip("cannot create the canary's workspace: " + e);
        }
        try {
            BindSet binds = BindSet.of(SandboxPaths.of(dir.toRealPath()), rung.tier() == IsolationTier.CONTAINER);
            Launch launch = rung.prepare(CANARY, binds, Map.of(), timeout);
            List<String> argv = launch.argv();
            Supervisor.Outcome o = Supervisor.run(launch, timeout, CANARY_CAP);
            long ms = o.elapsed().toMillis();
            if (o.exitCode() == 0 && !o.killed()) {
                return new Attempt(rung, detail + "; canary /bin/true exited 0 in " + ms + " ms", argv);
            }
            String said = firstLines(o.stderr().text().isBlank() ? o.stdout().text() : o.stderr().text());
            return Attempt.skip(detail + "; canary failed: "
                    + (o.timedOut() ? "timed out after " + ms + " ms" : "exit " + o.exitCode())
                    + (said.isEmpty() ? "" : ": " + said));
        } catch (UncheckedIOException | IllegalArgumentException | IOException e) {
            return Attempt.skip(detail + "; canary could not run: " + e.getMessage());
        } finally {
            deleteTree(dir);
        }
    }

    private static String firstLines(String text) {
        return Text.clip(text.strip().replace('\n', ' '), WHY_CHARS);
    }

    /** @return why {@code name}, which runs inside the sandbox, cannot be used; {@code null} if it can */
    private static String missingInside(HostLayout layout, String name, Optional<Path> p, String pkg) {
        if (p.isEmpty()) {
            return name + " not found (apt-get install " + pkg + ")";
        }
        if (!layout.visibleInside(p.get())) {
            return name + " at " + p.get() + " lies outside the runtime the sandbox binds (/usr)";
        }
        return null;
    }

    private static Optional<Path> find(Function<String, Optional<Path>> which, String name) {
        Optional<Path> found = which.apply(name);
        return found == null ? Optional.empty() : found.filter(Path::isAbsolute);
    }

    /** @return whether this process's effective uid is 0 (the owner of {@code /proc/self}) */
    public static boolean runsAsRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | ClassCastException e) {
            return true; // assume the worst: root, where RLIMIT_NPROC holds nothing
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a canary leaves nothing; if it did, the temp directory keeps it
                }
            });
        } catch (IOException e) {
            // as above
        }
    }

    private record Attempt(Rung rung, String why, List<String> canaryArgv) {
        static Attempt skip(String why) {
            return new Attempt(null, why, List.of());
        }
    }
}
