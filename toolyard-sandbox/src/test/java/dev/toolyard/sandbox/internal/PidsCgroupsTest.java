package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.Hosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class PidsCgroupsTest {
    private static final List<String> MOUNTINFO = List.of(
            "25 24 0:22 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
            "26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
            "33 25 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
            "36 25 0:33 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw");

    @Test
    void findsTheV1HierarchyCarryingThePidsController() {
        assertThat(PidsCgroups.pidsMount(MOUNTINFO)).contains(Path.of("/sys/fs/cgroup/pids"));
    }

    @Test
    void findsAPidsControllerMountedTogetherWithOthers() {
        assertThat(PidsCgroups.pidsMount(List.of("40 25 0:40 / /cg/x rw - cgroup cgroup rw,cpu,pids,memory")))
                .contains(Path.of("/cg/x"));
    }

    @Test
    void ignoresCgroupTwoAHierarchyWithoutPidsAndASubtreeMount() {
        assertThat(PidsCgroups.pidsMount(List.of(MOUNTINFO.get(1), MOUNTINFO.get(3)))).isEmpty();
        assertThat(PidsCgroups.pidsMount(List.of("33 25 0:30 /docker/abc /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids")))
                .isEmpty();
        assertThat(PidsCgroups.pidsMount(List.of("garbage"))).isEmpty();
    }

    @Test
    void unescapesSpacesInTheMountPoint() {
        assertThat(PidsCgroups.pidsMount(List.of("33 25 0:30 / /mnt/my\\040cgroups rw - cgroup cgroup rw,pids")))
                .contains(Path.of("/mnt/my cgroups"));
    }

    @Test
    @Tag("isolation")
    void everySandboxInTheJvmSharesOnePoolSoNoTwoRunsShareACgroup() {
        PidsCgroups.Opened a = PidsCgroups.open();
        Hosts.require(a.pool().isPresent(), "a writable cgroup v1 pids hierarchy: " + a.why());

        assertThat(PidsCgroups.open().pool().get()).isSameAs(a.pool().get());
    }

    @Test
    @Tag("isolation")
    void aLeaseHoldsItsProcessesAtTheLimitIsEmptiedOnReleaseAndReused() throws Exception {
        PidsCgroups.Opened opened = PidsCgroups.open();
        Optional<Path> cgexec = Hosts.hiding().apply("cgexec");
        Hosts.require(opened.pool().isPresent() && cgexec.isPresent(),
                "a writable cgroup v1 pids hierarchy and cgexec (apt-get install cgroup-tools): " + opened.why());
        PidsCgroups pool = opened.pool().get();

        PidsCgroups.Lease lease = pool.acquire(4);
        assertThat(Files.readString(lease.dir().resolve("pids.max")).strip()).isEqualTo("4");
        Path out = Files.createTempFile("pids-cgroup", ".out");
        // The shell and three sleeps fill the four slots; the fourth sleep cannot start.
        Process p = new ProcessBuilder(cgexec.get().toString(), "-g", lease.controllerPath(), "/bin/sh", "-c",
                "for i in 1 2 3; do sleep 30 & done; sleep 30 & echo unreachable")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        List<Long> left = pool.pids(lease);

        boolean clean = pool.release(lease);

        assertThat(p.exitValue()).isNotZero();
        assertThat(Files.readString(out)).contains("fork").doesNotContain("unreachable");
        assertThat(left).as("the three sleeps outlived their shell").hasSize(3);
        assertThat(clean).as("processes were left, and release killed them").isFalse();
        assertThat(pool.pids(lease)).isEmpty();
        assertThat(pool.charged(lease)).as("nothing charged, zombies included").isZero();
        for (long pid : left) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        }
        Files.delete(out);
        assertThat(pool.acquire(8)).isEqualTo(lease);
        assertThat(pool.release(lease)).isTrue();
    }
}
