package dev.toolyard.benchmarks;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.SubprocessResult;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * The sandbox row: {@code TieredSandbox.runIsolated(["/bin/true"])} on the bubblewrap rung (podman
 * and docker hidden from the probe), beside the very command line the library builds spawned through
 * a bare {@link ProcessBuilder}, and beside a bare {@code /bin/true}. The target is on the first
 * ratio: what the library adds (argument checks, the bind set, the pids cgroup lease, the supervisor's
 * reader threads and deadline) must stay within 5% of what bubblewrap itself costs.
 *
 * <p><b>The same command line.</b> The library proves its rung with a canary, which is "the exact
 * command line a real run builds" around {@code /bin/true} in a temporary workspace; the report keeps
 * it ({@link IsolationReport#canaryCommand()}). The bare baseline is that command line with the
 * canary's workspace replaced by this benchmark's. When the host runs as root the library starts
 * bubblewrap through {@code cgexec -g pids:...} so a pids cgroup holds the process count; the bare
 * baseline then keeps {@code cgexec} and the same cgroup (the pool's, which no other run uses in this
 * fork), so the comparison is like for like, and {@link #bareBubblewrapNoCgroup} drops the three
 * {@code cgexec} words to show what the cgroup costs on its own (informational row).
 *
 * <p>The bare baselines spawn as the supervisor does (working directory {@code /}, standard input
 * from {@code /dev/null}, an empty environment, output on pipes), from a {@link ProcessBuilder} built
 * once, and wait for the exit; they read no output ({@code /bin/true} writes none).
 *
 * <p>Sample mode (each call timed), in milliseconds: a call costs milliseconds, so time-boxed
 * iterations of 2 s give hundreds to thousands of samples each. About 15 s per method, one minute
 * for the class. Needs bubblewrap: {@link #main} is the preflight {@code run.sh} uses to leave this
 * class out, loudly, where the rung is unavailable (and to fail instead under {@code CI=true}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 2)
public class SandboxBenchmark {
    static final List<String> TRUE = List.of("/bin/true");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final File ROOT = new File("/");
    private static final File DEV_NULL = new File("/dev/null");

    private Path root;
    private SandboxPaths workspace;
    private TieredSandbox sandbox;
    private ProcessBuilder bwrapArgv;
    private ProcessBuilder bwrapArgvNoCgroup;
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
            throw new IllegalStateException("SandboxBenchmark needs the bubblewrap rung (apt-get install bubblewrap, "
                    + "and cgroup-tools when running as root), but the probe found:\n" + report.describe());
        }
        List<String> argv = forWorkspace(report.canaryCommand(), workspace.realWriteRoot().toString());
        List<String> noCgroup = withoutCgexec(argv);
        if (noCgroup.equals(argv)) {
            System.err.println("SandboxBenchmark: the library's command line has no cgexec (no pids cgroup on this "
                    + "host), so bareBubblewrapNoCgroup measures the same command line as bareBubblewrapProcess");
        }
        System.err.println("SandboxBenchmark: the bare baseline's command line: " + String.join(" ", argv));
        bwrapArgv = builder(argv);
        bwrapArgvNoCgroup = builder(noCgroup);
        bareTrue = builder(TRUE);
        // Measure nothing that does not do its job.
        SubprocessResult r = runIsolatedBubblewrap();
        if (r.exitCode() != 0 || r.timedOut() || r.tier() != IsolationTier.BWRAP) {
            throw new IllegalStateException("runIsolated([/bin/true]) did not succeed on the bubblewrap rung: " + r);
        }
        for (ProcessBuilder b : List.of(bwrapArgv, bwrapArgvNoCgroup, bareTrue)) {
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
     * {@code --chdir}, bound read-write at its own path) replaced by {@code writeRoot}.
     */
    static List<String> forWorkspace(List<String> canary, String writeRoot) {
        int chdir = canary.indexOf("--chdir");
        if (chdir < 0 || chdir + 1 >= canary.size() || !canary.get(canary.size() - 1).equals("/bin/true")) {
            throw new IllegalStateException("not a bubblewrap canary command line: " + canary);
        }
        String canaryRoot = canary.get(chdir + 1);
        List<String> argv = new ArrayList<>(canary.size());
        for (String a : canary) {
            argv.add(a.equals(canaryRoot) ? writeRoot : a);
        }
        return List.copyOf(argv);
    }

    /** @return the command line without a leading {@code cgexec -g CONTROLLERS:PATH}; unchanged if it has none */
    static List<String> withoutCgexec(List<String> argv) {
        if (argv.size() > 3 && Path.of(argv.get(0)).getFileName().toString().equals("cgexec") && argv.get(1).equals("-g")) {
            return List.copyOf(argv.subList(3, argv.size()));
        }
        return argv;
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

    /** Baseline: the same command line (cgexec included when the library uses it), spawned bare. */
    @Benchmark
    public int bareBubblewrapProcess() throws Exception {
        return run(bwrapArgv);
    }

    /** Informational: the same command line without {@code cgexec}, to show the pids cgroup's own cost. */
    @Benchmark
    public int bareBubblewrapNoCgroup() throws Exception {
        return run(bwrapArgvNoCgroup);
    }

    /** Baseline: a bare {@code /bin/true}, what any spawn costs. */
    @Benchmark
    public int bareTrue() throws Exception {
        return run(bareTrue);
    }

    /**
     * Preflight for {@code run.sh}: prints the isolation report of the sandbox this benchmark builds,
     * and exits 0 when the bubblewrap rung is taken, 1 when it is not. With {@code --paired N} it then
     * runs the library and the bare command line N times each, alternating (and alternating which goes
     * first), and prints both and their paired difference: a check of the row's ratio that machine
     * drift between two JMH forks cannot skew.
     *
     * @param args nothing, or {@code --paired N}
     * @throws Exception if a run cannot be started
     */
    public static void main(String[] args) throws Exception {
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
            double[] library = new double[n];
            double[] bare = new double[n];
            for (int i = -warmUp; i < n; i++) {
                long a;
                long c;
                if ((i & 1) == 0) {
                    a = timed(b::runIsolatedBubblewrap);
                    c = timed(b::bareBubblewrapProcess);
                } else {
                    c = timed(b::bareBubblewrapProcess);
                    a = timed(b::runIsolatedBubblewrap);
                }
                if (i >= 0) {
                    library[i] = a / 1e6;
                    bare[i] = c / 1e6;
                }
            }
            double[] diff = new double[n];
            for (int i = 0; i < n; i++) {
                diff[i] = library[i] - bare[i];
            }
            double meanLibrary = Stats.mean(library);
            double meanBare = Stats.mean(bare);
            double meanDiff = Stats.mean(diff);
            double halfWidth = 3.29 * Stats.sd(diff, meanDiff) / Math.sqrt(n); // 99.9%, normal approximation
            System.out.printf(Locale.ROOT, "paired, %d runs each, alternating:%n"
                            + "  runIsolated     mean %.3f ms, median %.3f ms%n"
                            + "  bare argv       mean %.3f ms, median %.3f ms%n"
                            + "  library - bare  %.3f ± %.3f ms (99.9%%): ratio %.3f, overhead %.1f%% of the bare run%n",
                    n, meanLibrary, Stats.median(library), meanBare, Stats.median(bare), meanDiff, halfWidth,
                    meanLibrary / meanBare, 100 * meanDiff / meanBare);
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
