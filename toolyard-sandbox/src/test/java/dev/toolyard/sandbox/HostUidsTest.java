package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sandbox uids across runs, sandboxes and processes of one host (issue 22, §2 finding 1 and §3): nested
 * workspaces never run as one uid at once, a warm sandbox's uid is its own even while it idles, two JVMs
 * with default settings never lend one uid, and a JVM killed with SIGKILL mid-run leaves no process and
 * no container behind and frees its uids for the next JVM.
 */
class HostUidsTest {
    /** The default uid block, which the child JVMs use. */
    private static final int FIRST = TieredSandbox.DEFAULT_SANDBOX_UID;
    private static final int COUNT = TieredSandbox.DEFAULT_SANDBOX_ID_COUNT;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void runsOfAWorkspaceAndOfOneNestedInItNeverRunAsOneUidAtOnce(IsolationTier tier) throws Exception {
        Hosts.require(Hosts.root(), "the test JVM is not root, so runs keep its uid");
        TieredSandbox s = Hosts.on(tier);
        Path w = Files.createDirectory(tmp.resolve("w")).toRealPath();
        Path sub = Files.createDirectory(w.resolve("sub"));
        Path fifo = w.resolve("hold");
        new ProcessBuilder("mkfifo", "-m", "666", fifo.toString()).start().waitFor();
        // The outer run prints its uid and holds until the test writes to the FIFO.
        CompletableFuture<SubprocessResult> outer = CompletableFuture.supplyAsync(() -> s.runIsolated(
                List.of("/bin/sh", "-c", "id -u > outer.uid; read x < hold; id -u"), SandboxPaths.of(w),
                Duration.ofSeconds(60), null));
        await(60, () -> Files.exists(w.resolve("outer.uid")));
        CompletableFuture<SubprocessResult> inner = CompletableFuture.supplyAsync(() -> s.runIsolated(
                List.of("/bin/sh", "-c", "id -u > inner.uid; id -u"), SandboxPaths.of(sub), Duration.ofSeconds(60), null));
        Thread.sleep(1_000);
        assertThat(sub.resolve("inner.uid")).as("the run on W/sub has not started while W's run holds its uid").doesNotExist();
        assertThat(inner).isNotDone();

        Files.writeString(fifo, "go\n");
        SubprocessResult o = outer.get(60, TimeUnit.SECONDS);
        SubprocessResult i = inner.get(60, TimeUnit.SECONDS);
        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(i.exitCode()).as(i.stderr()).isZero();
        assertThat(o.stdout().strip()).isEqualTo(Files.readString(w.resolve("outer.uid")).strip());
        assertThat(i.stdout().strip()).isEqualTo(Files.readString(sub.resolve("inner.uid")).strip());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void anIdleWarmSandboxKeepsItsUidFromEveryColdRunOfItsWorkspace(IsolationTier tier) throws Exception {
        Hosts.require(Hosts.root(), "warm mode needs the test JVM to be root");
        TieredSandbox warm = Hosts.warm(tier);
        TieredSandbox cold = Hosts.on(tier);
        Path w = Files.createDirectory(tmp.resolve("w")).toRealPath();

        SubprocessResult first = warm.runIsolated(List.of("/bin/sh", "-c", "id -u"), SandboxPaths.of(w), Duration.ofSeconds(60), null);
        long served = warm.warmRunsServed();
        SubprocessResult meanwhile = cold.runIsolated(List.of("/bin/sh", "-c", "id -u"), SandboxPaths.of(w),
                Duration.ofSeconds(60), null);
        SubprocessResult again = warm.runIsolated(List.of("/bin/sh", "-c", "id -u; touch mine"), SandboxPaths.of(w),
                Duration.ofSeconds(60), null);

        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(again.exitCode()).as(again.stderr()).isZero();
        assertThat(warm.warmRunsServed()).as("both warm runs were served warm").isGreaterThan(served);
        assertThat(again.stdout().strip()).as("one warm sandbox served both").isEqualTo(first.stdout().strip());
        assertThat(meanwhile.stdout().strip()).as("the cold run got a uid of its own, not the idle sandbox's")
                .isNotEqualTo(first.stdout().strip());
        assertThat(Files.getAttribute(w.resolve("mine"), "unix:uid").toString())
                .as("the warm command could write W again after the cold run had it").isEqualTo(again.stdout().strip());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"CONTAINER", "BWRAP"})
    void twoJvmsWithDefaultSettingsNeverShareAUidAndAJvmKilledMidRunLeavesNothingAndFreesItsUids(IsolationTier tier)
            throws Exception {
        Hosts.require(Hosts.root(), "the test JVM is not root, so runs keep its uid");
        Hosts.on(tier); // skips (or fails in CI) where the rung is missing
        Thread.sleep(5_000); // the idle warm sandboxes of earlier tests in this JVM end (2 s) and give their uids back
        String token = "77" + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000);
        List<Path> a = workspaces("a", 2);
        List<Path> b = workspaces("b", 2);
        List<Path> c = workspaces("c", 2);
        List<Process> children = new ArrayList<>();
        try {
            Path tmpOfAAndC = tmp.resolve("java-tmp-a-and-c");
            Process jvmA = child(tier, token, a, "a", tmpOfAAndC);
            children.add(jvmA);
            Process jvmB = child(tier, token, b, "b", tmp.resolve("java-tmp-b"));
            children.add(jvmB);
            Set<Integer> uidsA = uids(a);
            Set<Integer> uidsB = uids(b);
            assertThat(uidsA).hasSize(2);
            assertThat(uidsB).hasSize(2).doesNotContainAnyElementsOf(uidsA);
            Set<Integer> running = new TreeSet<>(uidsA);
            running.addAll(uidsB);
            await(30, () -> processUids(token).equals(running)); // each writes its uid just before it execs the sleeper
            assertThat(processUids(token)).as("the commands run as the uids they wrote").isEqualTo(running);

            jvmA.destroyForcibly(); // SIGKILL
            assertThat(jvmA.waitFor(30, TimeUnit.SECONDS)).isTrue();
            await(60, () -> processesOf(uidsA).isEmpty() && (tier != IsolationTier.CONTAINER || containers().size() == 2));
            assertThat(processesOf(uidsA)).as("no process of the killed JVM's uids (sandbox %s, bwrap or podman's)", uidsA)
                    .isEmpty();
            if (tier == IsolationTier.CONTAINER) {
                assertThat(containers()).as("only the live JVM's containers").hasSize(2);
            }
            assertThat(processUids(token)).as("the other JVM's commands run on").isEqualTo(uidsB);

            for (int uid : uidsA) {
                assertThat(lockable(uid)).as("the kernel dropped the killed JVM's lock on uid %d", uid).isTrue();
            }
            List<Path> leftByA = privateDirectories(tmpOfAAndC);
            assertThat(leftByA).as("the killed JVM could not remove its private directory").hasSize(1);
            children.add(child(tier, token, c, "c", tmpOfAAndC));
            assertThat(privateDirectories(tmpOfAAndC)).as("the next JVM removed the killed one's and wrote its own")
                    .hasSize(1).doesNotContainAnyElementsOf(leftByA);
            Set<Integer> uidsC = uids(c);
            int lowestOfA = uidsA.iterator().next();
            // A new JVM is lent the lowest free uids: the killed JVM's, or lower ones this JVM released meanwhile.
            assertThat(uidsC).hasSize(2).doesNotContainAnyElementsOf(uidsB)
                    .allMatch(u -> uidsA.contains(u) || u < lowestOfA, "one of the killed JVM's uids " + uidsA + " or lower");
            assertThat(uidsC).as("a new JVM is lent a uid the killed one held").containsAnyElementsOf(
                    uidsA.stream().filter(u -> u >= lowestOfA).toList());
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
        await(60, () -> processesOfBlock().isEmpty() && (tier != IsolationTier.CONTAINER || containers().isEmpty()));
        assertThat(processesOfBlock()).as("no process of the default uid block once every JVM was killed").isEmpty();
        if (tier == IsolationTier.CONTAINER) {
            assertThat(containers()).as("podman ps -a --filter name=toolyard").isEmpty();
        }
    }

