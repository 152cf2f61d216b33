package dev.toolyard.benchmarks;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The sandboxes of {@link SandboxBenchmark}'s warm rows and of its 20-command rows, one JMH state each,
 * so that a fork sets up only the sandbox its method measures: warm and cold on the bubblewrap rung,
 * warm and cold on the container rung (podman, {@value #IMAGE}).
 *
 * <p>A warm state is measured in its steady state, and proves it: its set-up makes one workspace,
 * calls {@link TieredSandbox#warmUp}, waits for the one supervisor ({@code toolyard-warm}) of that
 * workspace to appear in {@code /proc}, runs {@code /bin/true} and the command mix a few times, and
 * fails unless the same single supervisor is alive afterwards (a cold fallback would show none, a
 * discarded sandbox another pid). Its tear-down fails likewise if the supervisor changed during the
 * measurement, then closes the sandbox and fails if the supervisor outlives {@link TieredSandbox#close()}.
 */
public final class SandboxRungs {
    /** The container rung's image, as {@code .ci/setup-*.sh} builds it. */
    static final String IMAGE = "localhost/toolyard-skeleton:1";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** What {@code run_command} gives a command by default. */
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/local/bin:/usr/bin:/bin");

    /**
     * Twenty short commands of the kind an agent runs while it edits code, in one workspace: listings,
     * reads, searches, a pipeline through {@code sh}, a write and its removal. Each exits 0 in the
     * workspace {@link #workspaceWithFiles()} makes.
     */
    static final List<List<String>> MIX = List.of(
            List.of("ls", "-la"),
            List.of("cat", "notes.md"),
            List.of("true"),
            List.of("sh", "-c", "echo ready"),
            List.of("pwd"),
            List.of("wc", "-l", "notes.md"),
            List.of("grep", "-n", "TODO", "src/Main.java"),
            List.of("head", "-n", "3", "notes.md"),
            List.of("tail", "-n", "2", "notes.md"),
            List.of("find", ".", "-name", "*.java"),
            List.of("stat", "-c", "%s %n", "notes.md"),
            List.of("sort", "words.txt"),
            List.of("sh", "-c", "sort words.txt | uniq -c"),
            List.of("diff", "notes.md", "notes.md"),
            List.of("test", "-d", "src"),
            List.of("sh", "-c", "echo draft > out.txt"),
            List.of("cat", "out.txt"),
            List.of("rm", "-f", "out.txt"),
            List.of("uname", "-s"),
            List.of("date", "-u", "+%Y-%m-%d"));

    private SandboxRungs() {}

    static TieredSandbox warmBubblewrap() {
        return TieredSandbox.builder().startAt(IsolationTier.BWRAP).warm(true).build();
    }

    static TieredSandbox container(boolean warm) {
        return TieredSandbox.builder().containerImage(IMAGE).warm(warm).build();
    }

    /** @return a cold sandbox on the gVisor rung alone ({@code startAt(GVISOR).lowestTier(GVISOR)}), same image */
    static TieredSandbox gvisor() {
        return gvisor(false);
    }

    /** @return a sandbox on the gVisor rung alone, same image, warm or cold */
    static TieredSandbox gvisor(boolean warm) {
        return TieredSandbox.builder().containerImage(IMAGE).startAt(IsolationTier.GVISOR).lowestTier(IsolationTier.GVISOR)
                .warm(warm).build();
    }

    /** 100,000 {@code getppid} calls from Python: the system-call tax of a rung, start included. */
    static final List<String> GETPPID_LOOP = List.of("/usr/bin/python3", "-c",
            "import os\nfor _ in range(100000):\n    os.getppid()\n");

    static SubprocessResult checked(TieredSandbox sandbox, SandboxPaths workspace, IsolationTier tier, List<String> command) {
        SubprocessResult r = sandbox.runIsolated(command, workspace, Duration.ofSeconds(120), null);
        if (r.exitCode() != 0 || r.timedOut() || r.tier() != tier) {
            throw new IllegalStateException(command + " did not succeed on " + tier + ": " + r);
        }
        return r;
    }

    /** @return a fresh workspace holding the files {@link #MIX} reads */
    static Path workspaceWithFiles() throws IOException {
        Path root = Workspace.create();
        Files.writeString(root.resolve("notes.md"), "# Notes\n\n- parse the arguments\n- TODO: cap the output\n- ship\n",
                StandardCharsets.UTF_8);
        Files.writeString(root.resolve("words.txt"), "pear\napple\npear\nfig\napple\npear\n", StandardCharsets.UTF_8);
        Files.createDirectory(root.resolve("src"));
        Files.writeString(root.resolve("src/Main.java"),
                "class Main {\n    // TODO: read the config\n    public static void main(String[] a) {}\n}\n",
                StandardCharsets.UTF_8);
        return root;
    }

    /**
     * Runs {@link #MIX} once.
     *
     * @return the bytes of stdout, all commands together
     * @throws IllegalStateException if a command does not exit 0 on {@code tier}
     */
    static int runMix(TieredSandbox sandbox, SandboxPaths workspace, IsolationTier tier) {
        int bytes = 0;
        for (List<String> command : MIX) {
            SubprocessResult r = sandbox.runIsolated(command, workspace, TIMEOUT, ENV);
            if (r.exitCode() != 0 || r.timedOut() || r.tier() != tier) {
                throw new IllegalStateException(command + " did not succeed on " + tier + ": " + r);
            }
            bytes += r.stdout().length();
        }
        return bytes;
    }

    static SubprocessResult checkedTrue(TieredSandbox sandbox, SandboxPaths workspace, IsolationTier tier) {
        SubprocessResult r = sandbox.runIsolated(SandboxBenchmark.TRUE, workspace, TIMEOUT, null);
        if (r.exitCode() != 0 || r.timedOut() || r.tier() != tier) {
            throw new IllegalStateException("runIsolated([/bin/true]) did not succeed on " + tier + ": " + r);
        }
        return r;
    }

    /** A sandbox on one rung and one workspace, with the files {@link #MIX} reads. */
    abstract static class Rung {
        TieredSandbox sandbox;
        Path root;
        SandboxPaths workspace;
        IsolationTier tier;
        private long supervisor;

        /** Builds the sandbox, checks its rung, and (warm) proves the steady state as the class comment says. */
        final void open(TieredSandbox s, IsolationTier expected, boolean warm) throws Exception {
            root = workspaceWithFiles();
            workspace = SandboxPaths.of(root);
            sandbox = s;
            tier = expected;
            IsolationReport report = sandbox.report();
            if (report.tier() != expected) {
                throw new IllegalStateException("this row needs the " + expected.wireName() + " rung, but the probe found:\n"
                        + report.describe());
            }
            if (!warm && expected == IsolationTier.GVISOR) {
                checkedTrue(sandbox, workspace, tier); // hands the workspace over; the mix would take a minute there
                return;
            }
            if (!warm) {
                runMix(sandbox, workspace, tier); // also hands the workspace over, as the first run of a cold row does
                return;
            }
            if (!report.warmMode().startsWith("on")) {
                throw new IllegalStateException("warm mode is not on: " + report.warmMode() + "\n" + report.describe());
            }
            Path writeRoot = workspace.realWriteRoot();
            sandbox.warmUp(workspace);
            supervisor = WarmSupervisors.awaitOne(writeRoot, 30_000);
            for (int i = 0; i < 5; i++) {
                checkedTrue(sandbox, workspace, tier);
            }
            if (expected != IsolationTier.GVISOR) { // gVisor has no statx flags ls and stat use: the mix is not for it
                runMix(sandbox, workspace, tier);
                runMix(sandbox, workspace, tier);
            }
            List<Long> after = WarmSupervisors.of(writeRoot);
            if (!after.equals(List.of(supervisor))) {
                throw new IllegalStateException("the set-up's runs were not all warm: the workspace's supervisor was "
                        + supervisor + " after warmUp and is " + after + " after 5 runs of /bin/true and 2 of the mix"
                        + " (none: the runs went cold; another pid: the sandbox was discarded). Warm mode: "
                        + report.warmMode());
            }
            System.err.println("SandboxRungs: warm " + expected.wireName() + " sandbox, supervisor pid " + supervisor
                    + ", stable over the set-up's runs; " + report.warmMode());
        }

        /** Checks the measurement stayed on one warm sandbox, closes, checks nothing outlives close(). */
        final void close(boolean warm) throws Exception {
            try {
                if (warm && supervisor != 0) {
                    Path writeRoot = workspace.realWriteRoot();
                    List<Long> now = WarmSupervisors.of(writeRoot);
                    if (!now.equals(List.of(supervisor))) {
                        throw new IllegalStateException("the measurement did not stay warm on one sandbox: its supervisor was "
                                + supervisor + " at set-up and is " + now + " at tear-down");
                    }
                    sandbox.close();
                    if (!WarmSupervisors.awaitNone(writeRoot, 10_000)) {
                        throw new IllegalStateException("TieredSandbox.close() left the warm supervisor(s) "
                                + WarmSupervisors.of(writeRoot) + " of " + writeRoot + " running 10 s later");
                    }
                } else if (sandbox != null) {
                    sandbox.close();
                }
            } finally {
                Workspace.delete(root);
            }
        }
    }

    /** Warm mode on the bubblewrap rung ({@code startAt(BWRAP)}). */
    @State(Scope.Benchmark)
    public static class WarmBubblewrap extends Rung {
        /** @throws Exception if the rung is unavailable or the runs were not warm */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(warmBubblewrap(), IsolationTier.BWRAP, true);
        }

        /** @throws Exception if the measurement left its warm sandbox, or close() left it running */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(true);
        }
    }

    /** Cold runs on the bubblewrap rung, the sandbox {@link SandboxBenchmark}'s cold rows measure. */
    @State(Scope.Benchmark)
    public static class ColdBubblewrap extends Rung {
        /** @throws Exception if the rung is unavailable or a command fails */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(SandboxBenchmark.sandbox(), IsolationTier.BWRAP, false);
        }

        /** @throws Exception never in practice */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(false);
        }
    }

    /** Warm mode on the container rung (podman, {@value #IMAGE}). */
    @State(Scope.Benchmark)
    public static class WarmContainer extends Rung {
        /** @throws Exception if the rung is unavailable or the runs were not warm */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(container(true), IsolationTier.CONTAINER, true);
        }

        /** @throws Exception if the measurement left its warm sandbox, or close() left it running */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(true);
        }
    }

    /** Cold runs on the container rung. */
    @State(Scope.Benchmark)
    public static class ColdContainer extends Rung {
        /** @throws Exception if the rung is unavailable or a command fails */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(container(false), IsolationTier.CONTAINER, false);
        }

        /** @throws Exception never in practice */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(false);
        }
    }

    /** Warm mode on the gVisor rung (podman with runsc, {@value #IMAGE}). */
    @State(Scope.Benchmark)
    public static class WarmGvisor extends Rung {
        /** @throws Exception if the rung is unavailable or the runs were not warm */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(gvisor(true), IsolationTier.GVISOR, true);
        }

        /** @throws Exception if the measurement left its warm sandbox, or close() left it running */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(true);
        }
    }

    /** Cold runs on the gVisor rung (podman with runsc, {@value #IMAGE}). */
    @State(Scope.Benchmark)
    public static class ColdGvisor extends Rung {
        /** @throws Exception if the rung is unavailable or a command fails */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open(gvisor(), IsolationTier.GVISOR, false);
        }

        /** @throws Exception never in practice */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            close(false);
        }
    }
}
