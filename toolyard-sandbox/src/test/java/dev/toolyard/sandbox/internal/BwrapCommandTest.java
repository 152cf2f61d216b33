package dev.toolyard.sandbox.internal;

import static dev.toolyard.sandbox.internal.Fixtures.BINDS;
import static dev.toolyard.sandbox.internal.Fixtures.DEBIAN;
import static dev.toolyard.sandbox.internal.Fixtures.indexOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BwrapCommandTest {
    private static final BwrapCommand.Tools TOOLS =
            new BwrapCommand.Tools(Path.of("/usr/bin/bwrap"), Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"), Optional.of(Path.of("/usr/bin/cgexec")));
    private static final List<String> COMMAND = List.of("/bin/sh", "-c", "echo hi");

    private static List<String> argv(Optional<String> cgroup) {
        return BwrapCommand.argv(TOOLS, DEBIAN, ResourceLimits.defaults(), BINDS, Map.of("B", "2", "A", "1"), COMMAND, cgroup, 65);
    }

    @Test
    void everyNamespaceIsUnsharedAndEveryCapabilityDropped() {
        List<String> a = argv(Optional.empty());

        assertThat(a.get(0)).isEqualTo("/usr/bin/bwrap");
        assertThat(a.subList(1, 10)).containsExactly("--unshare-all", "--unshare-user", "--disable-userns",
                "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--as-pid-1", "--ro-bind");
        assertThat(a).doesNotContain("--share-net", "--dev-bind", "--cap-add");
    }

    @Test
    void theRuntimeIsReadOnlyWithLinksRecreatedAndEtcNeverBoundWhole() {
        List<String> a = argv(Optional.empty());

        assertThat(indexOf(a, "--ro-bind", "/usr", "/usr")).isPositive();
        assertThat(indexOf(a, "--symlink", "usr/bin", "/bin")).isPositive();
        assertThat(indexOf(a, "--ro-bind", "/opt/lib", "/opt/lib")).isPositive();
        assertThat(indexOf(a, "--ro-bind", "/etc/passwd", "/etc/passwd")).isPositive();
        assertThat(a).doesNotContain("/etc", "/etc/shadow");
        assertThat(indexOf(a, "--ro-bind", "/", "/")).isEqualTo(-1);
        assertThat(indexOf(a, "--bind", "/", "/")).isEqualTo(-1);
    }

    @Test
    void procSysIsReadOnlyAfterTheProcMountAndSensitiveFilesAreMasked() {
        List<String> a = argv(Optional.empty());
        int proc = indexOf(a, "--proc", "/proc");

        assertThat(proc).isPositive();
        assertThat(indexOf(a, "--ro-bind", "/proc/sys", "/proc/sys")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/proc/irq", "/proc/irq")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/dev/null", "/proc/kcore")).isGreaterThan(proc);
    }

    @Test
    void tmpIsPrivateAndMountedBeforeTheRootsThatLiveUnderIt() {
        List<String> a = argv(Optional.empty());
        int tmpfs = indexOf(a, "--tmpfs", "/tmp");

        assertThat(tmpfs).isPositive();
        assertThat(indexOf(a, "--bind", "/tmp/ws", "/tmp/ws")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--ro-bind", "/tmp/data", "/tmp/data")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--ro-bind", "/srv/ref", "/srv/ref")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--bind", "/srv/ref", "/srv/ref")).as("read roots are never writable").isEqualTo(-1);
        assertThat(indexOf(a, "--chdir", "/tmp/ws")).isPositive();
    }

    @Test
    void bubblewrapsEnvironmentIsClearedAndTheRootIsRemountedReadOnlyLast() {
        List<String> a = argv(Optional.empty());
        int separator = a.indexOf("--");

        assertThat(a.indexOf("--clearenv")).isPositive().isLessThan(separator);
        assertThat(a).doesNotContain("--setenv");
        assertThat(indexOf(a, "--remount-ro", "/")).isEqualTo(separator - 2);
    }

    @Test
    void insideEnvSetsExactlyTheAllowlistThenPrlimitTheLimitsAndTheCommandComesLastUntouched() {
        List<String> a = argv(Optional.empty());
        int separator = a.indexOf("--");

        assertThat(a.subList(separator + 1, a.size())).containsExactly("/usr/bin/env", "-i", "--", "A=1", "B=2",
                "/usr/bin/prlimit", "--cpu=60", "--as=1073741824", "--fsize=67108864", "--nofile=1024", "--nproc=65",
                "--core=0", "--", "/bin/sh", "-c", "echo hi");
    }

    @Test
    void aCgroupPutsCgexecInFrontSoBubblewrapStartsInsideIt() {
        List<String> a = argv(Optional.of("pids:toolyard/1-1"));

        assertThat(a.subList(0, 4)).containsExactly("/usr/bin/cgexec", "-g", "pids:toolyard/1-1", "/usr/bin/bwrap");
    }
}
