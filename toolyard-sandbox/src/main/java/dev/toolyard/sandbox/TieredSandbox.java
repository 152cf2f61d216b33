package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import dev.toolyard.spi.IsolationUnavailableException;
import dev.toolyard.PathContainment;
import dev.toolyard.spi.PathDecision;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.sandbox.internal.BindSet;
import dev.toolyard.sandbox.internal.Ladder;
import dev.toolyard.sandbox.internal.SandboxFiles;
import dev.toolyard.sandbox.internal.SandboxIds;
import dev.toolyard.sandbox.internal.Supervisor;
import dev.toolyard.sandbox.internal.WarmBinary;
import dev.toolyard.sandbox.internal.WarmPool;
import dev.toolyard.sandbox.internal.Which;
import dev.toolyard.spi.ProxyRoute;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The {@link Sandbox} port with real isolation: the path half is {@link PathContainment}; commands run
 * on the highest rung of the ladder that works on this host: a container (podman, then docker), else
 * bubblewrap, else nothing, in which case every isolated run is refused and never run unisolated.
 *
 * <p>The ladder is probed once, on first use, and cached: each rung is proven by a canary, the exact
 * command line a real run builds, around {@code /bin/true}. {@link #report()} says what was found.
 * Every run gets the {@link ResourceLimits}; a limit the tier cannot enforce is named in
 * {@link IsolationReport#limitsUnenforced()} and in each {@link SubprocessResult}.
 *
 * <p>When this process is root, no process of a run is host uid 0: each run is lent a uid and gid of
 * its own ({@link Builder#sandboxUid(int)}), its write root is handed over to them before it starts,
 * and the command runs as them with no other group and no capability, so that what it creates is theirs
 * and {@code RLIMIT_NPROC} holds its process count. Both rungs load ToolYard's own seccomp filter.
 *
 * <p>An application may start the ladder at gVisor, above the container rung, or at bubblewrap
 * ({@link Builder#startAt(IsolationTier)}), never lower, and may refuse every rung below one it names
 * ({@link Builder#lowestTier(IsolationTier)}). {@link #survey()} probes every rung, for a person choosing one.
 *
 * <p>Warm mode ({@link Builder#warm(boolean)}, off by default) runs each command in a sandbox started
 * ahead of use for its workspace, with the same guarantees as a cold run, at about the cost of a bare
 * spawn; {@link #warmUp(SandboxPaths)} starts one in the background and {@link #close()} ends them
 * all. See docs/isolation.md.
 *
 * <p>Defaults: {@link ResourceLimits#defaults()}, the executables found on this process's
 * {@code PATH}, no container image (the container rung is skipped), the whole ladder (from the
 * container), output capped at 1 MiB per stream. Immutable after {@link Builder#build()}. Thread-safe: runs may proceed concurrently.
 */
public final class TieredSandbox implements Sandbox, AutoCloseable {
    /** Default cap on each of stdout and stderr, in bytes. */
    static final int DEFAULT_OUTPUT_CAP_BYTES = 1 << 20;
    /** The smallest output cap, so the truncation label always fits. */
    static final int MIN_OUTPUT_CAP_BYTES = 256;
    /** The largest output cap: both streams are held in memory. */
    static final int MAX_OUTPUT_CAP_BYTES = 64 << 20;

    /** The default first uid and gid runs are lent when this process is root; see {@link Builder#sandboxUid(int)}. */
    static final int DEFAULT_SANDBOX_UID = 0x7FFF_8000;
    /**
     * How many times {@link #survey()} runs each rung's canary; the time it reports is their median. Public,
     * unlike the defaults of the builder's settings ({@link #settings()}): it is a fixed fact of the survey,
     * not a setting, and the CLI's doctor states it in its help text, which needs a constant.
     */
    public static final int SURVEY_CANARY_RUNS = Ladder.SURVEY_RUNS;
    /** The default number of uid and gid pairs, which is how many runs may be under way at once. */
    static final int DEFAULT_SANDBOX_ID_COUNT = 64;
    /** The default number of idle warm sandboxes kept per workspace. */
    static final int DEFAULT_WARM_PER_WORKSPACE = 1;
    /** The default cap on warm sandboxes alive at once, over all workspaces. */
    static final int DEFAULT_WARM_MAX_TOTAL = 8;
    /** The default time an idle warm sandbox is kept. */
    static final Duration DEFAULT_WARM_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** How many warm {@code /bin/true} runs {@link #survey()} times on each rung that can run warm. */
    static final int SURVEY_WARM_RUNS = 5;
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,255}");
    private static final Pattern IMAGE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,254}");
    /** A plain name (no slash, not a dot-dot), or an absolute path without {@code ..} segments. */
    private static final Pattern RUNTIME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,127}|(/(?!\\.\\.?(/|$))[A-Za-z0-9._+-]+)+");

    private final PathContainment paths = new PathContainment();
    private final ResourceLimits limits;
    private final String containerImage;
    private final int outputCapBytes;
    private final IsolationTier startAt;
    private final WarmMode warm;
    private final LadderProbe ladder;
    private final Settings settings;
    private final Object relayLock = new Object();
    private Path relay; // guarded by relayLock
    private final Object probeLock = new Object();
    private volatile LadderProbe.Probed probed;

    private TieredSandbox(Builder b) {
        this.limits = b.limits;
        this.containerImage = b.containerImage;
        this.outputCapBytes = b.outputCapBytes;
        this.startAt = b.startAt;
        this.warm = new WarmMode(b.warm, b.warmPerWorkspace, b.warmIdleTimeout, b.warmMaxTotal);
        this.settings = new Settings(b.outputCapBytes, b.sandboxUid, b.sandboxGid, b.sandboxIdCount, b.warm,
                b.warmPerWorkspace, b.warmMaxTotal, b.warmIdleTimeout, MIN_OUTPUT_CAP_BYTES, MAX_OUTPUT_CAP_BYTES,
                SURVEY_WARM_RUNS);
        this.ladder = new LadderProbe(new LadderProbe.Settings(b.which, b.limits, b.containerImage, b.ociRuntime,
                new SandboxIds(b.sandboxUid, b.sandboxGid, b.sandboxIdCount), b.root, b.startAt, b.lowestTier), warm);
    }

    /**
     * What a sandbox was built with: the configured value of each numeric setting, or its default, and the
     * bounds its builder accepts. A read-only view, as {@code ToolExecutor.limits()} is: the defaults are
     * read from a sandbox built without setting them, not from constants.
     *
     * @param outputCapBytes cap on each of stdout and stderr; default 1 MiB
     * @param sandboxUid the first uid runs are lent when this process is root; default {@code 0x7FFF8000}
     * @param sandboxGid the first gid; default {@code 0x7FFF8000}
     * @param sandboxIdCount uid and gid pairs, so how many runs may be under way at once; default 64
     * @param warm whether runs are warm; default {@code false}
     * @param warmPerWorkspace idle warm sandboxes kept per workspace; default 1
     * @param warmMaxTotal warm sandboxes alive at once over all workspaces; default 8
     * @param warmIdleTimeout how long an idle warm sandbox is kept; default 60 s
     * @param minOutputCapBytes the smallest output cap, so the truncation label always fits: 256
     * @param maxOutputCapBytes the largest output cap (both streams are held in memory): 64 MiB
     * @param surveyWarmRuns warm {@code /bin/true} runs {@link TieredSandbox#survey()} times on each rung that runs warm: 5
     */
    public record Settings(int outputCapBytes, int sandboxUid, int sandboxGid, int sandboxIdCount, boolean warm,
            int warmPerWorkspace, int warmMaxTotal, Duration warmIdleTimeout, int minOutputCapBytes,
            int maxOutputCapBytes, int surveyWarmRuns) {
        /**
         * Checks nothing: a sandbox builds it from values its builder already checked.
         *
         * @param outputCapBytes cap on each output stream
         * @param sandboxUid the first uid
         * @param sandboxGid the first gid
         * @param sandboxIdCount uid and gid pairs
         * @param warm whether runs are warm
         * @param warmPerWorkspace idle warm sandboxes per workspace
         * @param warmMaxTotal warm sandboxes alive at once
         * @param warmIdleTimeout idle warm sandbox lifetime
         * @param minOutputCapBytes the smallest output cap
         * @param maxOutputCapBytes the largest output cap
         * @param surveyWarmRuns warm runs a survey times per rung
         */
        public Settings {}
    }

    /** @return the settings this sandbox was built with, defaults included; never {@code null} */
    public Settings settings() {
        return settings;
    }

    /** @return a builder with the defaults; never {@code null} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default "which": searches this process's {@code PATH} (or a standard one when it has none)
     * for an executable regular file, never the working directory. Narrow it to force a lower rung:
     * {@code name -> name.equals("podman") ? Optional.empty() : TieredSandbox.searchPath().apply(name)}.
     *
     * @return the search; thread-safe; never {@code null}
     */
    public static Function<String, Optional<Path>> searchPath() {
        return Which.processPath();
    }

    /**
     * Probes the ladder on first call (blocking other callers until it is done) and returns the cached
     * report afterwards. A probe cut short by an interruption of the calling thread is not cached.
     *
     * @return the report; never {@code null}
     */
    public IsolationReport report() {
        return probe().report();
    }

    /** @return {@code report().tier()}; never {@code null} */
    @Override
    public IsolationTier isolationTier() {
        return report().tier();
    }

    /** @return the limits every run gets; never {@code null} */
    public ResourceLimits limits() {
        return limits;
    }

    @Override
    public PathDecision resolveRead(String candidate, SandboxPaths workspace) {
        return paths.resolveRead(candidate, workspace);
    }

    @Override
    public PathDecision resolveWrite(String candidate, SandboxPaths workspace) {
        return paths.resolveWrite(candidate, workspace);
    }

    /**
     * Runs {@code argv} on the tier of {@link #report()}. The command sees the write root read-write and
     * the read roots read-only at their own (real) paths, the write root as its working directory,
     * the host's runtime read-only, a private {@code /tmp}, no network and exactly the environment
     * given. Its standard input is empty. At the deadline, or at the first byte past the output cap
     * of either stream, the whole process tree is killed; the result says which. The call returns
     * once everything the run started is gone. If the calling thread is interrupted, the run is
     * killed, the result says {@code timedOut}, and the interrupt flag is set again.
     *
     * @param argv the command and its arguments: at least one item, none {@code null} or containing NUL
     * @param workspace the roots to bind: the write root an existing directory, the read roots existing,
     *     none of them {@code /} or in {@code /proc}, {@code /sys} or {@code /dev}, the write root not in
     *     a system directory ({@code /usr}, {@code /etc}, {@code /boot}, {@code /bin}, {@code /lib}...)
     * @param timeout the deadline; positive
     * @param env the command's whole environment; {@code null} means empty, never the parent's; names
     *     match {@code [A-Za-z_][A-Za-z0-9_]*}, values contain no NUL
     * @return how the run ended; never {@code null}
     * @throws IsolationUnavailableException if {@link #isolationTier()} is {@link IsolationTier#UNAVAILABLE}
     * @throws IllegalArgumentException if argv is empty or has a {@code null} or NUL-bearing item
     * @throws IllegalArgumentException if the timeout is not positive
     * @throws IllegalArgumentException if an environment name or value is invalid
     * @throws IllegalArgumentException if a root is missing or would expose the host, as listed above,
     *     or, on the container rung, holds a comma, a quote or a control character, or (this process
     *     being root) the write root is owned by a user other than root or a sandbox uid
     * @throws NullPointerException if argv, workspace or timeout is {@code null}
     * @throws UncheckedIOException if the sandbox cannot be started (the host changed since the probe),
     *     or no sandbox uid was released within {@code timeout} ({@code sandboxIdCount} runs under way),
     *     or, in warm mode, the warm sandbox's supervisor ended after it had started the command (the
     *     command is not run again)
     */
    @Override
    public SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout, Map<String, String> env) {
        List<String> command = checkedArgv(argv);
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        Map<String, String> environment = checkedEnv(env);
        LadderProbe.Probed p = probe();
        if (p.rung() == null) {
            throw new IsolationUnavailableException(unavailable(p.report()));
        }
        BindSet binds = BindSet.of(workspace, p.rung().tier().containerized());
        // When no warm sandbox can be had, the command runs cold, isolated as ever.
        Supervisor.Outcome o = warm.run(p.rung(), ladder::files, binds, command, environment, timeout, outputCapBytes)
                .orElseGet(() -> Supervisor.run(p.rung().prepare(command, binds, environment, timeout), timeout, outputCapBytes));
        return new SubprocessResult(o.exitCode(), o.stdout().text(), o.stderr().text(), p.rung().tier(),
                o.timedOut(), o.outputTruncated(), p.report().limitsUnenforced(), o.elapsed());
    }

    /**
     * Network for commands is available when this build carries the relay ({@code toolyard-relay},
     * compiled with gcc and the static C library when the module is built), the sandbox's private
     * directory could be written, and a rung passed its canary.
     *
     * @return why a run cannot have network here; empty when it can
     */
    @Override
    public Optional<String> proxyRouteUnavailable() {
        Optional<String> relayMissing = WarmBinary.relayMissing();
        if (relayMissing.isPresent()) {
            return relayMissing;
        }
        if (ladder.files().isEmpty()) {
            return Optional.of("the sandbox's private directory could not be written, so there is nowhere private"
                    + " for the proxy's socket");
        }
        LadderProbe.Probed p = probe();
        return p.rung() == null ? Optional.of(unavailable(p.report())) : Optional.empty();
    }

    /**
     * As {@link #runIsolated(List, SandboxPaths, Duration, Map)}, with network through {@code route}: the
     * sandbox keeps its own network namespace with loopback only; a new private directory ({@code 0711},
     * inside this sandbox's own {@code 0700} one) holds the route's unix socket and is bound read-only at
     * {@code /toolyard-net}; the relay ({@code /toolyard-relay}) listens on {@code 127.0.0.1:}
     * {@link ProxyRoute#loopbackPort()} and only then starts the command, as its child, and forwards each
     * connection to the socket. The route stops listening, and the directory is removed, once everything
     * the run started is gone. In warm mode such a run takes a warm sandbox of its workspace started with
     * network (the relay and a socket directory of its own bound read-only; never one a run without
     * network uses), whose route listens on a socket named afresh for this call, removed before this
     * returns; a sandbox whose command left any socket in its network namespace is not used again. On
     * gVisor, and when no such sandbox can be had, the run is cold. See docs/isolation.md.
     *
     * @param route where the relay's connections go; never {@code null}
     * @throws IsolationUnavailableException if {@link #proxyRouteUnavailable()} is not empty
     * @throws UncheckedIOException if the private directory or the route's socket cannot be created
     * @throws IllegalArgumentException as {@link #runIsolated(List, SandboxPaths, Duration, Map)}
     */
    @Override
    public SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
            Map<String, String> env, ProxyRoute route) {
        Objects.requireNonNull(route, "route");
        List<String> command = checkedArgv(argv);
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        int port = route.loopbackPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("route.loopbackPort() must be 1-65535, got " + port);
        }
        Map<String, String> environment = checkedEnv(env);
        Optional<String> why = proxyRouteUnavailable();
        if (why.isPresent()) {
            throw new IsolationUnavailableException("network for commands is unavailable: " + why.get());
        }
        LadderProbe.Probed p = probe();
        Path privateDir = ladder.files().orElseThrow().directory();
        BindSet plain = BindSet.of(workspace, p.rung().tier().containerized());
        Path netDir = null;
        try {
            Path relay = relay(privateDir);
            if (warm.asked()) {
                // A warm sandbox with network of its own (see docs/isolation.md); cold when none can be had.
                Optional<Supervisor.Outcome> w = warm.run(p.rung(), ladder::files, plain, command, environment, timeout,
                        outputCapBytes, new WarmPool.Routed(new WarmPool.NetworkFiles(relay, privateDir), route));
                if (w.isPresent()) {
                    Supervisor.Outcome o = w.get();
                    return new SubprocessResult(o.exitCode(), o.stdout().text(), o.stderr().text(), p.rung().tier(),
                            o.timedOut(), o.outputTruncated(), p.report().limitsUnenforced(), o.elapsed());
                }
            }
            netDir = Files.createTempDirectory(privateDir, "net-");
            Files.setPosixFilePermissions(netDir, PosixFilePermissions.fromString("rwx--x--x"));
            List<String> relayed = new ArrayList<>(command.size() + 4);
            relayed.add(BindSet.RELAY);
            relayed.add(Integer.toString(port));
            relayed.add(BindSet.NETWORK_DIR + "/" + BindSet.SOCKET_NAME);
            relayed.add("--");
            relayed.addAll(command);
            BindSet binds = plain.withNetwork(new BindSet.Network(relay, netDir));
            Supervisor.Outcome o;
            try (Closeable listener = route.listen(netDir.resolve(BindSet.SOCKET_NAME))) {
                o = Supervisor.run(p.rung().prepare(relayed, binds, environment, timeout), timeout, outputCapBytes);
            }
            return new SubprocessResult(o.exitCode(), o.stdout().text(), o.stderr().text(), p.rung().tier(),
                    o.timedOut(), o.outputTruncated(), p.report().limitsUnenforced(), o.elapsed());
        } catch (IOException e) {
            throw new UncheckedIOException("could not set up the command's network", e);
        } finally {
            if (netDir != null) {
                try {
                    Files.deleteIfExists(netDir.resolve(BindSet.SOCKET_NAME));
                    Files.deleteIfExists(netDir);
                } catch (IOException e) {
                    System.getLogger(TieredSandbox.class.getName()).log(System.Logger.Level.DEBUG,
                            "could not remove " + netDir, e);
                }
            }
        }
    }

    private Path relay(Path privateDir) throws IOException {
        synchronized (relayLock) {
            if (relay == null) {
                relay = WarmBinary.installRelay(privateDir).path().orElseThrow(
                        () -> new IsolationUnavailableException("network for commands is unavailable: "
                                + WarmBinary.relayMissing().orElse("no relay")));
            }
            return relay;
        }
    }

    /**
     * Probes every rung from {@link Builder#startAt(IsolationTier)} down, for a person choosing one
     * ({@code toolyard doctor}): each rung's canary runs {@value #SURVEY_CANARY_RUNS} times, even below
     * the rung taken, and each rung that passed reports the median and every run's time, what enforces
     * each limit and whether the seccomp filter is loaded. The rung marked taken is the one the ladder's
     * rule picks from what the survey saw (the first whose every run passed), which is the rung
     * {@link #report()} takes unless the host changes in between. Each canary run has a timeout (20 s
     * in a container, 10 s under bubblewrap) and is abandoned 5 s after it if it has not been stopped by
     * then, so an engine that hangs costs at most 25 s. Not cached, and it leaves the sandbox's own probe
     * alone: runs still use {@link #report()}'s rung. Blocks for the whole survey: about
     * {@value #SURVEY_CANARY_RUNS} times each rung's canary.
     *
     * @return a fresh report; never {@code null}
     */
    public IsolationReport survey() {
        return ladder.probe(true).report();
    }

    /**
     * Starts warm sandboxes for {@code workspace} in the background, so that its first command finds
     * one ready: as many as {@link Builder#warmPerWorkspace(int)}, within {@link Builder#warmMaxTotal(int)}.
     * Does nothing when warm mode is off or unavailable (see {@link IsolationReport#warmMode()}), or
     * after {@link #close()}. Probes the ladder if it has not been probed.
     *
     * @param workspace the roots, as {@link #runIsolated} takes them
     * @throws IllegalArgumentException as {@link #runIsolated} for a root that is missing or would
     *     expose the host
     * @throws NullPointerException if {@code workspace} is {@code null}
     */
    public void warmUp(SandboxPaths workspace) {
        Objects.requireNonNull(workspace, "workspace");
        if (!warm.asked()) {
            return;
        }
        LadderProbe.Probed p = probe();
        if (p.rung() == null) {
            return;
        }
        BindSet binds = BindSet.of(workspace, p.rung().tier().containerized());
        warm.pool(p.rung(), ladder::files).ifPresent(pool -> pool.warmUp(binds));
    }

    /**
     * Ends every warm sandbox and stops the pool: idle ones at once, one running a command with it
     * (that run then throws {@link UncheckedIOException}); returns once each has ended and given back
     * its sandbox uid. Later runs are cold. Nothing of the pool outlives the JVM either way: each
     * supervisor ends its sandbox when the JVM's end of its input closes. Idempotent; does nothing when
     * warm mode is off.
     */
    @Override
    public void close() {
        warm.close();
    }

    /** For tests: the private directory this sandbox's runs use (shared by every sandbox of this JVM); empty when it could not be written. */
    Optional<Path> privateDirectory() {
        return ladder.files().map(SandboxFiles::directory);
    }

    /** For tests: the commands a warm sandbox answered so far; 0 when warm mode is off or unused. */
    long warmRunsServed() {
        return warm.served();
    }

    /** For tests: the pool's counts, {@code [live, idle, starts, discarded]}; all 0 when there is no pool. */
    long[] warmCounts() {
        return warm.counts();
    }

    private LadderProbe.Probed probe() {
        LadderProbe.Probed p = probed;
        if (p != null) {
            return p;
        }
        synchronized (probeLock) {
            if (probed == null) {
                LadderProbe.Probed fresh = ladder.probe(false);
                if (Thread.currentThread().isInterrupted()) {
                    // An interruption stops a canary early: this answer holds for this call only.
                    return fresh;
                }
                probed = fresh;
            }
            return probed;
        }
    }

    private static String unavailable(IsolationReport report) {
        StringBuilder b = new StringBuilder("no isolation tier is available on this host, so nothing is run:");
        for (IsolationReport.Rung r : report.rungs()) {
            b.append(' ').append(r.name()).append(": ").append(r.why()).append(';');
        }
        b.setLength(b.length() - 1);
        return b.toString();
    }

    private static List<String> checkedArgv(List<String> argv) {
        Objects.requireNonNull(argv, "argv");
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("argv must have at least one item, got none");
        }
        List<String> copy = new ArrayList<>(argv.size());
        for (int i = 0; i < argv.size(); i++) {
            String item = argv.get(i);
            if (item == null) {
                throw new IllegalArgumentException("argv[" + i + "] must not be null");
            }
            if (item.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argv[" + i + "] must not contain NUL");
            }
            copy.add(item);
        }
        return List.copyOf(copy);
    }

    private static Map<String, String> checkedEnv(Map<String, String> env) {
        if (env == null) {
            return Map.of();
        }
        Map<String, String> copy = new TreeMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (name == null || !ENV_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "env names must match [A-Za-z_][A-Za-z0-9_]* (at most 256 characters), got " + name);
            }
            if (value == null || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("env value of " + name + " must be non-null and contain no NUL");
            }
            copy.put(name, value);
        }
        return Map.copyOf(copy);
    }

    @Override
    public String toString() {
        LadderProbe.Probed p = probed;
        return "TieredSandbox[" + (p == null ? "not probed yet" : p.report().tier().wireName()) + ", from "
                + startAt.wireName() + ", " + limits
                + ", image " + (containerImage == null ? "none" : containerImage) + "]";
    }

    /** Builds a {@link TieredSandbox}. Not thread-safe. */
    public static final class Builder {
        private ResourceLimits limits = ResourceLimits.defaults();
        private Function<String, Optional<Path>> which = Which.processPath();
        private String containerImage;
        private String ociRuntime = Ladder.DEFAULT_OCI_RUNTIME;
        private int outputCapBytes = DEFAULT_OUTPUT_CAP_BYTES;
        private int sandboxUid = DEFAULT_SANDBOX_UID;
        private int sandboxGid = DEFAULT_SANDBOX_UID;
        private int sandboxIdCount = DEFAULT_SANDBOX_ID_COUNT;
        private BooleanSupplier root = Ladder::runsAsRoot;
        private IsolationTier startAt = IsolationTier.CONTAINER;
        private IsolationTier lowestTier = IsolationTier.BWRAP;
        private boolean warm;
        private int warmPerWorkspace = DEFAULT_WARM_PER_WORKSPACE;
        private int warmMaxTotal = DEFAULT_WARM_MAX_TOTAL;
        private Duration warmIdleTimeout = DEFAULT_WARM_IDLE_TIMEOUT;

        private Builder() {}

        /**
         * Warm mode: commands run in sandboxes started ahead of use, one workspace each, whose
         * supervisor starts each command in a fresh session with the same isolation, limits, output
         * cap and deadline as a cold run, and before the next command kills everything the last one
         * left and wipes what it wrote outside the write root. A sandbox that misbehaves (a command
         * timed out, passed the output cap, died of a signal or left a process behind, or the
         * supervisor died) is discarded, never reused; when no warm sandbox can be had, the command
         * runs cold. Needs this process to be root, and on the container rung podman; otherwise runs
         * are cold and {@link IsolationReport#warmMode()} says why. See docs/isolation.md.
         *
         * @param on whether to run warm; default {@code false}: every run is cold
         * @return this builder
         */
        public Builder warm(boolean on) {
            this.warm = on;
            return this;
        }

        /**
         * @param count idle warm sandboxes kept per workspace; default 1
         * @return this builder
         */
        public Builder warmPerWorkspace(int count) {
            this.warmPerWorkspace = count;
            return this;
        }

        /**
         * @param count warm sandboxes alive at once, over all workspaces, idle or busy; each holds a
         *     sandbox uid while it lives; default 8
         * @return this builder
         */
        public Builder warmMaxTotal(int count) {
            this.warmMaxTotal = count;
            return this;
        }

        /**
         * @param idle how long an idle warm sandbox is kept before it is ended; default 60 s
         * @return this builder
         * @throws NullPointerException if {@code idle} is {@code null}
         */
        public Builder warmIdleTimeout(Duration idle) {
            this.warmIdleTimeout = Objects.requireNonNull(idle, "warmIdleTimeout");
            return this;
        }

        /**
         * Where the ladder starts. {@link IsolationTier#CONTAINER}, the default, climbs the ladder most
         * applications want: container (podman, then docker), then bubblewrap, then refuse.
         * {@link IsolationTier#GVISOR} adds the gVisor rung above it: podman with gVisor's {@code runsc},
         * whose user-space kernel answers the command's system calls (it costs far more per command and
         * per system call: {@code toolyard doctor} shows it). {@link IsolationTier#BWRAP} skips the
         * container rung, whatever image is given; the report then says of podman and docker "the
         * application started the ladder at bubblewrap". Nothing starts below bubblewrap: below it is
         * only refusal, and nothing ever runs unisolated.
         *
         * @param tier {@link IsolationTier#GVISOR}, {@link IsolationTier#CONTAINER} or
         *     {@link IsolationTier#BWRAP}; default {@link IsolationTier#CONTAINER}
         * @return this builder
         * @throws NullPointerException if {@code tier} is {@code null}
         */
        public Builder startAt(IsolationTier tier) {
            this.startAt = Objects.requireNonNull(tier, "startAt");
            return this;
        }

        /**
         * The lowest rung runs may use: every rung below it is refused, so that, for instance,
         * {@code startAt(GVISOR).lowestTier(GVISOR)} is "gVisor or nothing" and a host without a
         * working {@code runsc} refuses every isolated run instead of running it in a weaker sandbox.
         *
         * @param tier {@link IsolationTier#GVISOR}, {@link IsolationTier#CONTAINER} or
         *     {@link IsolationTier#BWRAP}, at or below {@link #startAt(IsolationTier)}; default
         *     {@link IsolationTier#BWRAP}: the whole ladder from where it starts
         * @return this builder
         * @throws NullPointerException if {@code tier} is {@code null}
         */
        public Builder lowestTier(IsolationTier tier) {
            this.lowestTier = Objects.requireNonNull(tier, "lowestTier");
            return this;
        }

        /**
         * The first of the host uids commands run as when this process is root: run {@code i} of those
         * under way at once runs as {@code sandboxUid + i} (at most {@code sandboxIdCount} apart), so
         * that each run's process count ({@code RLIMIT_NPROC}, which counts a uid's processes across
         * the whole host) is its own. Files a command creates in the write root are owned by that uid.
         * Give ids no user or login has: the default block, {@code 0x7FFF8000} (2147450880) and the 63
         * after it, lies just below 2<sup>31</sup>, above systemd's container, dynamic-user-namespace
         * and foreign ranges. When this process is not root, commands keep its uid and this is unused.
         *
         * @param uid the first uid; default 2147450880 ({@code 0x7FFF8000})
         * @return this builder
         */
        public Builder sandboxUid(int uid) {
            this.sandboxUid = uid;
            return this;
        }

        /**
         * @param gid the first gid, used as {@link #sandboxUid(int)} is; default 2147450880 ({@code 0x7FFF8000})
         * @return this builder
         */
        public Builder sandboxGid(int gid) {
            this.sandboxGid = gid;
            return this;
        }

        /**
         * @param count how many uid and gid pairs to lend, which is how many runs may be under way at
         *     once (a further run waits, within its timeout, for one to end); default
         *     64
         * @return this builder
         */
        public Builder sandboxIdCount(int count) {
            this.sandboxIdCount = count;
            return this;
        }

        /** For tests: what the probe takes this process's effective uid to be (root or not). */
        Builder runsAsRoot(BooleanSupplier root) {
            this.root = Objects.requireNonNull(root, "root");
            return this;
        }

        /**
         * @param limits the limits of every run; default {@link ResourceLimits#defaults()}
         * @return this builder
         * @throws NullPointerException if {@code limits} is {@code null}
         */
        public Builder limits(ResourceLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param which finds an executable by name ({@code podman}, {@code docker}, {@code runc},
         *     {@code prlimit}, {@code bwrap}, {@code dash}, {@code setpriv}, {@code env}) as an absolute
         *     path; what it does not return, the probe does not see. Default {@link #searchPath()}
         * @return this builder
         * @throws NullPointerException if {@code which} is {@code null}
         */
        public Builder which(Function<String, Optional<Path>> which) {
            this.which = Objects.requireNonNull(which, "which");
            return this;
        }

        /**
         * @param image a local image for the container rung, never pulled: a skeleton over which the
         *     host's runtime is bound read-only (see docs/isolation.md); default none, which skips the
         *     container rung; {@code null} means none
         * @return this builder
         */
        public Builder containerImage(String image) {
            this.containerImage = image;
            return this;
        }

        /**
         * The OCI runtime podman runs the container rung's containers with ({@code podman --runtime}).
         * It is always named, never left to the engine: podman's default is crun where crun is
         * installed, and crun cannot start a container on a hybrid cgroup layout. A runtime that
         * cannot start containers fails the rung's canary, so the ladder moves on and the report says
         * why. Docker uses its daemon's runtime.
         *
         * @param runtime a name looked up with {@link #which(Function)}, or an absolute path; default
         *     {@code runc}
         * @return this builder
         * @throws NullPointerException if {@code runtime} is {@code null}
         * @throws IllegalArgumentException if {@code runtime} is neither a plain name nor an absolute path
         */
        public Builder containerRuntime(String runtime) {
            Objects.requireNonNull(runtime, "containerRuntime");
            if (!RUNTIME.matcher(runtime).matches()) {
                throw new IllegalArgumentException("containerRuntime must be a plain executable name or an absolute path "
                        + "of letters, digits and ._/+-, got \"" + runtime + "\"");
            }
            this.ociRuntime = runtime;
            return this;
        }

        /**
         * @param bytes the cap on each of stdout and stderr; default 1 MiB
         * @return this builder
         */
        public Builder outputCapBytes(int bytes) {
            this.outputCapBytes = bytes;
            return this;
        }

        /**
         * @return the sandbox; it probes on first use, not here
         * @throws IllegalArgumentException if {@code startAt} or {@code lowestTier} is not a rung
         *     (gVisor, container or bubblewrap), or {@code lowestTier} is above {@code startAt}
         * @throws IllegalArgumentException if {@code containerImage} is not an image reference (it must
         *     start with a letter or digit and hold only letters, digits and {@code ._/:@+-})
         * @throws IllegalArgumentException if {@code outputCapBytes} is outside
         *     256..67108864 (64 MiB)
         * @throws IllegalArgumentException if {@code sandboxIdCount} is below 1, or {@code sandboxUid}
         *     or {@code sandboxGid} is below 1, or their block of {@code sandboxIdCount} ids reaches
         *     2<sup>31</sup> or holds 65534 (nobody), or a uid of the block is a user's in
         *     {@code /etc/passwd} or delegated in {@code /etc/subuid}, or a gid of it a group's in
         *     {@code /etc/group} or delegated in {@code /etc/subgid}
         */
        public TieredSandbox build() {
            if (!Ladder.isRung(lowestTier)) {
                throw new IllegalArgumentException("lowestTier must be GVISOR, CONTAINER or BWRAP, got " + lowestTier
                        + ": below bubblewrap the ladder only refuses, and nothing ever runs unisolated");
            }
            if (Ladder.isRung(startAt) && lowestTier.ordinal() < startAt.ordinal()) {
                throw new IllegalArgumentException("lowestTier (" + lowestTier + ") is above startAt (" + startAt
                        + "), so no rung could ever be taken: start the ladder at " + lowestTier + " or higher");
            }
            if (!Ladder.isRung(startAt)) {
                throw new IllegalArgumentException("startAt must be GVISOR, CONTAINER or BWRAP, got " + startAt + ": below bubblewrap "
                        + "the ladder only refuses, and nothing ever runs unisolated");
            }
            if (sandboxIdCount < 1) {
                throw new IllegalArgumentException("sandboxIdCount must be at least 1, got " + sandboxIdCount);
            }
            IdBlockCheck.checkIds("sandboxUid", sandboxUid, sandboxIdCount, IdBlockCheck.lines(Path.of("/etc/passwd")));
            IdBlockCheck.checkIds("sandboxGid", sandboxGid, sandboxIdCount, IdBlockCheck.lines(Path.of("/etc/group")));
            IdBlockCheck.checkSubordinateIds("sandboxUid", sandboxUid, sandboxIdCount, IdBlockCheck.lines(Path.of("/etc/subuid")));
            IdBlockCheck.checkSubordinateIds("sandboxGid", sandboxGid, sandboxIdCount, IdBlockCheck.lines(Path.of("/etc/subgid")));
            if (containerImage != null && !IMAGE.matcher(containerImage).matches()) {
                throw new IllegalArgumentException("containerImage must be an image reference starting with a letter or "
                        + "digit and holding only letters, digits and ._/:@+-, got \"" + containerImage + "\"");
            }
            if (outputCapBytes < MIN_OUTPUT_CAP_BYTES || outputCapBytes > MAX_OUTPUT_CAP_BYTES) {
                throw new IllegalArgumentException("outputCapBytes must be between " + MIN_OUTPUT_CAP_BYTES + " and "
                        + MAX_OUTPUT_CAP_BYTES + ", got " + outputCapBytes);
            }
            if (warmPerWorkspace < 1) {
                throw new IllegalArgumentException("warmPerWorkspace must be at least 1, got " + warmPerWorkspace);
            }
            if (warmMaxTotal < warmPerWorkspace || warmMaxTotal >= sandboxIdCount) {
                throw new IllegalArgumentException("warmMaxTotal must be at least warmPerWorkspace (" + warmPerWorkspace
                        + ") and below sandboxIdCount (" + sandboxIdCount + "), since each warm sandbox holds a sandbox uid, got "
                        + warmMaxTotal);
            }
            if (warmIdleTimeout.isNegative() || warmIdleTimeout.isZero()) {
                throw new IllegalArgumentException("warmIdleTimeout must be positive, got " + warmIdleTimeout);
            }
            return new TieredSandbox(this);
        }
    }
}
