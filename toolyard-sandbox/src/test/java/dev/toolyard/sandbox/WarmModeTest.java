package dev.toolyard.sandbox;

import static dev.toolyard.sandbox.Hosts.LIMITS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What warm mode guarantees between commands, on each rung, for real: nothing one command leaves
 * (a daemon, a fork bomb, a process that ignores SIGTERM, files in {@code /tmp} or {@code /dev/shm},
 * System V IPC) reaches the next; a sandbox that misbehaved is discarded and the next command is
 * answered by a fresh one; workspaces never share a sandbox; the pool's policy (reuse, idle expiry,
 * total cap, warm-up, close) holds and leaves no process behind.
 */
@Tag("isolation")
class WarmModeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final List<TieredSandbox> opened = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void closeEverySandbox() {
        opened.forEach(TieredSandbox::close);
    }

    private TieredSandbox warm(IsolationTier tier, TieredSandbox.Builder b) {
        TieredSandbox s = b.warm(true).build();
        opened.add(s);
        Hosts.require(s.isolationTier() == tier, "the " + tier.wireName() + " rung is not available on this host "
                + "(run .ci/setup-sandbox.sh as root to install it):\n" + s.report().describe());
        assertThat(s.report().warmMode()).startsWith("on, ");
        return s;
    }

    private TieredSandbox warm(IsolationTier tier) {
        return warm(tier, Hosts.builder(tier, LIMITS));
    }

    private Path workspace(String name) throws IOException {
        return Files.createDirectories(tmp.resolve(name));
    }

    private static SubprocessResult sh(TieredSandbox s, Path work, String script) {
        return s.runIsolated(List.of("/bin/sh", "-c", script), SandboxPaths.of(work), TIMEOUT, Map.of("PATH", "/usr/bin:/bin"));
    }

    private static long starts(TieredSandbox s) {
        return s.warmCounts()[2];
    }

    private static long discarded(TieredSandbox s) {
        return s.warmCounts()[3];
    }

    /**
     * @return the host pids of supervisors whose command line names {@code writeRoot}; on gVisor, whose
     *     sandboxed processes are not host processes, the pids of the warm containers' podman clients,
     *     one per warm sandbox, which live exactly as long as their sandbox
     */
    private static List<Long> supervisorsOf(IsolationTier tier, Path writeRoot) {
        List<Long> pids = new ArrayList<>();
        for (long pid : Hosts.processesMentioning(writeRoot.toString())) {
            try {
                String cmdline = Files.readString(Path.of("/proc/" + pid + "/cmdline"));
                boolean supervisor = tier == IsolationTier.GVISOR
                        ? cmdline.split("\0")[0].endsWith("/podman") && cmdline.contains("\0/toolyard-warm\0")
                        : cmdline.startsWith("/toolyard-warm\0");
                if (supervisor) {
                    pids.add(pid);
                }
            } catch (IOException e) {
                // gone
            }
        }
        return pids;
    }

    /**
     * Kills a warm sandbox's supervisor from outside: the host process, or on gVisor the supervisor
     * inside the container named on the client's command line ({@code podman kill}: pid 1 of the
     * container, in gVisor's kernel).
     */
    private static void killSupervisor(IsolationTier tier, long pid) throws IOException, InterruptedException {
        if (tier != IsolationTier.GVISOR) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            return;
        }
        List<String> argv = List.of(Files.readString(Path.of("/proc/" + pid + "/cmdline")).split("\0"));
        String name = argv.get(argv.indexOf("--name") + 1);
        Process kill = new ProcessBuilder(argv.get(0), "kill", "--signal", "KILL", name).redirectErrorStream(true).start();
        String said = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(kill.waitFor()).as("podman kill " + name + ": " + said).isZero();
    }

    /** Waits, at most {@code seconds}, until {@code done} holds; the assertion after it says whether it did. */
    static void await(int seconds, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private static void awaitNone(String token) throws InterruptedException {
        await(20, () -> Hosts.processesMentioning(token).isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void cleanCommandsInOneWorkspaceShareOneSandboxAndEachStillRunsAsTheSandboxUidInTheWriteRoot(IsolationTier tier)
            throws IOException {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        List<String> pids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            SubprocessResult r = sh(s, work, "echo $$; pwd; id -u; ps -o sid= -p $$; echo $i > n$RANDOM; exit " + (i % 3));
            assertThat(r.exitCode()).isEqualTo(i % 3);
            List<String> lines = r.stdout().lines().toList();
            assertThat(lines.get(1)).isEqualTo(work.toRealPath().toString());
            assertThat(Long.parseLong(lines.get(2))).isNotZero();
            assertThat(lines.get(3).strip()).as("each command leads a session of its own").isEqualTo(lines.get(0));
            pids.add(lines.get(0));
        }
        assertThat(starts(s)).as("sandboxes started for 20 clean commands in one workspace").isEqualTo(1);
        assertThat(discarded(s)).isZero();
        assertThat(supervisorsOf(tier, work.toRealPath())).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aDaemonAndAProcessIgnoringSigtermAreGoneBeforeTheNextCommandWhichAFreshSandboxAnswers(IsolationTier tier)
            throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        String token = "77" + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000);
        SubprocessResult first = sh(s, work, "(trap '' TERM; exec sleep " + token + ") & "
                + "(setsid sh -c 'trap \"\" TERM HUP; sleep " + token + "1' &) ; echo started");
        assertThat(first.stdout()).contains("started");
        assertThat(Hosts.processesMentioning("sleep\0" + token)).as("leftovers on the host after the command").isEmpty();
        SubprocessResult second = sh(s, work, "ps -eo args | grep -c '[s]leep " + token + "' || true");
        assertThat(second.stdout().strip()).isEqualTo("0");
        assertThat(discarded(s)).as("a sandbox whose command left processes is not used again").isEqualTo(1);
        assertThat(starts(s)).isGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aForkBombLeavesTheNextCommandItsWholeProcessLimit(IsolationTier tier) throws IOException {
        // On gVisor a fork costs tens of ms of the command's CPU: 10 CPU seconds there, the same process limit.
        TieredSandbox s = warm(tier, Hosts.builder(tier, tier == IsolationTier.GVISOR ? Hosts.FORKING_ON_GVISOR : LIMITS));
        Path work = workspace("work");
        SubprocessResult bomb = sh(s, work, "n=0; while [ $n -lt 200 ]; do sleep 30 & n=$((n+1)); done; echo spawned");
        assertThat(bomb.stdout() + bomb.stderr()).containsAnyOf("spawned", "fork", "Resource");
        // LIMITS allow 16 processes: the next command can use nearly all of them again.
        SubprocessResult next = sh(s, work, "n=0; while [ $n -lt 12 ]; do sleep 0.2 & n=$((n+1)); done; wait; echo ok");
        assertThat(next.stdout()).contains("ok");
        assertThat(next.stderr()).doesNotContain("fork");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void whatACommandWritesOutsideTheWriteRootAndItsSystemVIpcAreGoneForTheNextOne(IsolationTier tier)
            throws IOException {
        if (tier == IsolationTier.GVISOR) {
            whatACommandWritesOutsideTheWriteRootIsGoneAndSystemVIpcIsRefusedOnGvisor();
            return;
        }
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        SubprocessResult first = sh(s, work, "echo secret > /tmp/left; mkdir -p /tmp/d/e; echo x > /tmp/d/e/f; chmod 0 /tmp/d; "
                + "echo y > /dev/shm/left; ipcmk -M 4096 >/dev/null && ipcmk -Q >/dev/null && ipcmk -S 1 >/dev/null; "
                + "ipcs | grep -c '^0x'; echo kept > kept");
        assertThat(first.exitCode()).isZero();
        assertThat(first.stdout().strip()).isEqualTo("3");
        SubprocessResult second = sh(s, work, "ls -A /tmp /dev/shm; ipcs | grep -c '^0x'; cat kept");
        assertThat(second.stdout()).doesNotContain("left", "d\n");
        assertThat(second.stdout()).contains("\n0\n", "kept");
        assertThat(starts(s)).as("a wiped sandbox is used again").isEqualTo(1);
    }

    /**
     * On gVisor: the files of {@code /tmp}, {@code /var/tmp}, {@code /dev/shm} and {@code /run} (1777
     * there) are gone for the next command; System V objects, which gVisor's kernel cannot list
     * (no {@code /proc/sysvipc}), cannot be created at all ({@code EPERM} from the warm filter), with
     * or without a key. Python's {@code os.listdir}, since gVisor refuses coreutils' {@code statx}.
     */
    private void whatACommandWritesOutsideTheWriteRootIsGoneAndSystemVIpcIsRefusedOnGvisor() throws IOException {
        TieredSandbox s = warm(IsolationTier.GVISOR, Hosts.builder(IsolationTier.GVISOR, Hosts.ROOMY));
        Path work = workspace("work");
        SubprocessResult first = s.runIsolated(List.of("/usr/bin/python3", "-c", String.join("\n",
                "import ctypes, os",
                "for d in ('/tmp', '/var/tmp', '/dev/shm', '/run'):",
                "    open(d + '/left', 'w').write('secret'); os.makedirs(d + '/d/e'); open(d + '/d/e/f', 'w').close(); os.chmod(d + '/d', 0)",
                "libc = ctypes.CDLL(None, use_errno=True)",
                "got = []",
                "for call, args in (('shmget', (0, 4096, 0o1600)), ('shmget', (1234, 4096, 0o1600)), ('semget', (0, 1, 0o1600)),",
                "        ('msgget', (0, 0o1600))):",
                "    r = getattr(libc, call)(*args); got.append((call, r, ctypes.get_errno()))",
                "print(got)",
                "open('kept', 'w').write('kept')")), SandboxPaths.of(work), TIMEOUT, Map.of());
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(first.stdout().strip()).isEqualTo("[('shmget', -1, 1), ('shmget', -1, 1), ('semget', -1, 1), ('msgget', -1, 1)]");
        SubprocessResult second = s.runIsolated(List.of("/usr/bin/python3", "-c",
                "import os; print([sorted(os.listdir(d)) for d in ('/tmp', '/var/tmp', '/dev/shm', '/run')], open('kept').read())"),
                SandboxPaths.of(work), TIMEOUT, Map.of());
        assertThat(second.stdout()).doesNotContain("left", "'d'").contains("kept");
        assertThat(starts(s)).as("a wiped sandbox is used again").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void posixMessageQueuesAreRefusedBecauseTheyCouldNotBeWiped(IsolationTier tier) throws IOException {
        TieredSandbox s = warm(tier, Hosts.builder(tier, Hosts.ROOMY));
        Path work = workspace("work");
        SubprocessResult r = sh(s, work, "python3 -c 'import ctypes, os\n"
                + "rt = ctypes.CDLL(\"librt.so.1\", use_errno=True)\n"
                + "fd = rt.mq_open(b\"/toolyard\", os.O_CREAT | os.O_RDWR, 0o600, None)\n"
                + "print(fd, ctypes.get_errno())'");
        assertThat(r.stdout().strip()).isEqualTo("-1 1");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aTimeoutOrAnOutputFloodSpendsTheSandboxAndTheNextCommandRunsInAFreshOne(IsolationTier tier) throws IOException {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        SubprocessResult slow = s.runIsolated(List.of("/bin/sleep", "30"), SandboxPaths.of(work), Duration.ofMillis(500), null);
        assertThat(slow.timedOut()).isTrue();
        assertThat(sh(s, work, "echo after").stdout()).isEqualTo("after\n");
        SubprocessResult flood = s.runIsolated(List.of("/usr/bin/yes"), SandboxPaths.of(work), TIMEOUT, null);
        assertThat(flood.outputTruncated()).isTrue();
        assertThat(flood.timedOut()).isFalse();
        assertThat(sh(s, work, "echo again").stdout()).isEqualTo("again\n");
        assertThat(discarded(s)).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aSupervisorKilledFromOutsideIsReplacedAndTheCommandIsNeverRunUnisolated(IsolationTier tier) throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        assertThat(sh(s, work, "echo one").stdout()).isEqualTo("one\n");
        List<Long> supervisors = supervisorsOf(tier, work.toRealPath());
        assertThat(supervisors).hasSize(1);
        killSupervisor(tier, supervisors.get(0));
        await(10, () -> !ProcessHandle.of(supervisors.get(0)).map(ProcessHandle::isAlive).orElse(false));
        SubprocessResult r = sh(s, work, "id -u; cat /proc/1/cmdline | tr '\\0' ' '");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout().lines().findFirst().orElseThrow()).isNotEqualTo("0");
        assertThat(r.stdout()).contains("/toolyard-warm");
        assertThat(supervisorsOf(tier, work.toRealPath())).hasSize(1).doesNotContain(supervisors.get(0));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aSupervisorLostAfterItStartedTheCommandRaisesAndTheCommandIsNeverRunTwice(IsolationTier tier) throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        assertThat(sh(s, work, "true").exitCode()).isZero();
        List<Long> supervisors = supervisorsOf(tier, work.toRealPath());
        assertThat(supervisors).hasSize(1);
        Thread killer = new Thread(() -> {
            try {
                await(20, () -> Files.exists(work.resolve("started")));
                killSupervisor(tier, supervisors.get(0));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        killer.start();

        assertThatThrownBy(() -> sh(s, work, "echo run >> runs; echo > started; exec sleep 30"))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("ended while the command ran");
        killer.join();
        assertThat(Files.readString(work.resolve("runs"))).as("the command ran once").isEqualTo("run\n");
        assertThat(sh(s, work, "echo after").stdout()).as("the next command gets a fresh sandbox").isEqualTo("after\n");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aCommandThatCannotBeFoundOrRunExitsWith127Or126AsEnvWouldAndTheSandboxStaysWarm(IsolationTier tier)
            throws IOException {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        SubprocessResult missing = s.runIsolated(List.of("no-such-command-here"), SandboxPaths.of(work), TIMEOUT,
                Map.of("PATH", "/usr/bin:/bin"));
        SubprocessResult notExecutable = s.runIsolated(List.of("/etc/passwd"), SandboxPaths.of(work), TIMEOUT, null);

        assertThat(missing.exitCode()).isEqualTo(127);
        assertThat(missing.stderr()).contains("no-such-command-here");
        assertThat(notExecutable.exitCode()).isEqualTo(126);
        assertThat(starts(s)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void differentWorkspacesNeverShareASandbox(IsolationTier tier) throws IOException {
        TieredSandbox s = warm(tier);
        Path a = workspace("a");
        Path b = workspace("b");
        sh(s, a, "echo from-a > /tmp/mark");
        SubprocessResult inB = sh(s, b, "cat /tmp/mark 2>&1; ls " + a.toRealPath() + " 2>&1; pwd");
        assertThat(inB.stdout()).doesNotContain("from-a").contains(b.toRealPath().toString());
        assertThat(starts(s)).isEqualTo(2);
        assertThat(supervisorsOf(tier, a.toRealPath())).hasSize(1);
        assertThat(supervisorsOf(tier, b.toRealPath())).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aFileTheApplicationWritesBetweenCommandsIsTheNextCommandsToChange(IsolationTier tier) throws IOException {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        assertThat(sh(s, work, "true").exitCode()).isZero();
        Path note = Files.writeString(work.resolve("note.txt"), "from the application\n"); // root's, as write_file leaves it
        SubprocessResult r = sh(s, work, "echo from the command >> note.txt && cat note.txt");
        assertThat(r.stdout()).isEqualTo("from the application\nfrom the command\n");
        assertThat((Integer) Files.getAttribute(note, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isNotZero();
        assertThat(starts(s)).isEqualTo(1);
    }

    @Test
    void idleSandboxesExpireAndTheTotalCapHoldsAcrossWorkspaces() throws Exception {
        TieredSandbox s = warm(IsolationTier.BWRAP, Hosts.builder(IsolationTier.BWRAP, LIMITS)
                .warmIdleTimeout(Duration.ofMillis(400)).warmMaxTotal(2));
        Path a = workspace("a");
        Path b = workspace("b");
        Path c = workspace("c");
        for (Path p : List.of(a, b, c)) {
            assertThat(sh(s, p, "echo ok").stdout()).isEqualTo("ok\n");
            assertThat(s.warmCounts()[0]).as("warm sandboxes alive").isLessThanOrEqualTo(2);
        }
        assertThat(starts(s)).isEqualTo(3);
        await(10, () -> s.warmCounts()[0] == 0);
        assertThat(s.warmCounts()[0]).as("alive after the idle timeout").isZero();
        for (Path p : List.of(a, b, c)) {
            awaitNone(p.toRealPath().toString());
            assertThat(supervisorsOf(IsolationTier.BWRAP, p.toRealPath())).isEmpty();
        }
    }

    @Test
    void warmUpStartsTheSandboxAheadAndCloseEndsEveryProcessAfterWhichRunsAreCold() throws Exception {
        TieredSandbox s = warm(IsolationTier.BWRAP);
        Path work = workspace("work");
        s.warmUp(SandboxPaths.of(work));
        await(10, () -> s.warmCounts()[1] >= 1);
        assertThat(s.warmCounts()[1]).as("idle, warmed up ahead").isEqualTo(1);
        assertThat(sh(s, work, "echo warm").stdout()).isEqualTo("warm\n");
        assertThat(starts(s)).isEqualTo(1);
        s.close();
        awaitNone(work.toRealPath().toString());
        assertThat(Hosts.processesMentioning(work.toRealPath().toString())).isEmpty();
        // The init of a cold run is bubblewrap's own, not the supervisor (whose path a cold line as root also names).
        SubprocessResult cold = sh(s, work, "cat /proc/1/comm");
        assertThat(cold.stdout()).isEqualTo("bwrap\n");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void noProcessOfThePoolOutlivesAJvmKilledWhileOneSandboxIsIdleAndAnotherRunsACommand(IsolationTier tier)
            throws Exception {
        Hosts.require(tier != IsolationTier.CONTAINER || Hosts.root(), "podman needs root here");
        Path busy = workspace("busy").toRealPath();
        Path idle = workspace("idle").toRealPath();
        String token = "88" + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WarmChild.class.getName(), tier.name(), busy.toString(),
                idle.toString(), token)
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("child.txt").toFile())
                .start();
        try {
            await(60, () -> Files.exists(busy.resolve("started")) || !child.isAlive());
            assertThat(busy.resolve("started")).as(Files.readString(tmp.resolve("child.txt"))).exists();
            assertThat(supervisorsOf(tier, busy)).hasSize(1);
            assertThat(supervisorsOf(tier, idle)).hasSize(1);
            if (tier != IsolationTier.GVISOR) { // gVisor's sandboxed processes are not host processes
                assertThat(Hosts.processesMentioning("sleep\0" + token)).hasSize(1);
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        await(20, () -> supervisorsOf(tier, busy).isEmpty() && supervisorsOf(tier, idle).isEmpty()
                && Hosts.processesMentioning("sleep\0" + token).isEmpty());
        assertThat(supervisorsOf(tier, busy)).as("the busy sandbox's supervisor").isEmpty();
        assertThat(supervisorsOf(tier, idle)).as("the idle sandbox's supervisor").isEmpty();
        assertThat(Hosts.processesMentioning("sleep\0" + token)).as("the command").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void anInterruptedCallerStopsTheCommandAsAColdRunWouldAndTheNextCommandRunsInAFreshSandbox(IsolationTier tier)
            throws Exception {
        TieredSandbox s = warm(tier);
        Path work = workspace("work");
        assertThat(sh(s, work, "true").exitCode()).isZero();
        Thread caller = Thread.currentThread();
        Thread interrupter = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.exists(work.resolve("started")) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            caller.interrupt();
        });
        interrupter.start();
        SubprocessResult r = sh(s, work, "echo > started; exec sleep 60");
        boolean interrupted = Thread.interrupted();
        interrupter.join();

        assertThat(interrupted).as("the interrupt flag is set again").isTrue();
        assertThat(r.timedOut()).isTrue();
        assertThat(sh(s, work, "echo next").stdout()).isEqualTo("next\n");
        assertThat(discarded(s)).isEqualTo(1);
    }

    @Test
    void whenTheProcessIsNotRootWarmModeIsUnavailableSaysWhyAndRunsAreCold() throws IOException {
        TieredSandbox s = Hosts.builder(IsolationTier.BWRAP, LIMITS).runsAsRoot(() -> false).warm(true).build();
        opened.add(s);
        Hosts.require(s.isolationTier() == IsolationTier.BWRAP, "bubblewrap is not available:\n" + s.report().describe());

        assertThat(s.report().warmMode()).startsWith("asked for, but unavailable on bwrap: warm mode needs this process to be root");
        SubprocessResult r = sh(s, workspace("work"), "cat /proc/1/cmdline | tr '\\0' ' '");
        assertThat(r.stdout()).doesNotContain("toolyard-warm");
        assertThat(s.warmCounts()[2]).isZero();
    }

    @Test
    void theBuilderRefusesABadWarmPolicyNamingTheParameter() {
        assertThatThrownBy(() -> TieredSandbox.builder().warmPerWorkspace(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmPerWorkspace");
        assertThatThrownBy(() -> TieredSandbox.builder().warmPerWorkspace(3).warmMaxTotal(2).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmMaxTotal");
        assertThatThrownBy(() -> TieredSandbox.builder().sandboxIdCount(8).warmMaxTotal(8).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmMaxTotal");
        assertThatThrownBy(() -> TieredSandbox.builder().warmIdleTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmIdleTimeout");
        assertThatThrownBy(() -> TieredSandbox.builder().warmIdleTimeout(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void warmModeIsOffByDefaultAndTheReportSaysSo() {
        TieredSandbox s = Hosts.builder(IsolationTier.BWRAP, LIMITS).build();
        assertThat(s.report().warmMode()).startsWith("off");
        assertThat(s.report().describe()).contains("warm mode: off");
    }

    @Test
    void theSurveyReportsWhatAWarmStartAndAWarmCommandCostPerRung() {
        TieredSandbox s = Hosts.builder(IsolationTier.CONTAINER, LIMITS).build();
        IsolationReport survey = s.survey();
        Hosts.require(survey.warmByRung().containsKey("podman") && survey.warmByRung().containsKey("bwrap"),
                "both rungs must pass for the survey to time both:\n" + survey.describe());
        assertThat(survey.warmByRung().get("bwrap")).startsWith("can run warm: a warm start and its first /bin/true took ");
        assertThat(survey.warmByRung().get("podman")).startsWith("can run warm: a warm start and its first /bin/true took ");
        assertThat(survey.describe()).contains("warm mode: off", "each further warm /bin/true, median of 5");
    }
}