    @Test
    void theBlockScanSeesAProcessOfTheBlock() throws Exception {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot switch uids");
        Process p = new ProcessBuilder("setpriv", "--reuid=" + (FIRST + COUNT - 1), "--regid=" + (FIRST + COUNT - 1),
                "--clear-groups", "sleep", "30").start();
        try {
            await(10, () -> processesOfBlock().contains(p.pid()));
            assertThat(processesOfBlock()).contains(p.pid());
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    /** @return whether another process can lock uid's lock file now (a POSIX record lock, as the pool takes) */
    private static boolean lockable(int uid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                + "fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", "/run/toolyard/uids/" + Integer.toUnsignedString(uid) + ".lock")
                .redirectErrorStream(true).start();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    private List<Path> workspaces(String prefix, int n) throws IOException {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Files.createDirectory(tmp.resolve(prefix + i)).toRealPath());
        }
        return out;
    }

    private Process child(IsolationTier tier, String token, List<Path> workspaces, String name, Path javaTmp)
            throws IOException, InterruptedException {
        Files.createDirectories(javaTmp);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + javaTmp, "-cp", System.getProperty("java.class.path"), UidChild.class.getName(), tier.name(), token));
        workspaces.forEach(w -> cmd.add(w.toString()));
        Path log = tmp.resolve(name + ".txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        await(120, () -> workspaces.stream().allMatch(w -> Files.exists(w.resolve("uid"))) || !p.isAlive());
        for (Path w : workspaces) {
            assertThat(w.resolve("uid")).as("JVM %s said: %s", name, Files.readString(log)).exists();
        }
        return p;
    }

    private static List<Path> privateDirectories(Path javaTmp) throws IOException {
        try (Stream<Path> s = Files.list(javaTmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("toolyard-sandbox-")).toList();
        }
    }

    private static Set<Integer> uids(List<Path> workspaces) throws IOException {
        Set<Integer> out = new TreeSet<>();
        for (Path w : workspaces) {
            out.add(Integer.parseUnsignedInt(Files.readString(w.resolve("uid")).strip()));
        }
        return out;
    }

    /** @return the real uids of the processes whose argv holds {@code sleep <token>} */
    private static Set<Integer> processUids(String token) {
        Set<Integer> out = new TreeSet<>();
        for (long pid : Hosts.processesMentioning("sleep\0" + token)) {
            Integer uid = realUid(pid);
            if (uid != null) {
                out.add(uid);
            }
        }
        return out;
    }

    private static List<Long> processesOf(Set<Integer> uids) {
        List<Long> out = new ArrayList<>();
        for (long pid : allPids()) {
            Integer uid = realUid(pid);
            if (uid != null && uids.contains(uid)) {
                out.add(pid);
            }
        }
        return out;
    }

    /** @return the processes any of whose uids lies in the default block (a scan of /proc/PID/status) */
    private static List<Long> processesOfBlock() {
        List<Long> out = new ArrayList<>();
        for (long pid : allPids()) {
            try {
                String status = Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII);
                for (String line : status.split("\n")) {
                    if (line.startsWith("Uid:")) {
                        for (String f : line.substring(4).trim().split("\\s+")) {
                            long uid = Long.parseLong(f);
                            if (uid >= FIRST && uid < (long) FIRST + COUNT) {
                                out.add(pid);
                                break;
                            }
                        }
                    }
                }
            } catch (IOException e) {
                // gone
            }
        }
        return out;
    }

    private static Integer realUid(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseUnsignedInt(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException e) {
            // gone
        }
        return null;
    }

    private static List<Long> allPids() {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> d = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : d) {
                out.add(Long.parseLong(p.getFileName().toString()));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** @return the cold runs' containers {@code podman ps -a --filter name=toolyard} lists */
    private static List<String> containers() {
        try {
            Process p = new ProcessBuilder("podman", "ps", "-a", "--filter", "name=toolyard", "--format", "{{.Names}}")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(60, TimeUnit.SECONDS);
            // Cold runs' containers only: this JVM's own warm test sandboxes may still be idling.
            return out.lines().filter(l -> l.matches("toolyard-[0-9a-f]{16}")).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(int seconds, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }
}
