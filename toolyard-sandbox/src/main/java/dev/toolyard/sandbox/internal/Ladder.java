package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.Text;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Climbs down the isolation ladder: podman, docker, bubblewrap, refuse. A rung is taken only when its
 * canary passes: the exact command line a real run builds (same flags, limits and binds, through the
 * same supervisor), around {@code /bin/true}, with a temporary workspace. What the probe can see is
 * narrowed through the injected {@code which}, never by changing the host; where the climb starts is
 * the application's choice ({@code startAt}), never below bubblewrap. Each canary run is bounded: the
 * supervisor's timeout, and behind it a deadline after which the run is abandoned, so a hanging engine
 * cannot hold the probe. Stateless.
 */
public final class Ladder {
    /** The canary command. */
    public static final List<String> CANARY = List.of("/bin/true");
    /**
     * The gVisor rung's canary: it forks a child as well, because gVisor's runtime threads count in
     * the container's pids cgroup, and a single exec passed where a second process could not start.
     */
    public static final List<String> FORKING_CANARY = List.of("/bin/sh", "-c", "/bin/true & wait $!");
    /** The gVisor rung's name in reports. */
    public static final String GVISOR = "gvisor";
    /** How many times a survey runs each rung's canary; its time is the median. */
    public static final int SURVEY_RUNS = 5;
    private static final Duration CONTAINER_CANARY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BWRAP_CANARY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SURVEY_CONTAINER_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SURVEY_BWRAP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration GRACE = Duration.ofSeconds(5);
    /** The OCI runtime podman is told to use unless the application names another. */
    public static final String DEFAULT_OCI_RUNTIME = "runc";
    private static final int CANARY_CAP = 4096;
    private static final int WHY_CHARS = 300;
    /** Every rung, highest first; gVisor is visited only when the ladder starts there. */
    private static final List<String> ORDER = List.of(GVISOR, "podman", "docker", "bwrap");
    private static final Set<String> ALL_LIMITS = Collections.unmodifiableSet(
            new LinkedHashSet<>(List.of("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount")));

    private Ladder() {}

    /**
     * One rung visited.
     *
     * @param name {@code podman}, {@code docker} or {@code bwrap}
     * @param taken whether it is the rung runs use
     * @param why why it was taken or skipped
     * @param canaryTimes the time of each canary run, in order, when every run passed; empty otherwise
     * @param canaryArgv the canary's command line, when the canary ran (passed or not); empty otherwise
     * @param rung the rung, when its canary passed
     */
    public record Step(String name, boolean taken, String why, List<Duration> canaryTimes, List<String> canaryArgv,
            Optional<Rung> rung) {
        /** Copies the lists. */
        public Step {
            canaryTimes = List.copyOf(canaryTimes);
            canaryArgv = List.copyOf(canaryArgv);
        }

        static Step notProbed(String name, String why) {
            return new Step(name, false, why, List.of(), List.of(), Optional.empty());
        }
    }

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
     * What a climb is for.
     *
     * @param everyRung whether rungs below the one taken are probed too (a survey) or left unprobed (the
     *     ladder runs use)
     * @param runs how many times each probed rung's canary runs; all must pass
     * @param containerTimeout the timeout of one container canary run
     * @param bwrapTimeout the timeout of one bubblewrap canary run
     * @param grace how long past its timeout a canary run may take to be stopped and tidied before it
     *     is abandoned
     */
    record Mode(boolean everyRung, int runs, Duration containerTimeout, Duration bwrapTimeout, Duration grace) {
        static final Mode LADDER = new Mode(false, 1, CONTAINER_CANARY_TIMEOUT, BWRAP_CANARY_TIMEOUT, GRACE);
        static final Mode SURVEY = new Mode(true, SURVEY_RUNS, SURVEY_CONTAINER_TIMEOUT, SURVEY_BWRAP_TIMEOUT, GRACE);
    }

