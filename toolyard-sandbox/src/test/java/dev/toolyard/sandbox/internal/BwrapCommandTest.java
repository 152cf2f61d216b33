package dev.toolyard.sandbox.internal;

import static dev.toolyard.sandbox.internal.Fixtures.BINDS;
import static dev.toolyard.sandbox.internal.Fixtures.DEBIAN;
import static dev.toolyard.sandbox.internal.Fixtures.indexOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BwrapCommandTest {
    private static final BwrapCommand.Tools TOOLS = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
            Path.of("/usr/bin/env"), Optional.of(Path.of("/usr/bin/setpriv")));
    private static final List<String> COMMAND = List.of("/bin/sh", "-c", "echo hi");
    private static final SandboxIds.Pair LEASE = new SandboxIds.Pair(2147450881, 2147450882);
    private static final BwrapCommand.Run AS_ROOT = new BwrapCommand.Run(Optional.of(LEASE), Optional.of(Path.of("/run/ty/etc")),
            Optional.of(Path.of("/run/ty/seccomp.bpf")));
    private static final BwrapCommand.Run NOT_ROOT = new BwrapCommand.Run(Optional.empty(), Optional.empty(), Optional.empty());

    private static List<String> argv(BwrapCommand.Run run) {
        return BwrapCommand.argv(TOOLS, DEBIAN, ResourceLimits.defaults(), BINDS, Map.of("B", "2", "A", "1"), COMMAND, run, 65);
    }

    private static List<String> bwrap(List<String> a) {
        return a.subList(a.indexOf("/usr/bin/bwrap"), a.indexOf("--"));
    }

    @Test
    void theLauncherComesFirstAndBecomesBubblewrap() {
        List<String> a = argv(AS_ROOT);

        assertThat(a.subList(0, 4)).containsExactly("/usr/bin/dash", "-c", Limits.LAUNCHER, "toolyard-launch");
        assertThat(a.subList(4, 11)).containsExactly("60", "1048576", "131072", "1024", "65", "/run/ty/seccomp.bpf", "/usr/bin/bwrap");
    }

    @Test
    void asRootBubblewrapKeepsOnlyWhatSetprivNeedsAndTheCommandRunsAsTheLentUidWithNoGroupsAndNoCapabilities() {
        List<String> a = argv(AS_ROOT);
        List<String> b = bwrap(a);
        int separator = a.indexOf("--");

        assertThat(b).contains("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session");
        assertThat(b).as("bubblewrap's own init, root, is the one its parent-death signal can reach").doesNotContain("--as-pid-1");
        assertThat(indexOf(b, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"))
                .isPositive();
        assertThat(b).doesNotContain("--unshare-user", "--unshare-all", "--share-net", "--dev-bind");
        assertThat(a.subList(separator + 1, a.size())).containsExactly("/usr/bin/setpriv", "--reuid=2147450881", "--regid=2147450882",
                "--clear-groups", "--bounding-set=-all", "--inh-caps=-all", "--pdeathsig=KILL", "--",
                "/usr/bin/env", "-i", "-C", "/tmp/ws", "--", "A=1", "B=2", "/bin/sh", "-c", "echo hi");
    }

    @Test
    void withTheColdHelperAsRootOneExecOfToolyardWarmReplacesTheLauncherSetprivAndEnvOnTheSameSandbox(@TempDir Path tmp)
            throws IOException {
        byte[] program = {0x06, 0x00, 0x00, 0x00, 0x00, 0x00, (byte) 0xff, 0x7f};
        Path file = Files.write(tmp.resolve("seccomp.bpf"), program);
        BwrapCommand.Run asRoot = new BwrapCommand.Run(Optional.of(LEASE), Optional.of(Path.of("/run/ty/etc")), Optional.of(file));
        BwrapCommand.Tools helper = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
                Path.of("/usr/bin/env"), Optional.of(Path.of("/usr/bin/setpriv")), Optional.of(Path.of("/run/ty/toolyard-warm")));
        List<String> a = BwrapCommand.argv(helper, DEBIAN, ResourceLimits.defaults(), BINDS, Map.of("B", "2", "A", "1"), COMMAND,
                asRoot, 65);
        List<String> b = bwrap(a);
        List<String> old = argv(asRoot);
        int separator = a.indexOf("--");

        assertThat(a.get(0)).as("no launcher: bubblewrap first").isEqualTo("/usr/bin/bwrap");
        assertThat(a).doesNotContain("/usr/bin/dash", Limits.LAUNCHER, "--seccomp");
        assertThat(indexOf(b, "--ro-bind", "/run/ty/toolyard-warm", BwrapCommand.WARM_SUPERVISOR)).isPositive();
        assertThat(b).as("bubblewrap's own init still, as with setpriv").doesNotContain("--as-pid-1");
        assertThat(indexOf(b, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"))
                .isPositive();
        List<String> oldSandbox = new java.util.ArrayList<>(bwrap(old));
        int seccomp = oldSandbox.indexOf("--seccomp");
        oldSandbox.subList(seccomp, seccomp + 2).clear();
        assertThat(withoutHelperBind(b)).as("the sandbox of the setpriv line, with the helper bound in it and the filter "
                + "loaded by the helper").isEqualTo(oldSandbox);
        assertThat(a.subList(separator + 1, a.size())).as("the launcher's very limits (%s), and the program in hex",
                old.subList(4, 9)).containsExactly(BwrapCommand.WARM_SUPERVISOR, "--exec-once", "2147450881", "2147450882",
                "60", "1073741824", "67108864", "1024", "65", "060000000000ff7f", "/tmp/ws", "A=1", "B=2", "--", "/bin/sh", "-c",
                "echo hi");
        assertThat(old.subList(4, 9)).containsExactly("60", "1048576", "131072", "1024", "65");
        assertThat(a).doesNotContain("/usr/bin/setpriv", "/usr/bin/env", "-i");
    }

    /** {@code b} with its {@code --ro-bind HELPER /toolyard-warm} taken out. */
    private static List<String> withoutHelperBind(List<String> b) {
        int at = b.indexOf(BwrapCommand.WARM_SUPERVISOR) - 2;
        List<String> rest = new java.util.ArrayList<>(b);
        rest.subList(at, at + 3).clear();
        return rest;
    }

    @Test
    void notAsRootTheColdHelperIsNotUsedAndTheUidIsKept() {
        BwrapCommand.Tools helper = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
                Path.of("/usr/bin/env"), Optional.empty(), Optional.of(Path.of("/run/ty/toolyard-warm")));

        assertThat(BwrapCommand.argv(helper, DEBIAN, ResourceLimits.defaults(), BINDS, Map.of("B", "2", "A", "1"), COMMAND,
                NOT_ROOT, 65)).isEqualTo(argv(NOT_ROOT));
    }

    @Test
    void notAsRootBubblewrapRunsInAUserNamespaceOfItsOwnWithUserNamespacesDisabledAndTheUidIsKept() {
        List<String> a = argv(NOT_ROOT);
        int separator = a.indexOf("--");

        assertThat(bwrap(a).subList(1, 10)).containsExactly("--unshare-all", "--unshare-user", "--disable-userns",
                "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--ro-bind", "/usr");
        assertThat(a).doesNotContain("/usr/bin/setpriv", "--cap-add", "--seccomp");
        assertThat(a.subList(separator + 1, a.size())).startsWith("/usr/bin/env", "-i", "-C", "/tmp/ws", "--");
        assertThat(a.get(9)).as("no seccomp program").isEqualTo("-");
    }

    @Test
    void lendingAUidWithoutSetprivIsRefused() {
        BwrapCommand.Tools noSetpriv = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
                Path.of("/usr/bin/env"), Optional.empty());

        assertThatThrownBy(() -> BwrapCommand.argv(noSetpriv, DEBIAN, ResourceLimits.defaults(), BINDS, Map.of(), COMMAND, AS_ROOT, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theRuntimeIsReadOnlyWithLinksRecreatedAndEtcNeverTheHostsWhole() {
        for (BwrapCommand.Run run : List.of(AS_ROOT, NOT_ROOT)) {
            List<String> a = argv(run);

            assertThat(indexOf(a, "--ro-bind", "/usr", "/usr")).isPositive();
            assertThat(indexOf(a, "--symlink", "usr/bin", "/bin")).isPositive();
            assertThat(indexOf(a, "--ro-bind", "/opt/lib", "/opt/lib")).isPositive();
            assertThat(indexOf(a, "--ro-bind", "/etc", "/etc")).isEqualTo(-1);
            assertThat(a).doesNotContain("/etc/shadow");
            assertThat(indexOf(a, "--ro-bind", "/", "/")).isEqualTo(-1);
            assertThat(indexOf(a, "--bind", "/", "/")).isEqualTo(-1);
        }
        assertThat(indexOf(argv(AS_ROOT), "--ro-bind", "/run/ty/etc", "/etc")).as("the snapshot, in one mount").isPositive();
        assertThat(indexOf(argv(NOT_ROOT), "--ro-bind", "/etc/passwd", "/etc/passwd")).as("without one, entry by entry").isPositive();
    }

    @Test
    void procSysIsReadOnlyAfterTheProcMountAndSensitiveFilesAreMasked() {
        List<String> a = argv(NOT_ROOT);
        int proc = indexOf(a, "--proc", "/proc");

        assertThat(proc).isPositive();
        assertThat(indexOf(a, "--ro-bind", "/proc/sys", "/proc/sys")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/proc/irq", "/proc/irq")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/dev/null", "/proc/kcore")).isGreaterThan(proc);
    }

    @Test
    void asAnUnprivilegedUidOnlyProcSysAndTheProcFilesOthersMayReadStayCovered() {
        List<String> a = argv(AS_ROOT);
        int proc = indexOf(a, "--proc", "/proc");

        assertThat(indexOf(a, "--ro-bind", "/proc/sys", "/proc/sys")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/dev/null", "/proc/keys")).isGreaterThan(proc);
        assertThat(indexOf(a, "--ro-bind", "/proc/irq", "/proc/irq")).as("only root may write it").isEqualTo(-1);
        assertThat(indexOf(a, "--ro-bind", "/dev/null", "/proc/kcore")).as("only root may read it").isEqualTo(-1);
        assertThat(indexOf(a, "--chmod", "1777", "/dev/shm")).isGreaterThan(indexOf(a, "--dev", "/dev"));
    }

    @Test
    void tmpIsPrivateWorldWritableAndMountedBeforeTheRootsThatLiveUnderIt() {
        List<String> a = argv(AS_ROOT);
        int tmpfs = indexOf(a, "--perms", "1777", "--tmpfs", "/tmp");

        assertThat(tmpfs).isPositive();
        assertThat(indexOf(a, "--bind", "/tmp/ws", "/tmp/ws")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--ro-bind", "/tmp/data", "/tmp/data")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--ro-bind", "/srv/ref", "/srv/ref")).isGreaterThan(tmpfs);
        assertThat(indexOf(a, "--bind", "/srv/ref", "/srv/ref")).as("read roots are never writable").isEqualTo(-1);
        assertThat(indexOf(a, "-C", "/tmp/ws")).as("env enters it, as the command's uid").isGreaterThan(a.indexOf("--"));
        assertThat(a).doesNotContain("--chdir");
    }

    @Test
    void asRootTheDirectoriesAboveEachRootAreMadeSearchableBeforeItIsBound() {
        List<String> a = argv(AS_ROOT);
        int bind = indexOf(a, "--bind", "/tmp/ws", "/tmp/ws");

        assertThat(indexOf(a, "--perms", "0755", "--dir", "/tmp")).isPositive().isLessThan(bind);
        assertThat(indexOf(a, "--perms", "0755", "--dir", "/srv")).isPositive().isLessThan(indexOf(a, "--ro-bind", "/srv/ref", "/srv/ref"));
        assertThat(a.stream().filter("/tmp"::equals).count()).as("each made once").isEqualTo(2); // --tmpfs /tmp, --dir /tmp
        assertThat(argv(NOT_ROOT)).doesNotContain("--dir");
    }

    @Test
    void bubblewrapsEnvironmentIsClearedTheFilterLoadedFromTheLaunchersDescriptorAndTheRootRemountedReadOnlyLast() {
        List<String> a = argv(AS_ROOT);
        int separator = a.indexOf("--");

        assertThat(a.indexOf("--clearenv")).isPositive().isLessThan(separator);
        assertThat(indexOf(a, "--seccomp", "9")).isPositive().isLessThan(separator);
        assertThat(a).doesNotContain("--setenv");
        assertThat(indexOf(a, "--remount-ro", "/")).isEqualTo(separator - 2);
    }

    @Test
    void theCommandComesLastUntouchedAfterEnvWithExactlyTheAllowlist() {
        List<String> a = argv(NOT_ROOT);
        int separator = a.indexOf("--");

        assertThat(a.subList(separator + 1, a.size())).containsExactly("/usr/bin/env", "-i", "-C", "/tmp/ws", "--", "A=1", "B=2",
                "/bin/sh", "-c", "echo hi");
    }

    @Test
    void aWarmSandboxIsTheSameSandboxWithTheSupervisorAsInitHoldingOnlyWhatItNeedsAndTheRunsLimitsAsItsArguments() {
        List<String> cold = argv(AS_ROOT);
        List<String> warm = BwrapCommand.warmArgv(TOOLS, DEBIAN, ResourceLimits.defaults(), BINDS, AS_ROOT,
                Path.of("/run/ty/toolyard-warm"));
        List<String> b = bwrap(warm);

        assertThat(warm.subList(0, 7)).containsExactly("/usr/bin/dash", "-c", Limits.WARM_LAUNCHER, "toolyard-launch", "1024",
                "/run/ty/seccomp.bpf", "/usr/bin/bwrap");
        assertThat(indexOf(b, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
                "--cap-add", "CAP_KILL")).isPositive();
        assertThat(indexOf(b, "--ro-bind", "/run/ty/toolyard-warm", "/toolyard-warm", "--clearenv")).isPositive();
        List<String> coldSandbox = new java.util.ArrayList<>(bwrap(cold));
        List<String> warmSandbox = new java.util.ArrayList<>(b);
        warmSandbox.removeAll(List.of("CAP_KILL", "/run/ty/toolyard-warm", "/toolyard-warm"));
        warmSandbox.removeAll(List.of("--cap-add", "--ro-bind"));
        coldSandbox.removeAll(List.of("--cap-add", "--ro-bind"));
        assertThat(b).as("the supervisor, root, is the init bubblewrap's parent-death signal reaches").contains("--as-pid-1");
        warmSandbox.remove("--as-pid-1");
        assertThat(warmSandbox).as("every other flag as a cold run's").isEqualTo(coldSandbox);
        assertThat(warm.subList(warm.indexOf("--") + 1, warm.size())).containsExactly("/toolyard-warm", "2147450881", "2147450882",
                "60", "1073741824", "67108864", "1024", "64", "/tmp/ws", "/tmp", "/dev/shm");
    }

    @Test
    void aWarmSandboxNeedsALeaseBecauseItsCommandsMustNotShareTheSupervisorsUid() {
        assertThatThrownBy(() -> BwrapCommand.warmArgv(TOOLS, DEBIAN, ResourceLimits.defaults(), BINDS, NOT_ROOT,
                Path.of("/run/ty/toolyard-warm"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("root");
    }
}
