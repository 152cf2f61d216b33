package dev.toolyard.benchmarks;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The sandbox rows: {@code TieredSandbox.runIsolated(["/bin/true"])} on the bubblewrap rung (podman
 * and docker hidden from the probe), beside
 *
 * <ul>
 *   <li>the very command line the library builds, spawned through a bare {@link ProcessBuilder}
 *       ({@link #bareBubblewrapProcess}): what the library adds around it (argument checks, the bind
 *       set, the uid lease and the write root's hand-over, the supervisor's reader threads and
 *       deadline) must stay within 5% of it;</li>
 *   <li>a minimal hardened bubblewrap line ({@link #minimalHardenedBwrap}, the issue's:
 *       {@code --unshare-all --cap-drop ALL --die-with-parent --new-session --ro-bind /usr /usr}, the
 *       {@code /bin} {@code /lib} {@code /lib64} links, {@code --proc /proc --dev /dev --tmpfs /tmp
 *       --clearenv}): the whole of ToolYard's launch (launcher, seccomp filter, uid switch, the
 *       {@code /etc} snapshot, read-only {@code /proc/sys}, the workspace, {@code env -i}) must cost
 *       at most 1.3 times that;</li>
 *   <li>a bare {@code /bin/true} (report), which the warm rows are held to: the same call on a warm
 *       sandbox ({@code warm(true)}) at most 2 times it on the bubblewrap rung
 *       ({@link #runIsolatedBubblewrapWarm}) and 3 times on the container rung
 *       ({@link #runIsolatedContainerWarm}), and on the gVisor rung ({@link #runIsolatedGvisorWarm},
 *       the same target);</li>
 *   <li>twenty short commands in one workspace ({@link SandboxRungs#MIX}), warm against cold, on each
 *       rung (report). The sandboxes of these rows are states of {@link SandboxRungs}, which prove in
 *       their set-up and tear-down that every measured run was warm.</li>
 * </ul>
 *
 * <p><b>The same command line.</b> The library proves its rung with a canary, which is "the exact
 * command line a real run builds" around {@code /bin/true} in a temporary workspace; the report keeps
 * it ({@link IsolationReport#canaryCommand()}). The bare baseline is that command line with the
 * canary's workspace replaced by this benchmark's (as root it runs the command as the canary's lent
 * uid, which runs one after another get back first).
 *
 * <p>Every baseline spawns as the supervisor does (working directory {@code /}, standard input from
 * {@code /dev/null}, an empty environment, output on pipes), from a {@link ProcessBuilder} built
 * once, and waits for the exit; they read no output ({@code /bin/true} writes none).
 *
 * <p>Sample mode (each call timed), in milliseconds: a call costs milliseconds, so time-boxed
 * iterations of 2 s give hundreds to thousands of samples each. About 12 s per cold method (3 x 1 s
 * warm-up, 4 x 2 s); the warm methods run 2 x 1 s and 5 x 1 s, the report-only 20-command ones 1 x 1 s
 * and 3 x 1 s. Needs bubblewrap: {@link #main} is the preflight {@code run.sh} uses to leave this
 * class out, loudly, where the rung is unavailable (and to fail instead under {@code CI=true}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 2)
public class SandboxBenchmark {
    static final List<String> TRUE = List.of("/bin/true");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final File ROOT = new File("/");
    private static final File DEV_NULL = new File("/dev/null");

    private Path root;
    private SandboxPaths workspace;
    private TieredSandbox sandbox;
    private ProcessBuilder bwrapArgv;
    private ProcessBuilder minimalBwrap;
    private ProcessBuilder bareTrue;

    /** What the probe is shown: everything on {@code PATH} but the container engines. */
    static Function<String, Optional<Path>> bubblewrapOnly() {
        Function<String, Optional<Path>> path = TieredSandbox.searchPath();
        return name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : path.apply(name);
    }

    static TieredSandbox sandbox() {
        return TieredSandbox.builder().which(bubblewrapOnly()).build();
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        root = Workspace.create();
        workspace = SandboxPaths.of(root);
        sandbox = sandbox();
        IsolationReport report = sandbox.report();
        if (report.tier() != IsolationTier.BWRAP) {
            throw new IllegalStateException("SandboxBenchmark needs the bubblewrap rung (apt-get install bubblewrap), "
                    + "but the probe found:\n" + report.describe());
        }
        // Measure nothing that does not do its job; the first run also hands the workspace over.
        SubprocessResult r = runIsolatedBubblewrap();
        if (r.exitCode() != 0 || r.timedOut() || r.tier() != IsolationTier.BWRAP) {
            throw new IllegalStateException("runIsolated([/bin/true]) did not succeed on the bubblewrap rung: " + r);
        }
        List<String> argv = forWorkspace(report.canaryCommand(), workspace.realWriteRoot().toString());
        List<String> minimal = minimalHardenedLine(bwrapOf(argv));
        System.err.println("SandboxBenchmark: the bare baseline's command line: " + String.join(" ", argv));
        System.err.println("SandboxBenchmark: the minimal hardened line: " + String.join(" ", minimal));
        bwrapArgv = builder(argv);
        minimalBwrap = builder(minimal);
        bareTrue = builder(TRUE);
        for (ProcessBuilder b : List.of(bwrapArgv, minimalBwrap, bareTrue)) {
            int code = run(b);
            if (code != 0) {
                throw new IllegalStateException(String.join(" ", b.command()) + " exited " + code);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Workspace.delete(root);
    }

    /**
     * The canary's command line for another workspace: the canary's write root (the argument of
     * {@code --bind}, bound read-write at its own path) replaced by {@code writeRoot} wherever it appears.
     */
    static List<String> forWorkspace(List<String> canary, String writeRoot) {
        int bind = canary.indexOf("--bind");
        if (bind < 0 || bind + 2 >= canary.size() || !canary.get(canary.size() - 1).equals("/bin/true")) {
            throw new IllegalStateException("not a bubblewrap canary command line: " + canary);
        }
        String canaryRoot = canary.get(bind + 1);
        List<String> argv = new ArrayList<>(canary.size());
        for (String a : canary) {
            argv.add(a.equals(canaryRoot) ? writeRoot : a);
        }
        return List.copyOf(argv);
    }

    /** @return the bubblewrap the library's command line runs */
    static String bwrapOf(List<String> argv) {
        return argv.stream().filter(a -> Path.of(a).getFileName() != null && Path.of(a).getFileName().toString().equals("bwrap"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no bwrap in " + argv));
    }

    /**
     * The minimal hardened line, with this host's {@code /bin}, {@code /lib} and {@code /lib64}
     * recreated as the links they are (left out where the host has none).
     */
    static List<String> minimalHardenedLine(String bwrap) throws IOException {
        List<String> a = new ArrayList<>(List.of(bwrap, "--unshare-all", "--cap-drop", "ALL", "--die-with-parent",
                "--new-session", "--ro-bind", "/usr", "/usr"));
        for (String top : List.of("/bin", "/lib", "/lib64")) {
            Path p = Path.of(top);
            if (Files.isSymbolicLink(p)) {
                a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), top));
            }
        }
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--clearenv"));
        a.addAll(TRUE);
        return List.copyOf(a);
    }

    private static ProcessBuilder builder(List<String> argv) {
        ProcessBuilder b = new ProcessBuilder(argv).directory(ROOT).redirectInput(ProcessBuilder.Redirect.from(DEV_NULL));
        b.environment().clear();
        return b;
    }

    private static int run(ProcessBuilder b) throws IOException, InterruptedException {
        Process p = b.start();
        int code = p.waitFor();
        p.getInputStream().close();
        p.getErrorStream().close();
        return code;
    }

    /** The figure: the library's whole run, from argument checks to the supervisor's tidy-up. */
    @Benchmark
    public SubprocessResult runIsolatedBubblewrap() {
        return sandbox.runIsolated(TRUE, workspace, TIMEOUT, null);
    }

    /** Baseline: the same command line, spawned bare. */
    @Benchmark
    public int bareBubblewrapProcess() throws Exception {
        return run(bwrapArgv);
    }

    /** Baseline: the minimal hardened bubblewrap line, spawned bare. */
    @Benchmark
    public int minimalHardenedBwrap() throws Exception {
        return run(minimalBwrap);
    }

    /** Baseline: a bare {@code /bin/true}, what any spawn costs. */
    @Benchmark
    public int bareTrue() throws Exception {
        return run(bareTrue);
    }

    /**
     * The warm figure on the bubblewrap rung: the same call as {@link #runIsolatedBubblewrap}, on a
     * sandbox built with {@code startAt(BWRAP).warm(true)} whose one warm sandbox for the workspace was
     * started in the set-up (held to 2 times {@link #bareTrue}).
     */
    @Benchmark
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 5, time = 1)
    public SubprocessResult runIsolatedBubblewrapWarm(SandboxRungs.WarmBubblewrap s) {
        return s.sandbox.runIsolated(TRUE, s.workspace, TIMEOUT, null);
    }

    /** The warm figure on the container rung (podman, {@value SandboxRungs#IMAGE}; held to 3 times {@link #bareTrue}). */
    @Benchmark
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 5, time = 1)
    public SubprocessResult runIsolatedContainerWarm(SandboxRungs.WarmContainer s) {
        return s.sandbox.runIsolated(TRUE, s.workspace, TIMEOUT, null);
    }

    /**
     * The warm figure on the gVisor rung (podman with runsc, {@value SandboxRungs#IMAGE}; the target is 3
     * times {@link #bareTrue}, as on the container rung).
     */
    @Benchmark
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 5, time = 1)
    public SubprocessResult runIsolatedGvisorWarm(SandboxRungs.WarmGvisor s) {
        return s.sandbox.runIsolated(TRUE, s.workspace, TIMEOUT, null);
    }

    /** Twenty short commands ({@link SandboxRungs#MIX}) in one workspace, warm, on the bubblewrap rung. */
    @Benchmark
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public int twentyCommandsBubblewrapWarm(SandboxRungs.WarmBubblewrap s) {
        return SandboxRungs.runMix(s.sandbox, s.workspace, s.tier);
    }

    /** The same twenty commands, cold, on the bubblewrap rung. */
    @Benchmark
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public int twentyCommandsBubblewrapCold(SandboxRungs.ColdBubblewrap s) {
        return SandboxRungs.runMix(s.sandbox, s.workspace, s.tier);
    }

    /** The same twenty commands, warm, on the container rung. */
    @Benchmark
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public int twentyCommandsContainerWarm(SandboxRungs.WarmContainer s) {
        return SandboxRungs.runMix(s.sandbox, s.workspace, s.tier);
    }

    /**
     * The same twenty commands, cold, on the container rung: about 20 times the engine's start, so each
     * call is timed once (single shot), three times, with no warm-up beyond the set-up's own run of the
     * mix (what it costs is the engine's, not the JIT's).
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 3)
    public int twentyCommandsContainerCold(SandboxRungs.ColdContainer s) {
        return SandboxRungs.runMix(s.sandbox, s.workspace, s.tier);
    }

    /**
     * {@code /bin/true} cold on the gVisor rung (podman with runsc): about half a second more than
     * {@link #runIsolatedContainerCold} here, each call timed once (single shot), five times.
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 1)
    @Measurement(iterations = 5)
    public SubprocessResult runIsolatedGvisorCold(SandboxRungs.ColdGvisor s) {
        return SandboxRungs.checkedTrue(s.sandbox, s.workspace, s.tier);
    }

    /** {@code /bin/true} cold on the container rung, timed as {@link #runIsolatedGvisorCold} is: the ratio's baseline. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 1)
    @Measurement(iterations = 5)
    public SubprocessResult runIsolatedContainerCold(SandboxRungs.ColdContainer s) {
        return SandboxRungs.checkedTrue(s.sandbox, s.workspace, s.tier);
    }

    /** {@link SandboxRungs#GETPPID_LOOP} on the gVisor rung: each call answered by gVisor's kernel. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 3)
    public SubprocessResult getppidLoopGvisor(SandboxRungs.ColdGvisor s) {
        return SandboxRungs.checked(s.sandbox, s.workspace, s.tier, SandboxRungs.GETPPID_LOOP);
    }

    /** {@link SandboxRungs#GETPPID_LOOP} on the container rung (runc: the host's kernel, our filter). */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 3)
    public SubprocessResult getppidLoopContainer(SandboxRungs.ColdContainer s) {
        return SandboxRungs.checked(s.sandbox, s.workspace, s.tier, SandboxRungs.GETPPID_LOOP);
    }

    /** {@link SandboxRungs#GETPPID_LOOP} on the bubblewrap rung. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 3)
    public SubprocessResult getppidLoopBubblewrap(SandboxRungs.ColdBubblewrap s) {
        return SandboxRungs.checked(s.sandbox, s.workspace, s.tier, SandboxRungs.GETPPID_LOOP);
    }

    /**
     * Preflight for {@code run.sh}: prints the isolation report of the sandbox this benchmark builds,
     * and exits 0 when the bubblewrap rung is taken, 1 when it is not. With {@code --paired N} it then
     * runs the library, the bare command line, the minimal hardened line and a bare {@code /bin/true}
     * N times each, in turn (rotating which goes first), and prints each and the library's paired
     * difference to each: a check of the rows' ratios that machine drift between JMH forks cannot skew.
     * With {@code --container} it is the preflight of the container rows instead: it prints the report
     * of the warm container sandbox those rows build (podman, {@value SandboxRungs#IMAGE}) and exits 0
     * when that rung is taken and can run warm, 1 otherwise. With {@code --gvisor} it is the preflight
     * of the gVisor rows: the report of {@link SandboxRungs#gvisor()}, exit 0 when that rung is taken.
     *
     * @param args nothing, {@code --paired N}, {@code --container} or {@code --gvisor}
     * @throws Exception if a run cannot be started
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--gvisor")) {
            boolean ready;
            try (TieredSandbox gvisor = SandboxRungs.gvisor()) {
                IsolationReport report = gvisor.report();
                System.out.print(report.describe());
                ready = report.tier() == IsolationTier.GVISOR;
            }
            System.exit(ready ? 0 : 1);
        }
        if (args.length == 1 && args[0].equals("--container")) {
            boolean ready;
            try (TieredSandbox container = SandboxRungs.container(true)) {
                IsolationReport report = container.report();
                System.out.print(report.describe());
                ready = report.tier() == IsolationTier.CONTAINER && report.warmMode().startsWith("on");
            }
            System.exit(ready ? 0 : 1);
        }
        IsolationReport report = sandbox().report();
        System.out.print(report.describe());
        if (report.tier() != IsolationTier.BWRAP) {
            System.exit(1);
        }
        if (args.length == 2 && args[0].equals("--paired")) {
            paired(Integer.parseInt(args[1]));
        }
    }

    private static void paired(int n) throws Exception {
        SandboxBenchmark b = new SandboxBenchmark();
        b.setUp();
        try {
            int warmUp = Math.max(20, n / 10);
            List<Run> runs = List.of(b::runIsolatedBubblewrap, b::bareBubblewrapProcess, b::minimalHardenedBwrap, b::bareTrue);
            double[][] t = new double[runs.size()][n];
            for (int i = -warmUp; i < n; i++) {
                for (int k = 0; k < runs.size(); k++) {
                    int j = (k + Math.floorMod(i, runs.size())) % runs.size(); // rotate which goes first
                    long ns = timed(runs.get(j));
                    if (i >= 0) {
                        t[j][i] = ns / 1e6;
                    }
                }
            }
            System.out.printf(Locale.ROOT, "paired, %d runs each, rotating the order:%n", n);
            String[] names = {"runIsolated", "bare argv", "minimal bwrap", "bare /bin/true"};
            for (int j = 0; j < runs.size(); j++) {
                System.out.printf(Locale.ROOT, "  %-15s mean %.3f ms, median %.3f ms%n", names[j], Stats.mean(t[j]), Stats.median(t[j]));
            }
            for (int j = 1; j < runs.size(); j++) {
                double[] diff = new double[n];
                for (int i = 0; i < n; i++) {
                    diff[i] = t[0][i] - t[j][i];
                }
                double meanDiff = Stats.mean(diff);
                double halfWidth = 3.29 * Stats.sd(diff, meanDiff) / Math.sqrt(n); // 99.9%, normal approximation
                System.out.printf(Locale.ROOT, "  runIsolated vs %-15s ratio of means %.3f, of medians %.3f; difference %.3f ± %.3f ms (99.9%%)%n",
                        names[j], Stats.mean(t[0]) / Stats.mean(t[j]), Stats.median(t[0]) / Stats.median(t[j]), meanDiff, halfWidth);
            }
        } finally {
            b.tearDown();
        }
    }

    private interface Run {
        Object run() throws Exception;
    }

    private static long timed(Run r) throws Exception {
        long t = System.nanoTime();
        r.run();
        return System.nanoTime() - t;
    }



}
