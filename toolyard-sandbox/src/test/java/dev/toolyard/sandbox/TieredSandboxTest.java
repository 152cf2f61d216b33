package dev.toolyard.sandbox;

import static dev.toolyard.sandbox.Hosts.LIMITS;
import static dev.toolyard.sandbox.Hosts.OUTPUT_CAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import dev.toolyard.spi.IsolationUnavailableException;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.spi.Text;
import dev.toolyard.sandbox.internal.SeccompArch;
import dev.toolyard.sandbox.internal.SeccompFilter;
import dev.toolyard.sandbox.internal.SyscallProbe;
import dev.toolyard.sandbox.internal.WarmBinary;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TieredSandboxTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(120);
    /** The command's open-files limit ({@code Limits.OPEN_FILES}): every descriptor it can have is below it. */
    private static final int OPEN_FILES = 1024;
    /** The owner of the setuid binary the nosuid test plants: a uid no account or sandbox run has. */
    private static final int SETUID_OWNER = 4242;

    @TempDir
    Path tmp;

    private Path writeRoot() throws IOException {
        return Files.createDirectories(tmp.resolve("work"));
    }

    private static int uid(Path p) {
        try {
            return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int mode(Path p) {
        try {
            return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path mknod(Path node, String type, long major, long minor) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mknod", "-m", "666", node.toString(), type, Long.toString(major), Long.toString(minor))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("mknod: " + out).isZero();
        return node;
    }

    private static SubprocessResult sh(TieredSandbox sandbox, Path writeRoot, String script) {
        return sandbox.runIsolated(List.of("/bin/sh", "-c", script), SandboxPaths.of(writeRoot), TIMEOUT, null);
    }

    /** The claims of the isolation issue, each shown for real on each rung, with the test JVM running as root. */
    @Nested
    @Tag("isolation")
    class OnEachRung {
        /** @return the rungs each claim is shown on: every rung of the ladder */
        static Stream<IsolationTier> rungs() {
            return Stream.of(IsolationTier.GVISOR, IsolationTier.CONTAINER, IsolationTier.BWRAP);
        }

        /** @return the sandbox these tests run on: cold runs here, warm ones in {@link OnEachRungWarm} */
        TieredSandbox on(IsolationTier tier) {
            return Hosts.on(tier);
        }

        /** @return as {@link #on}, with the roomy limits */
        TieredSandbox roomy(IsolationTier tier) {
            return Hosts.roomy(tier);
        }

        /**
         * @return the sandbox of the process-limit tests: {@link #on}, except on gVisor, where the CPU
         *     limit is 10 s so that the fork loop meets the process limit before its CPU limit
         *     ({@link Hosts#FORKING_ON_GVISOR}); the process count is the same everywhere
         */
        TieredSandbox forking(IsolationTier tier) {
            return tier == IsolationTier.GVISOR ? Hosts.forkingOnGvisor() : on(tier);
        }
        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void nothingIsWrittenOutsideTheWriteRoot(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();
            Path readRoot = Files.createDirectories(tmp.resolve("reference"));
            Files.writeString(readRoot.resolve("notes.md"), "original");
            Path sibling = Files.createDirectories(tmp.resolve("sibling"));
            String id = UUID.randomUUID().toString();
            String swappiness = Files.readString(Path.of("/proc/sys/vm/swappiness")).strip();
            List<String> targets = List.of(
                    "/usr/toolyard-" + id,
                    "/usr/bin/toolyard-" + id,
                    "/etc/toolyard-" + id,
                    "/toolyard-" + id,
                    "/var/toolyard-" + id,
                    "/tmp/toolyard-" + id,
                    readRoot.resolve("notes.md").toString(),
                    sibling.resolve("escaped").toString());
            StringBuilder script = new StringBuilder("echo inside > inside.txt && echo WROTE:inside\n");
            for (String t : targets) {
                script.append("(mkdir -p \"$(dirname '").append(t).append("')\" && echo x > '").append(t)
                        .append("') 2>/dev/null && echo WROTE:").append(t).append('\n');
            }
            // Same values back, so that even a broken sandbox changes nothing on the host.
            script.append("(echo ").append(swappiness).append(" > /proc/sys/vm/swappiness) 2>/dev/null && echo WROTE:sysctl\n");
            script.append("v=$(cat /proc/irq/default_smp_affinity 2>/dev/null) && (echo $v > /proc/irq/default_smp_affinity) 2>/dev/null && echo WROTE:irq\n");
            script.append("(echo 1 > /proc/sysrq-trigger) 2>/dev/null && echo WROTE:sysrq\n");
            script.append("(mount -o remount,rw /usr) 2>/dev/null && echo WROTE:remount\n");
            script.append("true\n");

            SubprocessResult r;
            try {
                r = sandbox.runIsolated(List.of("/bin/sh", "-c", script.toString()), SandboxPaths.of(work, readRoot), TIMEOUT, null);
            } finally {
                for (String t : targets.subList(0, 6)) {
                    if (Files.deleteIfExists(Path.of(t))) {
                        System.err.println("a broken sandbox wrote " + t + " on the host; removed it");
                    }
                }
            }

            assertThat(r.tier()).isEqualTo(tier);
            assertThat(r.stdout()).contains("WROTE:inside");
            assertThat(Files.readString(work.resolve("inside.txt"))).isEqualTo("inside\n");
            assertThat(r.stdout().lines().filter(l -> l.startsWith("WROTE:") && !l.equals("WROTE:inside")))
                    .as("writes outside the write root that succeeded inside the sandbox's own view")
                    .allMatch(l -> l.equals("WROTE:/tmp/toolyard-" + id) || l.equals("WROTE:" + sibling.resolve("escaped")));
            assertThat(r.stdout()).doesNotContain("WROTE:/usr", "WROTE:/etc", "WROTE:/toolyard", "WROTE:/var");
            assertThat(sibling.resolve("escaped")).doesNotExist();
            assertThat(Files.readString(readRoot.resolve("notes.md"))).isEqualTo("original");
            assertThat(Files.readString(Path.of("/proc/sys/vm/swappiness")).strip()).isEqualTo(swappiness);
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void etcShadowAndHostFilesOutsideTheBindsAreUnreadable(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path secretDir = Files.createDirectories(tmp.resolve("private"));
            String secret = "secret-" + UUID.randomUUID();
            Files.writeString(secretDir.resolve("key"), secret);
            assertThat(Path.of("/etc/shadow")).as("the host has a shadow file to protect").exists();

            SubprocessResult r = sh(sandbox, writeRoot(),
                    "cat /etc/shadow && echo READ:shadow; cat " + secretDir.resolve("key") + " && echo READ:key; "
                            + "ls /root && echo READ:root; ls /home && echo READ:home; cat /etc/hostname && echo READ:hostname; "
                            + "echo done");

            assertThat(r.stdout()).contains("done").doesNotContain("READ:shadow", "READ:key", "READ:root", "READ:home")
                    .doesNotContain(secret);
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void noConnectionReachesAListenerOnHostLoopback(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
                int port = server.getLocalPort();
                try (Socket probe = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
                    assertThat(probe.isConnected()).isTrue();
                    server.accept().close(); // the listener is real: a host connection gets through
                }
                server.setSoTimeout(300);

                SubprocessResult r = sandbox.runIsolated(List.of("/usr/bin/bash", "-c",
                                "echo hello > /dev/tcp/127.0.0.1/" + port + " && echo CONNECTED; "
                                        + "echo hello > /dev/tcp/localhost/" + port + " && echo CONNECTED"),
                        SandboxPaths.of(writeRoot()), TIMEOUT, null);

                assertThat(r.stdout()).doesNotContain("CONNECTED");
                assertThatThrownBy(() -> server.accept().close()).isInstanceOf(SocketTimeoutException.class);
            }
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void theChildSeesExactlyTheAllowlistedEnvironmentAndNoneOfTheParents(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            assertThat(System.getenv("TOOLYARD_PARENT_SECRET"))
                    .as("surefire sets TOOLYARD_PARENT_SECRET in the parent (see the module's pom)").isNotNull();

            SubprocessResult given = sandbox.runIsolated(List.of("/usr/bin/env"), SandboxPaths.of(writeRoot()), TIMEOUT,
                    Map.of("ONLY", "this one", "PATH", "/usr/bin"));
            SubprocessResult none = sandbox.runIsolated(List.of("/usr/bin/env"), SandboxPaths.of(writeRoot()), TIMEOUT, null);

            assertThat(given.exitCode()).isZero();
            assertThat(given.stdout().lines()).containsExactlyInAnyOrder("ONLY=this one", "PATH=/usr/bin");
            assertThat(none.exitCode()).isZero();
            assertThat(none.stdout()).isEmpty();
            assertThat(given.stdout() + none.stdout()).doesNotContain("parent-secret", "TOOLYARD_PARENT_SECRET", "HOME=");
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void aCpuBurnIsKilledNearItsLimit(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);

            SubprocessResult r = sh(sandbox, writeRoot(), "while :; do :; done");

            assertThat(r.timedOut()).as("killed by its CPU limit, not by the 30 s deadline").isFalse();
            assertThat(r.exitCode()).as("SIGKILL at the hard limit or SIGXCPU").isIn(128 + 9, 128 + 24);
            assertThat(r.elapsed()).as("a single thread cannot burn 1 CPU second in less wall time")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(LIMITS.cpuSeconds()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void aMemoryHogFails(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();

            SubprocessResult small = sandbox.runIsolated(List.of("/usr/bin/perl", "-e",
                    "$x = 'x' x (1024 * 1024); print qq(allocated\\n)"), SandboxPaths.of(work), TIMEOUT, null);
            SubprocessResult hog = sandbox.runIsolated(List.of("/usr/bin/perl", "-e",
                    "$x = 'x' x (256 * 1024 * 1024); print qq(allocated\\n)"), SandboxPaths.of(work), TIMEOUT, null);

            assertThat(small.stdout()).as("perl itself runs under the limit").isEqualTo("allocated\n");
            assertThat(hog.exitCode()).isNotZero();
            assertThat(hog.stdout()).doesNotContain("allocated");
            assertThat(hog.timedOut()).isFalse();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void aFileStopsGrowingAtTheFileSizeLimit(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();

            SubprocessResult r = sh(sandbox, work, "head -c 4194304 /dev/zero > big");

            assertThat(r.exitCode()).isNotZero();
            assertThat(Files.size(work.resolve("big"))).isLessThanOrEqualTo(LIMITS.fileSizeBytes());
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void aForkBombIsHeldAtTheProcessLimitAndLeavesNothingBehind(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = forking(tier);
            Path work = writeRoot();
            String token = "31." + Math.abs(UUID.randomUUID().getLeastSignificantBits() % 1_000_000_000L);

            SubprocessResult r = sh(sandbox, work, "n=0; while [ $n -lt 500 ]; do sleep " + token
                    + " & n=$((n+1)); echo $n > count; done; echo ESCAPED");

            int forked = Integer.parseInt(Files.readString(work.resolve("count")).strip());
            assertThat(r.stdout()).doesNotContain("ESCAPED");
            assertThat(r.stderr()).contains("fork");
            // The shell is one of the processCount; each sleep is another.
            assertThat(forked).isEqualTo(LIMITS.processCount() - 1);
            assertThat(Hosts.processesMentioning("sleep\0" + token)).as("sleepers left on the host").isEmpty();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void concurrentRunsEachGetTheirOwnProcessLimit(IsolationTier tier) throws Exception {
            TieredSandbox sandbox = forking(tier);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<Integer>> runs = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Path work = Files.createDirectories(tmp.resolve("work-" + i));
                    runs.add(pool.submit(() -> {
                        sh(sandbox, work, "n=0; while [ $n -lt 100 ]; do sleep 3 & n=$((n+1)); echo $n > count; done");
                        return Integer.parseInt(Files.readString(work.resolve("count")).strip());
                    }));
                }
                for (Future<Integer> run : runs) {
                    assertThat(run.get()).as("no run shares another's limit").isEqualTo(LIMITS.processCount() - 1);
                }
            } finally {
                pool.shutdownNow();
            }
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void anOutputFloodIsCappedAtTheLimitAndStopsTheRun(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);

            SubprocessResult out = sandbox.runIsolated(List.of("/usr/bin/yes", "flood"), SandboxPaths.of(writeRoot()), TIMEOUT, null);
            SubprocessResult err = sh(sandbox, writeRoot(), "echo before; yes flood >&2");

            assertThat(out.outputTruncated()).isTrue();
            assertThat(out.timedOut()).as("stopped by the cap, long before the deadline").isFalse();
            assertThat(out.exitCode()).isEqualTo(128 + 9);
            assertThat(Text.utf8Length(out.stdout())).isLessThanOrEqualTo(OUTPUT_CAP);
            assertThat(out.stdout()).startsWith("flood\nflood\n").contains("[truncated: showing at most " + OUTPUT_CAP + " of ");
            assertThat(err.outputTruncated()).isTrue();
            assertThat(err.stdout()).isEqualTo("before\n");
            assertThat(Text.utf8Length(err.stderr())).isLessThanOrEqualTo(OUTPUT_CAP);
            assertThat(err.stderr()).contains("[truncated: ");
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void aTreeThatIgnoresSigtermAndDaemonizesIsGoneAfterTheTimeout(IsolationTier tier) throws Exception {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();
            String token = "toolyard-daemon-" + UUID.randomUUID();
            // A double-forked, setsid'd daemon that ignores SIGTERM and writes a marker every 50 ms,
            // under a parent that ignores SIGTERM too.
            String daemon = "trap '' TERM; while :; do date +%s%N > marker; sleep 0.05; done";
            String script = "trap '' TERM; (setsid /bin/sh -c \"" + daemon + "\" " + token + " &); "
                    + "trap '' TERM; sleep 1000";

            // gVisor's container alone takes over a second to start on a loaded host: its tree gets longer to start
            Duration timeout = Duration.ofMillis(tier == IsolationTier.GVISOR ? 8000 : 1500);
            SubprocessResult r = sandbox.runIsolated(List.of("/bin/sh", "-c", script), SandboxPaths.of(work), timeout, null);

            assertThat(r.timedOut()).isTrue();
            assertThat(work.resolve("marker")).as("the daemon ran").exists();
            String atReturn = Files.readString(work.resolve("marker"));
            Thread.sleep(500);
            assertThat(Files.readString(work.resolve("marker"))).as("the marker stopped changing").isEqualTo(atReturn);
            assertThat(Hosts.processesMentioning(token)).isEmpty();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void theCommandRunsInTheWriteRootWithAnEmptyStdinAndItsExitCodeComesBack(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();

            SubprocessResult r = sh(sandbox, work, "pwd; cat; echo status >&2; exit 7");

            assertThat(r.exitCode()).isEqualTo(7);
            assertThat(r.stdout()).isEqualTo(work.toRealPath() + "\n");
            assertThat(r.stderr()).isEqualTo("status\n");
            assertThat(r.tier()).isEqualTo(tier);
            assertThat(r.timedOut()).isFalse();
            assertThat(r.outputTruncated()).isFalse();
            assertThat(r.limitsUnenforced()).isEqualTo(sandbox.report().limitsUnenforced());
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void noSetuidOrSetgidFileOwnedByRootCanBeMadeInTheWorkspace(IsolationTier tier) throws IOException {
            // The attack of issue 10: a setuid-root interpreter left in the workspace for a host user to run.
            TieredSandbox sandbox = roomy(tier);
            Path work = writeRoot();

            SubprocessResult r = sh(sandbox, work, "cp /usr/bin/python3 py && echo COPIED; chown 0:0 py && echo CHOWNED; "
                    + "chmod 6755 py && echo CHMODDED; mkdir d && chown 0:0 d && chmod 6777 d; ls -ln py");

            assertThat(r.stdout()).contains("COPIED").doesNotContain("CHOWNED");
            assertThat(work.resolve("py")).exists();
            try (Stream<Path> all = Files.walk(work)) {
                assertThat(all.filter(p -> uid(p) == 0 && (mode(p) & 06000) != 0).toList())
                        .as("setuid or setgid entries owned by root").isEmpty();
            }
            assertThat(uid(work.resolve("py"))).as("the copy is the sandbox uid's").isNotZero();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void theCommandIsNotHostRootAndWhatItCreatesIsTheSandboxUidsOnTheHost(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();
            Hosts.require(Hosts.root(), "the test JVM is not root, so there is no host root to keep the command from");

            // no_new_privs asked of the kernel (prctl PR_GET_NO_NEW_PRIVS) on every rung, and read from
            // /proc/self/status where it is shown there (gVisor's has no such line)
            SubprocessResult r = sh(sandbox, work, "id -u; id -g; id -G; cat /proc/self/uid_map; "
                    + "python3 -I -S -c 'import ctypes; print(\"prctl-no-new-privs\", ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))'; "
                    + "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; touch made");

            List<String> lines = r.stdout().lines().map(String::strip).toList();
            long uid = Long.parseLong(lines.get(0));
            long gid = Long.parseLong(lines.get(1));
            assertThat(uid).isNotZero().isBetween((long) TieredSandbox.DEFAULT_SANDBOX_UID,
                    (long) TieredSandbox.DEFAULT_SANDBOX_UID + TieredSandbox.DEFAULT_SANDBOX_ID_COUNT - 1);
            assertThat(lines.get(2)).as("supplementary groups: none but its own gid").isEqualTo(Long.toString(gid));
            assertThat(lines.get(3).split("\\s+")).as("no user namespace: the uid inside is the uid on the host")
                    .containsExactly("0", "0", "4294967295");
            assertThat(lines).contains("prctl-no-new-privs 1", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000");
            if (tier != IsolationTier.GVISOR) {
                assertThat(lines).contains("NoNewPrivs:\t1");
            }
            assertThat(uid(work.resolve("made"))).isEqualTo(uid);
            assertThat(Integer.toUnsignedLong((Integer) Files.getAttribute(work.resolve("made"), "unix:gid"))).isEqualTo(gid);
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void theWriteRootIsMountedNosuidAndNodev(IsolationTier tier) throws Exception {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();
            Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot plant another uid's setuid file or a device node");
            // Shown by what the command can do with them, on every rung: a setuid copy of id owned by
            // another uid (the host plants it: the command cannot) runs as the command's own uid, and a
            // device node for the host's kernel log (/dev/kmsg, which gVisor does not emulate) cannot be opened;
            // elsewhere than gVisor a node for /dev/zero cannot either (gVisor opens its own emulation of
            // the few devices it has, zero among them, never the host's). The mount options are read
            // too where /proc/self/mountinfo shows them (gVisor's does not).
            Path setuid = work.resolve("suid-id");
            Files.copy(Path.of("/usr/bin/id"), setuid);
            Files.setAttribute(setuid, "unix:uid", SETUID_OWNER);
            Files.setAttribute(setuid, "unix:mode", 04755);
            Path kmsg = mknod(work.resolve("kmsg"), "c", 1, 11);
            Path zero = mknod(work.resolve("zero"), "c", 1, 5);
            try (InputStream in = Files.newInputStream(kmsg)) {
                assertThat(in.read(new byte[8192])).as("the node is the host's kernel log, readable on the host").isPositive();
            }
            try (InputStream in = Files.newInputStream(zero)) {
                assertThat(in.readNBytes(4)).as("the node is /dev/zero on the host").containsExactly(0, 0, 0, 0);
            }

            SubprocessResult r = sh(sandbox, work, "./suid-id -u; ./suid-id -u -r; "
                    + "head -c 4 kmsg > /dev/null && echo KMSG-READ; head -c 4 zero > /dev/null && echo ZERO-READ; echo done; "
                    + "grep ' " + work.toRealPath() + " ' /proc/self/mountinfo");

            List<String> lines = r.stdout().lines().toList();
            assertThat(lines.get(0)).as("effective uid of the setuid binary").isEqualTo(lines.get(1))
                    .isNotEqualTo(Integer.toString(SETUID_OWNER));
            assertThat(r.stdout()).contains("done").doesNotContain("KMSG-READ");
            if (tier != IsolationTier.GVISOR) {
                assertThat(r.stdout()).doesNotContain("ZERO-READ");
                String mountPoint = " " + work.toRealPath() + " ";
                List<String> mounts = lines.stream().filter(l -> l.contains(mountPoint)).toList();
                assertThat(mounts).hasSize(1);
                assertThat(mounts.get(0).split(" ")[5].split(",")).as("mount options").contains("nosuid", "nodev");
            }
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void rlimitNprocIsTheProcessCountAndBindsBecauseTheCommandIsNotRoot(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = forking(tier);
            Path work = writeRoot();

            // getrlimit through bash's ulimit on every rung; /proc/self/limits too where it exists (gVisor has none)
            SubprocessResult r = sh(sandbox, work, "id -u; bash -c 'echo nproc $(ulimit -Su) $(ulimit -Hu)'; "
                    + "grep 'Max processes' /proc/self/limits; "
                    + "n=0; while [ $n -lt 100 ]; do sleep 5 & n=$((n+1)); echo $n > count; done");

            assertThat(r.stdout().lines().toList().get(0)).isNotEqualTo("0");
            long rlimit = nprocRlimit(tier);
            assertThat(r.stdout().lines().toList().get(1)).isEqualTo("nproc " + rlimit + " " + rlimit);
            if (tier != IsolationTier.GVISOR) {
                assertThat(r.stdout()).containsPattern("Max processes +" + LIMITS.processCount() + " +" + LIMITS.processCount() + " ");
            }
            assertThat(Integer.parseInt(Files.readString(work.resolve("count")).strip()))
                    .as("the fork loop stops at the limit, the shell itself being one").isEqualTo(LIMITS.processCount() - 1);
        }

        /** @return the {@code RLIMIT_NPROC} a command on {@code tier} reads: the process count, on every cold rung */
        long nprocRlimit(IsolationTier tier) {
            return LIMITS.processCount();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void nestedUserNamespacesFail(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = roomy(tier);
            Path work = writeRoot();

            SubprocessResult r = sh(sandbox, work, "python3 -c 'import ctypes, os\n"
                    + "libc = ctypes.CDLL(None, use_errno=True)\n"
                    + "print(\"unshare\", libc.unshare(0x10000000), ctypes.get_errno())\n"
                    + "print(\"unshare+mount\", libc.unshare(0x10020000), ctypes.get_errno())'; "
                    + "unshare -U -r true && echo NESTED-CMD-OK; echo done");

            assertThat(r.stdout()).contains("unshare -1 1\n", "unshare+mount -1 1\n", "done").doesNotContain("NESTED-CMD-OK");
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void everyDeniedSystemCallFailsWithItsErrnoAndOtherAbisAreKilled(IsolationTier tier) throws IOException, InterruptedException {
            TieredSandbox sandbox = roomy(tier);
            Path work = writeRoot();
            SeccompFilter filter = SeccompFilter.standard();
            List<SyscallProbe.Request> requests = SyscallProbe.requests(filter, SeccompArch.host());
            Path probe = SyscallProbe.install(Files.createDirectories(tmp.resolve("probe")), requests);

            // A fork a request, ~250 of them: tens of ms of CPU each under gVisor's kernel
            SubprocessResult r = sandbox.runIsolated(SyscallProbe.command(probe), SandboxPaths.of(work, probe), PROBE_TIMEOUT, null);

            Map<String, String> got = SyscallProbe.parse(r.stdout());
            Map<String, String> everywhere = SyscallProbe.expectedDenials(filter, requests);
            // On gVisor the few calls runsc's profile cannot name fail ENOSYS in gVisor's kernel instead:
            // refused either way, with no effect; every other denial is the filter's EPERM there too.
            Map<String, String> expected = tier == IsolationTier.GVISOR ? SyscallProbe.expectedOnGvisor(everywhere) : everywhere;
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(expected).hasSizeGreaterThan(filter.deniedNames().size() - 1);
            assertThat(got).containsAllEntriesOf(expected);
            assertThat(expected).containsValue("38").as("clone3 is ENOSYS").containsEntry(
                    expected.keySet().stream().filter(k -> k.startsWith("deny/clone3/")).findFirst().orElseThrow(), "38");
            assertThat(got).containsEntry("allow/python-threads", "0")
                    .containsEntry("state/seccomp-mode", "2").containsEntry("state/prctl-no-new-privs", "1");
            if (tier != IsolationTier.GVISOR) {
                assertThat(got).containsEntry("state/no-new-privs", "1"); // gVisor's /proc/self/status has no such line
            }
            if (SeccompArch.host() == SeccompArch.X86_64) {
                assertThat(got).containsKeys("abi/i386-getpid", "abi/x32-getpid");
                assertThat(tier == IsolationTier.GVISOR ? SyscallProbe.foreignAbiViolationsOnGvisor(got)
                        : SyscallProbe.foreignAbiViolations(got)).as("no foreign-ABI call succeeds").isEmpty();
            }
            assertThat(sandbox.report().seccompFilterLoaded()).isTrue();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void ordinaryProgramsStillRunUnderTheFilter(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = roomy(tier);
            Path work = writeRoot();

            SubprocessResult r = sh(sandbox, work, "echo 'b a c' | tr ' ' '\\n' | sort | tr -d '\\n'; echo; "
                    + "printf 'x%.0s' 1 2 3 > f && wc -c < f && cp f g && mv g h && ls; "
                    + "python3 -c 'import threading, subprocess; ts = [threading.Thread(target=lambda: None) for _ in range(8)]; "
                    + "[t.start() for t in ts]; [t.join() for t in ts]; "
                    + "print(subprocess.run([\"/bin/echo\", \"spawned\"], capture_output=True, text=True).stdout.strip())'; "
                    + "bash -c 'echo $((6 * 7))'");

            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(r.stdout()).isEqualTo("abc\n3\nf\nh\nspawned\n42\n");
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void theCommandInheritsNoDescriptorBeyondItsThreeStreams(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);

            // Each descriptor number below the open-files limit tried with fstat, then /proc/self/fd
            // listed (which also shows any above it): coreutils' ls cannot list /proc on gVisor, whose
            // statx refuses AT_NO_AUTOMOUNT with EINVAL, so both are asked of Python.
            SubprocessResult r = sandbox.runIsolated(List.of("/usr/bin/python3", "-I", "-S", "-c", "import os\n"
                            + "def is_open(fd):\n"
                            + "    try:\n"
                            + "        os.fstat(fd)\n"
                            + "        return True\n"
                            + "    except OSError:\n"
                            + "        return False\n"
                            + "print('fstat', *[fd for fd in range(" + OPEN_FILES + ") if is_open(fd)])\n"
                            + "print('listed', *sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n"),
                    SandboxPaths.of(writeRoot()), TIMEOUT, null);

            assertThat(r.stdout().lines().toList()).as(r.stderr())
                    .containsExactly("fstat 0 1 2", "listed 0 1 2 3"); // 3: the directory being listed
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("rungs")
        void argvIsPassedAsIsWithNoShellInBetween(IsolationTier tier) throws IOException {
            TieredSandbox sandbox = on(tier);
            Path work = writeRoot();
            List<String> tricky = List.of("/usr/bin/printf", "[%s]\\n", "$(touch pwned)", "a b", "; touch pwned2", "A=B", "--", "");

            SubprocessResult r = sandbox.runIsolated(tricky, SandboxPaths.of(work), TIMEOUT, null);

            assertThat(r.stdout()).isEqualTo("[$(touch pwned)]\n[a b]\n[; touch pwned2]\n[A=B]\n[--]\n[]\n");
            assertThat(work.resolve("pwned")).doesNotExist();
            assertThat(work.resolve("pwned2")).doesNotExist();
        }
    }

    /**
     * Every claim of {@link OnEachRung} again, on each rung, with warm mode on: each command then runs
     * in a warm sandbox of its workspace, none skipped.
     */
    @Nested
    @Tag("isolation")
    class OnEachRungWarm extends OnEachRung {
        private long servedBefore;

        /** @return every rung of the ladder: warm mode runs on each (gVisor too, issue 26) */
        static Stream<IsolationTier> rungs() {
            return OnEachRung.rungs();
        }

        @BeforeEach
        void countWarmRuns() {
            servedBefore = Hosts.warmRunsServed();
        }

        /** No test here passes on cold runs: at least one of its commands was answered warm. */
        @AfterEach
        void someRunWasWarm() {
            assertThat(Hosts.warmRunsServed()).as("commands answered by a warm sandbox").isGreaterThan(servedBefore);
        }

        @Override
        TieredSandbox on(IsolationTier tier) {
            return Hosts.warm(tier);
        }

        @Override
        TieredSandbox forking(IsolationTier tier) {
            return tier == IsolationTier.GVISOR ? Hosts.forkingWarmOnGvisor() : on(tier);
        }

        /**
         * One lower on warm gVisor, by design (ContainerCommand.warmProcessLimit): gVisor never counts the
         * command's first process, which the root supervisor forks before it becomes the sandbox uid, so the
         * fork loop still stops at the same process count as everywhere else (asserted by the test).
         */
        @Override
        long nprocRlimit(IsolationTier tier) {
            return tier == IsolationTier.GVISOR ? LIMITS.processCount() - 1 : LIMITS.processCount();
        }

        @Test
        void onGvisorWarmModeIsOnAndItsCommandsRunInsideGvisorsKernel() throws IOException {
            TieredSandbox sandbox = Hosts.warm(IsolationTier.GVISOR);
            assertThat(sandbox.report().warmMode()).startsWith("on, gvisor:");
            // pid 1 is the warm supervisor, and the kernel that answers is gVisor's, not the host's.
            SubprocessResult r = sh(sandbox, writeRoot(), "tr '\\0' ' ' < /proc/1/cmdline | cut -d' ' -f1; cat /proc/version");
            String host = Files.readString(Path.of("/proc/version")).strip();
            assertThat(r.stdout().lines().toList()).as(r.stderr()).hasSize(2).first().isEqualTo("/toolyard-warm");
            assertThat(r.stdout().lines().toList().get(1)).startsWith("Linux version").isNotEqualTo(host);
        }

        @Override
        TieredSandbox roomy(IsolationTier tier) {
            return Hosts.roomyWarm(tier);
        }
    }

    @Nested
    @Tag("isolation")
    class TheLadder {
        @Test
        void isForcedDownByTheInjectedWhichAndTheReportNamesEachRung() {
            TieredSandbox sandbox = TieredSandbox.builder().containerImage(Hosts.IMAGE).limits(LIMITS)
                    .which(Hosts.hiding("podman")).build();

            IsolationReport report = sandbox.report();

            Hosts.require(report.tier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + report);
            assertThat(report.rungs()).extracting(IsolationReport.Rung::name).containsExactly("podman", "docker", "bwrap");
            assertThat(report.rungs().get(0).taken()).isFalse();
            assertThat(report.rungs().get(0).why()).startsWith("podman not found");
            assertThat(report.rungs().get(1).taken()).isFalse();
            assertThat(report.rungs().get(2).taken()).isTrue();
            assertThat(report.rungs().get(2).why()).contains("canary /bin/true exited 0");
            assertThat(report.canaryCommand()).contains("--unshare-pid", "--unshare-net", "--remount-ro").endsWith("/bin/true");
            assertThat(report.describe()).contains("tier: bwrap", "podman", "docker", "bwrap", "TAKEN", "limits unenforced:");
        }

        @Test
        void sandboxesBuiltOneAfterAnotherInOneJvmShareOnePrivateDirectoryAndAClosedOneStillRunsCold() throws IOException {
            Set<Path> dirs = new HashSet<>();
            Path work = writeRoot();
            for (int i = 0; i < 5; i++) {
                try (TieredSandbox sandbox = Hosts.builder(IsolationTier.BWRAP, LIMITS).warm(i % 2 == 1).build()) {
                    Hosts.require(sandbox.isolationTier() == IsolationTier.BWRAP, "bubblewrap is not available:\n"
                            + sandbox.report());
                    SubprocessResult r = sandbox.runIsolated(List.of("/bin/true"), SandboxPaths.of(work), TIMEOUT, null);
                    assertThat(r.exitCode()).isZero();
                    dirs.add(sandbox.privateDirectory().orElseThrow());
                    sandbox.close();
                    assertThat(sandbox.runIsolated(List.of("/bin/true"), SandboxPaths.of(work), TIMEOUT, null).exitCode())
                            .as("a closed sandbox's later runs are cold, and its files are still there").isZero();
                }
            }
            assertThat(dirs).hasSize(1);
            assertThat(dirs.iterator().next().resolve("etc/passwd")).exists();
        }

        @Test
        void climbsToTheContainerWhenPodmanAndTheImageArePresent() {
            TieredSandbox sandbox = Hosts.on(IsolationTier.CONTAINER);

            IsolationReport report = sandbox.report();

            assertThat(report.rungs()).extracting(IsolationReport.Rung::name).containsExactly("podman", "docker", "bwrap");
            assertThat(report.rungs()).extracting(IsolationReport.Rung::taken).containsExactly(true, false, false);
            assertThat(report.rungs().get(2).why()).isEqualTo("not probed: podman was taken");
            assertThat(report.limitsUnenforced()).isEmpty();
            assertThat(report.canaryCommand()).contains("--pull=never", "--network=none", "--read-only", "--cap-drop=ALL");
        }

        @Test
        void aHostWithNoTierRefusesAndRunsNothing() throws IOException {
            TieredSandbox sandbox = TieredSandbox.builder().containerImage(Hosts.IMAGE).which(name -> Optional.empty()).build();
            Path work = writeRoot();

            assertThat(sandbox.isolationTier()).isEqualTo(IsolationTier.UNAVAILABLE);
            assertThat(sandbox.report().rungs()).extracting(IsolationReport.Rung::why)
                    .containsExactly("podman not found (apt-get install podman runc)", "docker not found",
                            "bwrap not found (apt-get install bubblewrap)");
            assertThat(sandbox.report().limitsUnenforced())
                    .containsExactly("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
            assertThatThrownBy(() -> sandbox.runIsolated(List.of("/usr/bin/touch", work.resolve("ran").toString()),
                    SandboxPaths.of(work), TIMEOUT, null))
                    .isInstanceOf(IsolationUnavailableException.class)
                    .hasMessageContaining("no isolation tier")
                    .hasMessageContaining("bwrap: bwrap not found");
            assertThat(work.resolve("ran")).doesNotExist();
        }

        @Test
        void withoutAnImageTheContainerRungIsSkippedAndTheReportSaysSo() {
            TieredSandbox sandbox = TieredSandbox.builder().which(name -> Optional.empty()).build();

            assertThat(sandbox.report().rungs().subList(0, 2)).extracting(IsolationReport.Rung::why)
                    .allMatch(why -> why.startsWith("no container image configured"));
        }

        @Test
        void theReportSaysWhomCommandsRunAsWhetherTheFilterIsLoadedAndWhatEnforcesEachLimit() {
            TieredSandbox sandbox = Hosts.on(IsolationTier.BWRAP);
            Hosts.require(Hosts.root(), "the test JVM is not root");

            IsolationReport report = sandbox.report();

            assertThat(report.runsAs()).startsWith("uids " + TieredSandbox.DEFAULT_SANDBOX_UID + "..");
            assertThat(report.seccompFilterLoaded()).isTrue();
            assertThat(report.limitEnforcement()).containsOnlyKeys("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
            assertThat(report.limitEnforcement().get("processCount")).startsWith("RLIMIT_NPROC on a uid lent to this run alone");
            assertThat(report.limitsUnenforced()).isEmpty();
            assertThat(report.canaryCommand())
                    .doesNotContain("--unshare-user").noneMatch(a -> a.contains("cgexec") || a.contains("prlimit"));
            assertThat(report.describe()).contains("runs as: uids ", "seccomp filter: ToolYard's own", "  processCount   RLIMIT_NPROC");
            if (WarmBinary.missing().isEmpty()) {
                // The helper loads the filter itself, from its argument: the one right before the write root.
                List<String> c = report.canaryCommand();
                int helper = c.indexOf("--exec-once");
                assertThat(c).contains("/toolyard-warm", "--exec-once").doesNotContain("/usr/bin/setpriv", "--seccomp");
                assertThat(c.get(0)).as("no launcher").endsWith("/bwrap");
                assertThat(c.get(helper + 8)).as("the seccomp program, in hex").matches("([0-9a-f]{16})+");
                assertThat(report.describe()).contains("toolyard-warm --exec-once between bubblewrap and the command, one exec",
                        "  cpuSeconds     RLIMIT_CPU, set by toolyard-warm --exec-once");
            } else {
                assertThat(report.canaryCommand()).contains("/usr/bin/setpriv", "--clear-groups", "--seccomp");
                assertThat(report.describe()).contains("setpriv and env -i between bubblewrap and the command, two execs",
                        "  cpuSeconds     RLIMIT_CPU, set by the launcher's ulimit");
            }
        }

        @Test
        void whenTheProcessIsNotRootTheCommandKeepsItsUidAndTheWriteRootIsNotHandedOver() throws IOException {
            // The effective uid is injected: the code path a non-root JVM takes, run here by root.
            TieredSandbox sandbox = TieredSandbox.builder().limits(LIMITS).which(Hosts.hiding("podman", "docker"))
                    .runsAsRoot(() -> false).build();
            Hosts.require(sandbox.isolationTier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + sandbox.report());
            Path work = writeRoot();
            int owner = uid(work);

            SubprocessResult r = sh(sandbox, work, "cat /proc/self/uid_map; touch made");

            assertThat(sandbox.report().runsAs()).isEqualTo("this process's uid (it is not root)");
            assertThat(sandbox.report().canaryCommand()).contains("--unshare-user", "--disable-userns").doesNotContain("/usr/bin/setpriv");
            assertThat(sandbox.report().limitEnforcement().get("processCount")).contains("this process's uid");
            assertThat(r.exitCode()).isZero();
            assertThat(uid(work)).as("the write root keeps its owner").isEqualTo(owner);
            assertThat(uid(work.resolve("made"))).as("created as this process's uid").isEqualTo(owner);
        }

        @Test
        void aProbeCutShortByAnInterruptionIsNotCached() {
            TieredSandbox sandbox = TieredSandbox.builder().which(Hosts.hiding("podman", "docker")).build();

            Thread.currentThread().interrupt();
            IsolationReport interrupted;
            try {
                interrupted = sandbox.report();
            } finally {
                Thread.interrupted();
            }
            IsolationReport next = sandbox.report();

            Hosts.require(next.tier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + next);
            assertThat(interrupted.tier()).as("the canary was stopped at once").isEqualTo(IsolationTier.UNAVAILABLE);
            assertThat(next).isNotSameAs(interrupted).isSameAs(sandbox.report());
        }

        @Test
        void startingAtBubblewrapSkipsTheContainerRungEvenWithAnImageAndTheReportSaysTheApplicationChoseIt() throws IOException {
            TieredSandbox sandbox = TieredSandbox.builder().containerImage(Hosts.IMAGE).limits(LIMITS)
                    .startAt(IsolationTier.BWRAP).build();

            IsolationReport report = sandbox.report();

            Hosts.require(report.tier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + report);
            assertThat(report.startAt()).isEqualTo(IsolationTier.BWRAP);
            assertThat(report.rungs()).extracting(IsolationReport.Rung::name).containsExactly("podman", "docker", "bwrap");
            assertThat(report.rungs().subList(0, 2)).extracting(IsolationReport.Rung::why)
                    .containsOnly("the application started the ladder at bubblewrap");
            assertThat(report.rungs().subList(0, 2)).noneMatch(IsolationReport.Rung::passed);
            assertThat(report.rungs().get(2).taken()).isTrue();
            assertThat(report.describe())
                    .contains("rungs, in ladder order (the application started it at bubblewrap):")
                    .contains("  podman  skipped: the application started the ladder at bubblewrap")
                    .contains("  docker  skipped: the application started the ladder at bubblewrap")
                    .contains("  bwrap   TAKEN:   bwrap at ");
            Path work = writeRoot();
            SubprocessResult r = sh(sandbox, work, "true");
            assertThat(r.tier()).isEqualTo(IsolationTier.BWRAP);
        }

        @Test
        void withTheDefaultStartAndAnImageTheSameHostTakesTheContainer() {
            TieredSandbox sandbox = Hosts.on(IsolationTier.CONTAINER);

            assertThat(sandbox.report().startAt()).isEqualTo(IsolationTier.CONTAINER);
            assertThat(sandbox.report().rungs()).extracting(IsolationReport.Rung::why)
                    .noneMatch(why -> why.contains("started the ladder"));
        }

        @Test
        void aSurveyTimesEveryRungSaysWhatEachEnforcesAndMarksTheOneTheLadderTakes() {
            Hosts.on(IsolationTier.CONTAINER);
            Hosts.on(IsolationTier.BWRAP);
            TieredSandbox sandbox = TieredSandbox.builder().containerImage(Hosts.IMAGE).limits(LIMITS)
                    .which(Hosts.hiding("docker")).build();

            IsolationReport survey = sandbox.survey();

            IsolationReport.Rung podman = survey.rungs().get(0);
            IsolationReport.Rung docker = survey.rungs().get(1);
            IsolationReport.Rung bwrap = survey.rungs().get(2);
            assertThat(survey.tier()).isEqualTo(IsolationTier.CONTAINER);
            assertThat(survey.rungs()).extracting(IsolationReport.Rung::standing).containsExactly("TAKEN", "skipped", "passed");
            for (IsolationReport.Rung r : List.of(podman, bwrap)) {
                assertThat(r.canaryTimes()).as(r.name()).hasSize(TieredSandbox.SURVEY_CANARY_RUNS);
                assertThat(r.canaryTime()).as(r.name()).isPresent();
                assertThat(r.canaryCommand()).as(r.name()).endsWith("/bin/true");
                assertThat(r.seccompFilterLoaded()).as(r.name()).isTrue();
                assertThat(r.limitEnforcement()).as(r.name())
                        .containsOnlyKeys("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
            }
            assertThat(podman.limitEnforcement().get("processCount")).startsWith("the container's pids cgroup");
            assertThat(bwrap.limitEnforcement().get("processCount")).startsWith("RLIMIT_NPROC");
            assertThat(podman.canaryCommand()).isEqualTo(survey.canaryCommand()).contains("--pull=never");
            assertThat(bwrap.canaryCommand()).contains("--unshare-net");
            assertThat(bwrap.why()).endsWith("not taken: podman is higher on the ladder");
            assertThat(docker.why()).isEqualTo("docker not found");
            assertThat(docker.canaryTime()).isEmpty();
            assertThat(docker.limitEnforcement()).isEmpty();
            assertThat(survey.describe()).contains("  podman  TAKEN:   podman at ", "  bwrap   passed:  bwrap at ");
        }

        @Test
        void aSurveyIsNotCachedAndLeavesTheSandboxsOwnProbeAlone() {
            TieredSandbox sandbox = TieredSandbox.builder().limits(LIMITS).which(Hosts.hiding("podman", "docker")).build();

            IsolationReport first = sandbox.survey();

            assertThat(sandbox.toString()).as("the survey is not the probe runs use").contains("not probed yet");
            IsolationReport second = sandbox.survey();
            IsolationReport report = sandbox.report();
            Hosts.require(report.tier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + report);
            assertThat(second).isNotSameAs(first);
            assertThat(first.tier()).isEqualTo(report.tier());
            assertThat(report.rungs().get(2).canaryTimes()).as("the ladder runs its canary once").hasSize(1);
            assertThat(first.rungs().get(2).canaryTimes()).hasSize(TieredSandbox.SURVEY_CANARY_RUNS);
            assertThat(sandbox.report()).isSameAs(report);
        }

        @Test
        void theProbeRunsOnceAndEveryCallerSharesItsReport() throws Exception {
            TieredSandbox sandbox = TieredSandbox.builder().which(Hosts.hiding("podman", "docker")).build();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Callable<IsolationReport>> calls = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    calls.add(sandbox::report);
                }
                List<IsolationReport> reports = new ArrayList<>();
                for (Future<IsolationReport> f : pool.invokeAll(calls)) {
                    reports.add(f.get());
                }
                assertThat(reports).allMatch(r -> r == reports.get(0));
                assertThat(sandbox.isolationTier()).isEqualTo(reports.get(0).tier());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Nested
    class Preconditions {
        private final TieredSandbox refusing = TieredSandbox.builder().which(name -> Optional.empty()).build();

        @Test
        void anEmptyArgvIsACallerBug() throws IOException {
            SandboxPaths ws = SandboxPaths.of(writeRoot());

            assertThatThrownBy(() -> refusing.runIsolated(List.of(), ws, TIMEOUT, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("argv");
            assertThatThrownBy(() -> refusing.runIsolated(Arrays.asList("/bin/true", null), ws, TIMEOUT, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("argv[1]");
            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/echo", "a\0b"), ws, TIMEOUT, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NUL");
        }

        @Test
        void aTimeoutThatIsNotPositiveIsACallerBug() throws IOException {
            SandboxPaths ws = SandboxPaths.of(writeRoot());

            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, Duration.ZERO, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("timeout must be positive, got PT0S");
            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, Duration.ofSeconds(-1), null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be positive");
        }

        @Test
        void anEnvironmentNameThatIsNotAPosixNameIsACallerBug() throws IOException {
            SandboxPaths ws = SandboxPaths.of(writeRoot());
            Map<String, String> withNull = new HashMap<>();
            withNull.put("A", null);

            for (String bad : List.of("", "-i", "A=B", "1ABC", "A B")) {
                assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, TIMEOUT, Map.of(bad, "v")))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("env names");
            }
            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, TIMEOUT, Map.of("A", "x\0y")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NUL");
            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, TIMEOUT, withNull))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("env value of A");
        }

        @Test
        void askingForTheNetworkIsACallerBug() throws IOException {
            SandboxPaths ws = SandboxPaths.of(writeRoot());

            assertThatThrownBy(() -> refusing.runIsolated(List.of("/bin/true"), ws, TIMEOUT, null, true))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("network");
        }

        @Test
        void theBuilderRejectsABadOutputCapAndABadImageNamingTheParameter() {
            assertThatThrownBy(() -> TieredSandbox.builder().outputCapBytes(255).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("outputCapBytes must be between 256");
            assertThatThrownBy(() -> TieredSandbox.builder().outputCapBytes(TieredSandbox.MAX_OUTPUT_CAP_BYTES + 1).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("outputCapBytes");
            for (String image : List.of("", "--privileged", "ubuntu latest", "a\nb")) {
                assertThatThrownBy(() -> TieredSandbox.builder().containerImage(image).build())
                        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("containerImage");
            }
            assertThatThrownBy(() -> TieredSandbox.builder().limits(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> TieredSandbox.builder().which(null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        void theBuilderRefusesSandboxIdsThatAreRootNobodyNegativeOrTooHighNamingTheParameter() {
            for (int bad : new int[] {-1, 0, Integer.MIN_VALUE}) {
                assertThatThrownBy(() -> TieredSandbox.builder().sandboxUid(bad).build())
                        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandboxUid must be at least 1");
                assertThatThrownBy(() -> TieredSandbox.builder().sandboxGid(bad).build())
                        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandboxGid must be at least 1");
            }
            assertThatThrownBy(() -> TieredSandbox.builder().sandboxUid(65534).sandboxIdCount(1).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandboxUid must not make 65534 (nobody)");
            assertThatThrownBy(() -> TieredSandbox.builder().sandboxGid(65500).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandboxGid must not make 65534 (nobody)");
            assertThatThrownBy(() -> TieredSandbox.builder().sandboxUid(Integer.MAX_VALUE - 10).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandboxUid");
            assertThatThrownBy(() -> TieredSandbox.builder().sandboxIdCount(0).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("sandboxIdCount must be at least 1, got 0");
        }

        @Test
        void theBuilderRefusesSandboxIdsAUserOrGroupHas() {
            List<String> passwd = List.of("root:x:0:0:root:/root:/bin/bash", "alice:x:5000:5000::/home/alice:/bin/bash");

            assertThatThrownBy(() -> IdBlockCheck.checkIds("sandboxUid", 4990, 16, passwd))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sandboxUid must be ids no user or group has, but 5000 (of 4990..5005) is alice's");
            IdBlockCheck.checkIds("sandboxUid", 5001, 16, passwd);
            assertThatThrownBy(() -> IdBlockCheck.checkSubordinateIds("sandboxGid", 165000, 1000,
                    List.of("alice:100000:65536")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sandboxGid must be ids no user's containers are given, but 165000..165999 overlaps "
                            + "alice's subordinate ids 100000..165535");
            IdBlockCheck.checkSubordinateIds("sandboxUid", 165536, 64, List.of("alice:100000:65536"));
            assertThatThrownBy(() -> TieredSandbox.builder().sandboxUid(1).build())
                    .as("uid 1 is a user's on every Debian host (daemon)").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sandboxUid must be ids no user or group has");
        }

        @Test
        void theBuilderRefusesToStartTheLadderBelowBubblewrapNamingTheParameter() {
            assertThatThrownBy(() -> TieredSandbox.builder().startAt(IsolationTier.UNAVAILABLE).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("startAt must be GVISOR, CONTAINER or BWRAP, got UNAVAILABLE")
                    .hasMessageContaining("nothing ever runs unisolated");
            assertThatThrownBy(() -> TieredSandbox.builder().startAt(null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("startAt");
        }

        @Test
        void theDefaultsAreTheDocumentedOnes() {
            TieredSandbox sandbox = TieredSandbox.builder().build();

            assertThat(sandbox.limits()).isEqualTo(ResourceLimits.defaults());
            assertThat(sandbox.toString()).contains("not probed yet", "from container", "image none");
        }
    }

    @Nested
    class ThePathHalf {
        private final TieredSandbox sandbox = TieredSandbox.builder().which(name -> Optional.empty()).build();

        @Test
        void delegatesToPathContainmentWithoutProbing() throws IOException {
            Path work = writeRoot();
            Files.writeString(work.resolve("notes.md"), "hi");
            SandboxPaths ws = SandboxPaths.of(work);

            assertThat(sandbox.resolveRead("notes.md", ws).path()).isEqualTo(work.toRealPath().resolve("notes.md"));
            assertThat(sandbox.resolveRead("../x", ws).isInside()).isFalse();
            assertThat(sandbox.resolveWrite("new/file.txt", ws).isInside()).isTrue();
            assertThat(sandbox.resolveWrite("/etc/passwd", ws).isInside()).isFalse();
            assertThat(sandbox.toString()).contains("not probed yet");
        }
    }
}
