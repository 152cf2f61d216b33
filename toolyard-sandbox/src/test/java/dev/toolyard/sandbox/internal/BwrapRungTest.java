package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.sandbox.Hosts;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BwrapRungTest {
    private static final BwrapCommand.Tools TOOLS = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
            Path.of("/usr/bin/env"), Optional.empty());
    private static final ResourceLimits LIMITS = ResourceLimits.builder().processCount(10).build();

    @Test
    void everyLimitIsEnforcedAndTheReportSaysHow() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        assertThat(rung.name()).isEqualTo("bwrap");
        assertThat(rung.tier()).isEqualTo(IsolationTier.BWRAP);
        assertThat(rung.limitsUnenforced()).isEmpty();
        assertThat(rung.enforcement()).containsOnlyKeys("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
        assertThat(rung.enforcement().get("processCount")).contains("RLIMIT_NPROC on this process's uid");
        assertThat(rung.filtered()).isFalse();
    }

    @Test
    void lendingUidsWithoutSetprivIsRefused() {
        assertThatThrownBy(() -> new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.of(new SandboxIds(2147450880, 2147450880, 1)),
                Optional.empty(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setpriv");
    }

    @Test
    void notAsRootTheRunStartsWithTheLauncherAndTheRlimitIsTheProcessCount() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        Launch launch = rung.prepare(List.of("/bin/true"), Fixtures.BINDS, Map.of(), Duration.ofSeconds(1));

        assertThat(launch.argv().get(0)).isEqualTo("/usr/bin/dash");
        assertThat(launch.argv().get(8)).as("ulimit -p").isEqualTo("10");
        assertThat(launch.argv()).doesNotContain("setpriv").endsWith("/bin/true");
        assertThat(launch.environment()).as("the launcher itself needs no environment").isEmpty();
    }

    @Test
    void notAsRootThereIsNoWarmModeBecauseCommandsWouldShareTheSupervisorsUid() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        assertThat(rung.warmUnavailable()).hasValueSatisfying(why -> assertThat(why).contains("root", "runs are cold"));
        assertThatThrownBy(() -> rung.prepareWarm(Fixtures.BINDS, Path.of("/x/toolyard-warm"), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * The cold line as root, with {@code toolyard-warm --exec-once} between bubblewrap and the command and
     * with {@code setpriv} and {@code env -i} (the line of a build without gcc), on real bubblewrap with
     * ToolYard's seccomp program: the command sees the same state on both.
     */
    @Nested
    @Tag("isolation")
    class AsRootOnBubblewrap {
        /** What the command reports of itself: ids, capabilities, filter, limits, working directory, environment, parent. */
        private static final List<String> SELF_REPORT = List.of("/bin/sh", "-c",
                "grep -E '^(Uid|Gid|Groups|Cap[A-Za-z]+|NoNewPrivs|Seccomp|Seccomp_filters):' /proc/self/status;"
                        + " cat /proc/self/limits; pwd; env | sort; echo ppid=$PPID; cat /proc/1/comm");
        private static final ResourceLimits LIMITS = ResourceLimits.builder().processCount(12).build();
        private final SandboxIds ids = new SandboxIds(1_900_011_000, 1_900_011_000, 1);

        @TempDir
        Path tmp;
        private Function<String, Optional<Path>> which;
        private Path bwrap;
        private Path program;

        @org.junit.jupiter.api.BeforeEach
        void realBubblewrap() throws IOException {
            Hosts.require(Hosts.root(), "switching to a sandbox uid needs this JVM to be root");
            which = TieredSandbox.searchPath();
            Optional<Path> b = which.apply("bwrap");
            Hosts.require(b.isPresent(), "bwrap is not installed (run .ci/setup-sandbox.sh)");
            bwrap = b.get();
            program = Files.write(tmp.resolve("seccomp.bpf"), SeccompFilter.standard().bpfProgramForHost());
        }

        private BwrapRung rung(Optional<Path> coldHelper) {
            return new BwrapRung(new BwrapCommand.Tools(which.apply("dash").orElseThrow(), bwrap, which.apply("env").orElseThrow(),
                    which.apply("setpriv"), coldHelper), HostLayout.inspect(), LIMITS, Optional.of(ids), Optional.empty(),
                    Optional.of(program));
        }

        private Supervisor.Outcome run(BwrapRung rung, Path writeRoot, List<String> command) throws IOException {
            BindSet binds = BindSet.of(SandboxPaths.of(writeRoot), false);
            Launch launch = rung.prepare(command, binds, Map.of("PATH", "/usr/bin:/bin", "B", "2", "A", "1"),
                    Duration.ofSeconds(30));
            return Supervisor.run(launch, Duration.ofSeconds(30), 1 << 16);
        }

        @Test
        void theColdHelperIsOneExecAndLeavesTheCommandInTheStateSetprivAndEnvLeaveIt() throws IOException {
            Path helper = WarmBinary.install(Files.createDirectories(tmp.resolve("bin"))).path().orElseThrow(
                    () -> new AssertionError(WarmBinary.helperMissing()));
            Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
            BwrapRung oneExec = rung(Optional.of(helper));
            BwrapRung twoExecs = rung(Optional.empty());

            List<String> argv = oneExec.prepare(List.of("/bin/true"), BindSet.of(SandboxPaths.of(ws), false), Map.of(),
                    Duration.ofSeconds(1)).argv();
            Supervisor.Outcome withHelper = run(oneExec, ws, SELF_REPORT);
            Supervisor.Outcome withSetpriv = run(twoExecs, ws, SELF_REPORT);

            assertThat(argv.get(0)).as("the JVM execs bubblewrap itself: no launcher").isEqualTo(bwrap.toString());
            assertThat(argv).doesNotContain("--seccomp");
            assertThat(argv.subList(argv.indexOf("--") + 1, argv.size()))
                    .as("bubblewrap execs the helper, the helper the command: nothing else between them")
                    .containsExactly(BwrapCommand.WARM_SUPERVISOR, "--exec-once", "1900011000", "1900011000",
                            Long.toString(LIMITS.cpuSeconds()), Long.toString(LIMITS.memoryBytes() / 1024 * 1024),
                            Long.toString(Limits.fileSizeBlocks(LIMITS) * 512), Integer.toString(Limits.OPEN_FILES), "12",
                            Limits.hex(Files.readAllBytes(program)), ws.toString(), "--", "/bin/true");
            assertThat(argv).doesNotContain(which.apply("setpriv").orElseThrow().toString(), "-i");
            assertThat(withHelper.exitCode()).as(withHelper.stderr().text()).isZero();
            assertThat(withSetpriv.exitCode()).as(withSetpriv.stderr().text()).isZero();
            String state = withHelper.stdout().text();
            assertThat(state).isEqualTo(withSetpriv.stdout().text());
            assertThat(state).contains("Uid:\t1900011000\t1900011000\t1900011000\t1900011000\n",
                    "Gid:\t1900011000\t1900011000\t1900011000\t1900011000\n", "CapInh:\t0000000000000000\n",
                    "CapPrm:\t0000000000000000\n", "CapEff:\t0000000000000000\n", "CapBnd:\t0000000000000000\n",
                    "CapAmb:\t0000000000000000\n", "NoNewPrivs:\t1\n", "Seccomp:\t2\n", "Seccomp_filters:\t1\n",
                    "\n" + ws + "\n", "A=1\nB=2\nPATH=/usr/bin:/bin\nPWD=" + ws + "\n", "ppid=1\nbwrap\n");
            assertThat(state).containsPattern("Groups:\\s*\\n");
            assertThat(state).containsPattern("Max processes +12 +12 ");
            assertThat(state).containsPattern("Max cpu time +" + LIMITS.cpuSeconds() + " +" + LIMITS.cpuSeconds() + " ");
        }

        @Test
        void withTheColdHelperAMissingCommandExits127AsWithEnv() throws IOException {
            Path helper = WarmBinary.install(Files.createDirectories(tmp.resolve("bin"))).path().orElseThrow(
                    () -> new AssertionError(WarmBinary.helperMissing()));
            Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
            BwrapRung oneExec = rung(Optional.of(helper));

            Supervisor.Outcome missing = run(oneExec, ws, List.of("/no/such/program"));

            assertThat(missing.exitCode()).as("as env's").isEqualTo(127);
            assertThat(missing.stderr().text()).contains("/no/such/program");
        }
    }
}