    /**
     * The ladder runs use: from {@code start} down, each rung's canary once, until one passes; the
     * rungs below it are listed as not probed.
     *
     * @param image the container image; {@code null} skips the container rung
     * @param start {@link IsolationTier#CONTAINER} for the whole ladder, {@link IsolationTier#BWRAP} to
     *     skip the container rung
     * @return the climb, with every rung in order
     * @throws IllegalArgumentException if {@code start} is {@link IsolationTier#UNAVAILABLE}
     */
    public static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            Map<String, String> clientEnv, Host host, IsolationTier start) {
        return climb(which, limits, image, DEFAULT_OCI_RUNTIME, clientEnv, host, start, Mode.LADDER);
    }

    /**
     * As {@link #climb(Function, ResourceLimits, String, Map, Host, IsolationTier)}, with the OCI
     * runtime podman is told to use.
     *
     * @param ociRuntime a name {@code which} looks up, or an absolute path
     */
    public static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            String ociRuntime, Map<String, String> clientEnv, Host host, IsolationTier start) {
        return climb(which, limits, image, ociRuntime, clientEnv, host, start, IsolationTier.BWRAP, Mode.LADDER);
    }

    /**
     * As {@link #climb(Function, ResourceLimits, String, String, Map, Host, IsolationTier)}, refusing
     * every rung below {@code lowest}.
     *
     * @throws IllegalArgumentException if {@code lowest} is above {@code start}, or either is not a rung
     */
    public static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            String ociRuntime, Map<String, String> clientEnv, Host host, IsolationTier start, IsolationTier lowest) {
        return climb(which, limits, image, ociRuntime, clientEnv, host, start, lowest, Mode.LADDER);
    }

    /**
     * A survey, for a person choosing a rung: from {@code start} down, every rung's canary is run
     * {@value #SURVEY_RUNS} times (with shorter timeouts than the ladder's: 20 s for a container run,
     * 10 s for bubblewrap), and the rung taken is the one the ladder's rule picks from what was seen:
     * the first whose every run passed. Rungs that passed below it say so.
     *
     * @return the climb, with every rung in order
     * @throws IllegalArgumentException if {@code start} is {@link IsolationTier#UNAVAILABLE}
     */
    public static Climb survey(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            String ociRuntime, Map<String, String> clientEnv, Host host, IsolationTier start) {
        return survey(which, limits, image, ociRuntime, clientEnv, host, start, IsolationTier.BWRAP);
    }

    /** As {@link #survey(Function, ResourceLimits, String, String, Map, Host, IsolationTier)}, below {@code lowest} refusing. */
    public static Climb survey(Function<String, Optional<Path>> which, ResourceLimits limits, String image,
            String ociRuntime, Map<String, String> clientEnv, Host host, IsolationTier start, IsolationTier lowest) {
        return climb(which, limits, image, ociRuntime, clientEnv, host, start, lowest, Mode.SURVEY);
    }

    static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image, String ociRuntime,
            Map<String, String> clientEnv, Host host, IsolationTier start, Mode mode) {
        return climb(which, limits, image, ociRuntime, clientEnv, host, start, IsolationTier.BWRAP, mode);
    }

    /** @return whether {@code tier} is a rung of the ladder: gVisor, container or bubblewrap */
    public static boolean isRung(IsolationTier tier) {
        return tier == IsolationTier.GVISOR || tier == IsolationTier.CONTAINER || tier == IsolationTier.BWRAP;
    }

    static Climb climb(Function<String, Optional<Path>> which, ResourceLimits limits, String image, String ociRuntime,
            Map<String, String> clientEnv, Host host, IsolationTier start, IsolationTier lowest, Mode mode) {
        if (!isRung(start)) {
            throw new IllegalArgumentException("the ladder starts at gvisor, container or bwrap, never below bubblewrap, got "
                    + start.wireName());
        }
        if (!isRung(lowest) || lowest.ordinal() < start.ordinal()) {
            throw new IllegalArgumentException("the lowest tier must be a rung at or below where the ladder starts ("
                    + start.wireName() + "), got " + lowest.wireName());
        }
        HostLayout layout = HostLayout.inspect();
        List<Step> steps = new ArrayList<>();
        Step taken = null;
        for (String name : ORDER) {
            IsolationTier tier = name.equals(GVISOR) ? IsolationTier.GVISOR
                    : name.equals("bwrap") ? IsolationTier.BWRAP : IsolationTier.CONTAINER;
            if (tier == IsolationTier.GVISOR && start != IsolationTier.GVISOR) {
                continue; // an opt-in rung: the ladder and its report are the three rungs unless started here
            }
            boolean container = tier == IsolationTier.CONTAINER;
            Step step;
            if (taken != null && !mode.everyRung()) {
                step = Step.notProbed(name, "not probed: " + taken.name() + " was taken");
            } else if (tier.ordinal() < start.ordinal()) {
                step = Step.notProbed(name, "the application started the ladder at bubblewrap");
            } else if (tier.ordinal() > lowest.ordinal()) {
                step = Step.notProbed(name, "below the lowest tier the application accepts (" + lowest.wireName()
                        + "): runs are refused rather than run there");
            } else if (tier == IsolationTier.GVISOR) {
                step = image == null
                        ? Step.notProbed(name, "no container image configured (TieredSandbox.builder().containerImage(...))")
                        : gvisor(which, layout, limits, image, clientEnv, host, mode);
            } else if (container) {
                ContainerCommand.Engine engine = name.equals("podman") ? ContainerCommand.Engine.PODMAN : ContainerCommand.Engine.DOCKER;
                step = image == null
                        ? Step.notProbed(name, "no container image configured (TieredSandbox.builder().containerImage(...))")
                        : container(engine, which, layout, limits, image, ociRuntime, clientEnv, host, mode);
            } else {
                step = bwrap(which, layout, limits, host, mode);
            }
            if (step.rung().isPresent()) {
                if (taken == null) {
                    step = new Step(step.name(), true, step.why(), step.canaryTimes(), step.canaryArgv(), step.rung());
                    taken = step;
                } else {
                    step = new Step(step.name(), false, step.why() + "; not taken: " + taken.name() + " is higher on the ladder",
                            step.canaryTimes(), step.canaryArgv(), step.rung());
                }
            }
            steps.add(step);
        }
        return taken == null
                ? new Climb(steps, Optional.empty(), List.of())
                : new Climb(steps, taken.rung(), taken.canaryArgv());
    }

    /** The gVisor rung: podman with {@code runsc} as the OCI runtime, the container rung's flags, a forking canary. */
    private static Step gvisor(Function<String, Optional<Path>> which, HostLayout layout, ResourceLimits limits, String image,
            Map<String, String> clientEnv, Host host, Mode mode) {
        Optional<Path> client = find(which, "podman");
        if (client.isEmpty()) {
            return Step.notProbed(GVISOR, "podman not found (apt-get install podman runsc): gVisor runs through podman");
        }
        Optional<Path> runsc = find(which, "runsc");
        if (runsc.isEmpty()) {
            return Step.notProbed(GVISOR, "runsc not found (apt-get install runsc)");
        }
        Optional<Path> env = find(which, "env");
        Optional<Path> prlimit = find(which, "prlimit");
        String missing = missingEnvOrPrlimit(layout, env, prlimit);
        if (missing != null) {
            return Step.notProbed(GVISOR, missing);
        }
        Optional<Path> shell = find(which, "sh");
        if (shell.isEmpty()) {
            return Step.notProbed(GVISOR, "sh not found: each run's watchdog, which removes the container if this "
                    + "process dies, is a shell script");
        }
        ContainerCommand.Tools tools = new ContainerCommand.Tools(ContainerCommand.Engine.PODMAN, client.get(), runsc, true,
                env.get(), prlimit.get(), shell.get(), find(which, "setpriv"));
        Optional<Path> profile = host.files().flatMap(SandboxFiles::gvisorSeccompProfile);
        ContainerRung rung = new ContainerRung(tools, image, layout, limits, clientEnv, host.lent(), profile);
        String detail = "podman at " + client.get() + ", image " + image + ", OCI runtime " + runsc.get() + " ("
                + runtimeVersion(runsc.get()) + ", " + String.join(", ", ContainerCommand.GVISOR_RUNTIME_FLAGS) + "); " + runsAs(host) + "; "
                + (profile.isPresent() ? "ToolYard's seccomp profile, applied by gVisor's kernel (clone3 left to gVisor, which answers ENOSYS)" : "no seccomp profile");
        return canary(rung, mode.containerTimeout(), mode, detail);
    }

    /** @return the first line {@code runsc --version} prints, or why there is none; bounded */
    static String runtimeVersion(Path runsc) {
        try {
            Process p = new ProcessBuilder(runsc.toString(), "--version").redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "version unknown: runsc --version did not answer in 10 s";
            }
            String first = new String(p.getInputStream().readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8)
                    .lines().findFirst().orElse("").strip();
            return first.isEmpty() ? "version unknown" : Text.clip(first, 120);
        } catch (IOException e) {
            return "version unknown: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "version unknown: interrupted";
        }
    }

    private static Step container(ContainerCommand.Engine engine, Function<String, Optional<Path>> which,
            HostLayout layout, ResourceLimits limits, String image, String ociRuntime, Map<String, String> clientEnv,
            Host host, Mode mode) {
        String name = engine.command();
        Optional<Path> client = find(which, name);
        if (client.isEmpty()) {
            return Step.notProbed(name, name + " not found"
                    + (engine == ContainerCommand.Engine.PODMAN ? " (apt-get install podman runc)" : ""));
        }
        Optional<Path> env = find(which, "env");
        Optional<Path> prlimit = find(which, "prlimit");
        String missing = missingEnvOrPrlimit(layout, env, prlimit);
        if (missing != null) {
            return Step.notProbed(name, missing);
        }
        Optional<Path> runtime = Optional.empty();
        if (engine == ContainerCommand.Engine.PODMAN) {
            // Named, never the engine's default: podman picks crun where it is installed, and crun
            // cannot start a container on a hybrid cgroup layout.
            runtime = ociRuntime.startsWith("/") ? Optional.of(Path.of(ociRuntime)).filter(Files::isExecutable)
                    : find(which, ociRuntime);
            if (runtime.isEmpty()) {
                return Step.notProbed(name, "OCI runtime " + ociRuntime + " not found"
                        + (ociRuntime.equals(DEFAULT_OCI_RUNTIME) ? " (apt-get install runc)" : "")
                        + ": the container rung names the runtime podman uses, never the engine's default");
            }
        }
        Optional<Path> shell = find(which, "sh");
        if (shell.isEmpty()) {
            return Step.notProbed(name, "sh not found: each run's watchdog, which removes the container if this "
                    + "process dies, is a shell script");
        }
        ContainerCommand.Tools tools = new ContainerCommand.Tools(engine, client.get(), runtime, env.get(), prlimit.get(),
                shell.get(), find(which, "setpriv"));
        Optional<Path> profile = host.files().flatMap(SandboxFiles::seccompProfile);
        ContainerRung rung = new ContainerRung(tools, image, layout, limits, clientEnv, host.lent(), profile);
        String detail = name + " at " + client.get() + ", image " + image
                + runtime.map(r -> ", OCI runtime " + r).orElse(", the daemon's own OCI runtime")
                + "; " + runsAs(host) + "; " + (profile.isPresent() ? "ToolYard's seccomp profile" : "the engine's default seccomp profile");
        return canary(rung, mode.containerTimeout(), mode, detail);
    }

    private static Step bwrap(Function<String, Optional<Path>> which, HostLayout layout, ResourceLimits limits, Host host,
            Mode mode) {
        Optional<Path> bwrap = find(which, "bwrap");
        if (bwrap.isEmpty()) {
            return Step.notProbed("bwrap", "bwrap not found (apt-get install bubblewrap)");
        }
        Optional<Path> dash = find(which, "dash");
        if (dash.isEmpty()) {
            return Step.notProbed("bwrap", "dash not found (apt-get install dash): the launcher relies on its ulimit");
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
            return Step.notProbed("bwrap", missing);
        }
        Optional<Path> program = host.files().flatMap(SandboxFiles::seccompProgram);
        Optional<Path> coldHelper = Optional.empty();
        String inside = "";
        if (host.root()) {
            ColdHelper helper = coldHelper(host);
            coldHelper = helper.path();
            inside = "; " + helper.detail();
        }
        BwrapRung rung = new BwrapRung(new BwrapCommand.Tools(dash.get(), bwrap.get(), env.get(), setpriv, coldHelper), layout,
                limits, host.lent(), host.files().map(SandboxFiles::etcSnapshot), program);
        String detail = "bwrap at " + bwrap.get() + "; " + runsAs(host) + inside + "; "
                + (program.isPresent() ? "ToolYard's seccomp filter" : "no seccomp filter");
        return canary(rung, mode.bwrapTimeout(), mode, detail);
    }

    /** {@code toolyard-warm} for the cold bubblewrap line, and what the report says of the line's inside. */
    private record ColdHelper(Optional<Path> path, String detail) {}

    /**
     * Writes {@code toolyard-warm} into the sandbox's private files, for {@code --exec-once} in place of
     * {@code setpriv} and {@code env -i}; without it (a build without gcc, no private files) the rung
     * runs those two, which keep every guarantee at one exec more.
     */
    private static ColdHelper coldHelper(Host host) {
        String fallback = "setpriv and env -i between bubblewrap and the command, two execs";
        if (host.files().isEmpty()) {
            return new ColdHelper(Optional.empty(), fallback + " (the sandbox's private files could not be written)");
        }
        try {
            WarmBinary.Result bin = WarmBinary.install(host.files().get().directory());
            return bin.path().isPresent()
                    ? new ColdHelper(bin.path(), "toolyard-warm --exec-once between bubblewrap and the command, one exec")
                    : new ColdHelper(Optional.empty(), fallback + " (" + WarmBinary.helperMissing() + ")");
        } catch (IOException e) {
            return new ColdHelper(Optional.empty(), fallback + " (toolyard-warm could not be written: " + e + ")");
        }
    }

    private static String runsAs(Host host) {
        return host.root() ? "commands run as " + host.ids() + ", one pair per run" : "commands keep this process's uid (not root)";
    }

    /** Runs the canary {@code runs} times, stopping at the first run that does not pass. */
    private static Step canary(Rung rung, Duration timeout, Mode mode, String detail) {
        int runs = mode.runs();
        List<Duration> times = new ArrayList<>(runs);
        List<String> argv = List.of();
        for (int i = 1; i <= runs; i++) {
            Run run = boundedRun(rung, timeout, mode.grace());
            argv = run.argv();
            String which = runs == 1 ? "" : " (run " + i + " of " + runs + ")";
            if (run.problem() != null) {
                return new Step(rung.name(), false, detail + "; " + run.problem() + which, List.of(), argv, Optional.empty());
            }
            times.add(run.elapsed());
        }
        String what = rung.tier() == IsolationTier.GVISOR ? "canary /bin/true, forked from /bin/sh," : "canary /bin/true";
        String passed = runs == 1
                ? what + " exited 0 in " + times.get(0).toMillis() + " ms"
                : what + " exited 0 on each of " + runs + " runs, median " + median(times).toMillis() + " ms";
        return new Step(rung.name(), false, detail + "; " + passed, times, argv, Optional.of(rung));
    }

    /** @return the median of a non-empty list: the middle one, or the mean of the middle two */
    private static Duration median(List<Duration> times) {
        List<Duration> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
    }

    /**
     * One canary run on a thread of its own, waited for until its timeout plus {@code grace}: past that
     * (an engine that hangs even while its run is being removed) the run is interrupted, which makes the
     * supervisor kill it, and abandoned. An interruption of the probing thread stops the run the same way.
     */
    private static Run boundedRun(Rung rung, Duration timeout, Duration grace) {
        if (Thread.currentThread().isInterrupted()) {
            return Run.failed(List.of(), "not probed: the probing thread was interrupted");
        }
        AtomicReference<List<String>> argv = new AtomicReference<>(List.of());
        FutureTask<Run> task = new FutureTask<>(() -> canaryRun(rung, timeout, argv));
        Thread t = new Thread(task, "toolyard-canary-" + rung.name());
        t.setDaemon(true);
        t.start();
        Duration deadline = timeout.plus(grace);
        try {
            return task.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            stop(task, t, grace);
            return Run.failed(argv.get(), "canary abandoned: no answer within " + deadline.toSeconds()
                    + " s (the engine hangs?)");
        } catch (InterruptedException e) {
            stop(task, t, grace);
            Thread.currentThread().interrupt();
            return Run.failed(argv.get(), "not probed: the probing thread was interrupted");
        } catch (ExecutionException e) {
            // canaryRun turns what the host can cause into a Run: anything else is a bug, and stays one
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Interrupts a canary run and gives it a moment to kill and tidy what it started. */
    private static void stop(FutureTask<Run> task, Thread t, Duration grace) {
        task.cancel(true);
        try {
            t.join(grace.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Run canaryRun(Rung rung, Duration timeout, AtomicReference<List<String>> argvSeen) {
        Path dir;
        try {
            dir = Files.createTempDirectory("toolyard-canary-");
        } catch (IOException e) {
            return Run.failed(List.of(), "cannot create the canary's workspace: " + e);
        }
        List<String> argv = List.of();
        try {
            BindSet binds = BindSet.of(SandboxPaths.of(dir.toRealPath()), rung.tier().containerized());
            Launch launch = rung.prepare(canaryOf(rung), binds, Map.of(), timeout);
            argv = launch.argv();
            argvSeen.set(argv);
            Supervisor.Outcome o = Supervisor.run(launch, timeout, CANARY_CAP);
            long ms = o.elapsed().toMillis();
            if (o.exitCode() == 0 && !o.killed()) {
                return new Run(argv, o.elapsed(), null);
            }
            String said = firstLines(o.stderr().text().isBlank() ? o.stdout().text() : o.stderr().text());
            return Run.failed(argv, "canary failed: "
                    + (o.timedOut() ? "timed out after " + ms + " ms" : "exit " + o.exitCode())
                    + (said.isEmpty() ? "" : ": " + said));
        } catch (UncheckedIOException | IllegalArgumentException | IOException e) {
            return Run.failed(argv, "canary could not run: " + e.getMessage());
        } finally {
            deleteTree(dir);
        }
    }

    /** @return the canary command of {@code rung} */
    public static List<String> canaryOf(Rung rung) {
        return rung.tier() == IsolationTier.GVISOR ? FORKING_CANARY : CANARY;
    }

    /** One canary run: its command line, and its time if it passed or else what went wrong. */
    private record Run(List<String> argv, Duration elapsed, String problem) {
        static Run failed(List<String> argv, String problem) {
            return new Run(argv, Duration.ZERO, problem);
        }
    }

    private static String firstLines(String text) {
        return Text.clip(text.strip().replace('\n', ' '), WHY_CHARS);
    }

    /** @return why a container run's {@code env} or {@code prlimit} cannot be used inside it; {@code null} if both can */
    private static String missingEnvOrPrlimit(HostLayout layout, Optional<Path> env, Optional<Path> prlimit) {
        String missing = missingInside(layout, "env", env, "coreutils");
        return missing != null ? missing : missingInside(layout, "prlimit", prlimit, "util-linux");
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
}
