package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.toolyard.spi.Json;
import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

class SeccompFilterTest {
    static final SeccompFilter FILTER = SeccompFilter.standard();
    static final int EPERM = SeccompFilter.RET_ERRNO | DeniedCall.EPERM;
    static final int ENOSYS = SeccompFilter.RET_ERRNO | DeniedCall.ENOSYS;
    static final int ALLOW = SeccompFilter.RET_ALLOW;
    static final int KILL = SeccompFilter.RET_KILL_PROCESS;
    static final int AUDIT_ARCH_I386 = 0x4000_0003;
    static final int AUDIT_ARCH_ARM = 0x4000_0028;
    /** A stand-in for the address of a string argument. */
    static final long POINTER = 0x7ffd_1234_5000L;

    /** The issue's deny list, word for word. */
    static final List<String> REQUIRED = List.of("unshare", "clone", "clone3", "setns", "mount", "umount2",
            "pivot_root", "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
            "io_uring_register", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
            "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "open_by_handle_at",
            "personality", "ioctl", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
            "mount_setattr");

    static int run(SeccompArch arch, String name, long... args) {
        return run(FILTER, arch, arch.auditArch(), SyscallTable.number(arch, name).orElseThrow(), args);
    }

    static int run(SeccompFilter f, SeccompArch arch, int auditArch, int nr, long... args) {
        return ClassicBpf.run(f.bpfProgram(arch), ClassicBpf.seccompData(nr, auditArch, args));
    }

    static long[] args(SyscallProbe.Request r) {
        List<String> f = r.fields().subList(1, r.fields().size());
        long[] a = new long[f.size()];
        for (int i = 0; i < a.length; i++) {
            String t = f.get(i);
            a[i] = t.startsWith("s:") ? POINTER + i : Long.parseUnsignedLong(t.replace("0x", ""), t.startsWith("0x") ? 16 : 10);
        }
        return a;
    }

    @Test
    void theDenyListHoldsEveryCallTheIssueNames() {
        assertThat(FILTER.deniedNames()).containsAll(REQUIRED).doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void everyDeniedProbeRequestFailsWithItsErrnoInTheProgram(SeccompArch arch) {
        Map<String, String> expected = SyscallProbe.expectedDenials(FILTER, SyscallProbe.requests(FILTER, arch));
        Map<String, String> actual = new LinkedHashMap<>();
        for (SyscallProbe.Request r : SyscallProbe.requests(FILTER, arch)) {
            if (r.denied()) {
                int ret = run(FILTER, arch, arch.auditArch(), Integer.parseInt(r.fields().get(0)), args(r));
                assertThat(ret & 0xffff_0000).as(r.label()).isEqualTo(SeccompFilter.RET_ERRNO);
                actual.put(r.label(), Integer.toString(ret & 0xffff));
            }
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(actual).hasSizeGreaterThan((int) FILTER.deniedNames().stream().filter(n -> SyscallTable.exists(arch, n)).count());
    }

    /** Where podman's default profile lives: Debian's (and Fedora's) containers-common. */
    static final Path PODMAN_PROFILE = Path.of("/usr/share/containers/seccomp.json");

    /**
     * Calls podman's default profile denies that ours allows on purpose. Each is a call that profile
     * predates (containers-common 0.50 knows neither; later releases allow both): nothing privileged,
     * on the calling process's own memory or futexes.
     */
    static final Map<String, String> ALLOWED_THOUGH_PODMAN_DENIES = Map.of(
            "futex_waitv", "waits on several of the caller's own futexes (Linux 5.16; Wine and Proton use it); "
                    + "newer containers-common allows it",
            "set_mempolicy_home_node", "sets the NUMA home node of the caller's own memory (Linux 5.17); "
                    + "newer containers-common allows it");

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void everyCallPodmansDefaultProfileDeniesIsDeniedByOursSaveAJustifiedFew(SeccompArch arch) throws IOException {
        Hosts.require(Files.isRegularFile(PODMAN_PROFILE), PODMAN_PROFILE + " is missing (apt-get install containers-common, "
                + "which podman brings)");
        Set<String> calls = new TreeSet<>(SyscallTableTest.header(
                arch == SeccompArch.X86_64 ? SyscallTableTest.X86_64_HEADER : SyscallTableTest.GENERIC_HEADER).keySet());
        if (arch == SeccompArch.AARCH64) {
            // The generic table also defines 32-bit-only calls, its own bounds, and fstatat, which arm64 calls newfstatat.
            calls.removeIf(n -> n.endsWith("time64") || n.matches("clock_\\w+64") || n.equals("syscalls")
                    || n.equals("arch_specific_syscall"));
            calls.remove("fstatat");
            calls.add("newfstatat");
        }
        Set<String> podmanAllows = podmanAllows(Json.MAPPER.readTree(Files.readString(PODMAN_PROFILE)),
                arch == SeccompArch.X86_64 ? "amd64" : "arm64");
        Set<String> ours = new TreeSet<>(FILTER.deniedNames());

        Set<String> deniedByPodmanOnly = new TreeSet<>(calls);
        deniedByPodmanOnly.removeAll(podmanAllows);
        deniedByPodmanOnly.removeAll(ours);
        deniedByPodmanOnly.removeAll(ALLOWED_THOUGH_PODMAN_DENIES.keySet());

        assertThat(deniedByPodmanOnly).as("calls podman's default profile denies (for a command with no capability) "
                + "that ToolYard's filter allows; deny them in SeccompFilter or justify them in ALLOWED_THOUGH_PODMAN_DENIES")
                .isEmpty();
        assertThat(ours).as("a justified exception is one ours allows").doesNotContainAnyElementsOf(
                ALLOWED_THOUGH_PODMAN_DENIES.keySet());
        assertThat(calls).as("the header was read").hasSizeGreaterThan(250).contains("read", "vmsplice");
        assertThat(ours).as("the calls issue 22 names").contains("uselib", "vmsplice", "modify_ldt");
    }

    /**
     * @return the calls an OCI profile in podman's format allows, with some arguments at least, to a process
     *     with no capability on {@code goArch}: {@code SCMP_ACT_ALLOW} entries whose {@code includes} hold
     *     (no capability is held; the arch is listed) and whose {@code excludes} do not
     */
    static Set<String> podmanAllows(JsonNode profile, String goArch) {
        assertThat(profile.path("defaultAction").asString()).as("podman's profile denies by default").isNotEqualTo("SCMP_ACT_ALLOW");
        Set<String> allowed = new TreeSet<>();
        for (JsonNode e : profile.path("syscalls")) {
            if (!e.path("action").asString().equals("SCMP_ACT_ALLOW")) {
                continue;
            }
            JsonNode inc = e.path("includes");
            JsonNode exc = e.path("excludes");
            if (inc.path("caps").size() > 0) {
                continue; // only for a process holding a capability
            }
            if (inc.path("arches").size() > 0 && !contains(inc.path("arches"), goArch)) {
                continue;
            }
            if (contains(exc.path("arches"), goArch)) {
                continue;
            }
            e.path("names").forEach(n -> allowed.add(n.asString()));
        }
        return allowed;
    }

    private static boolean contains(JsonNode array, String value) {
        for (JsonNode n : array) {
            if (n.asString().equals(value)) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theWarmCommandsFilterRefusesPosixMessageQueuesAndNothingElse(SeccompArch arch) {
        SeccompFilter warm = SeccompFilter.warmCommands();
        assertThat(warm.deniedNames()).containsExactly("mq_open", "mq_unlink");
        Random random = new Random(7);
        for (String name : List.of("mq_open", "mq_unlink")) {
            long[] a = random.longs(6).toArray();
            assertThat(run(warm, arch, arch.auditArch(), SyscallTable.number(arch, name).orElseThrow(), a)).as(name)
                    .isEqualTo(SeccompFilter.RET_ERRNO | DeniedCall.EPERM);
        }
        for (String name : List.of("unshare", "ptrace", "keyctl")) {
            assertThat(run(warm, arch, arch.auditArch(), SyscallTable.number(arch, name).orElseThrow(), new long[6])).as(name)
                    .isEqualTo(SeccompFilter.RET_ALLOW);
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void onGvisorTheWarmCommandsFilterAlsoRefusesSystemVIpc(SeccompArch arch) {
        SeccompFilter gvisor = SeccompFilter.warmCommandsOnGvisor();
        assertThat(gvisor.deniedNames()).containsExactly("mq_open", "mq_unlink", "shmget", "semget", "msgget");
        assertThat(SeccompFilter.warmCommands(dev.toolyard.IsolationTier.GVISOR)).isSameAs(gvisor);
        assertThat(SeccompFilter.warmCommands(dev.toolyard.IsolationTier.CONTAINER)).isSameAs(SeccompFilter.warmCommands());
        assertThat(SeccompFilter.warmCommands(dev.toolyard.IsolationTier.BWRAP)).isSameAs(SeccompFilter.warmCommands());
        Random random = new Random(11);
        for (String name : gvisor.deniedNames()) {
            long[] a = random.longs(6).toArray();
            assertThat(run(gvisor, arch, arch.auditArch(), SyscallTable.number(arch, name).orElseThrow(), a)).as(name)
                    .isEqualTo(SeccompFilter.RET_ERRNO | DeniedCall.EPERM);
        }
        for (String name : List.of("unshare", "ptrace", "keyctl")) {
            assertThat(run(gvisor, arch, arch.auditArch(), SyscallTable.number(arch, name).orElseThrow(), new long[6]))
                    .as(name).isEqualTo(SeccompFilter.RET_ALLOW);
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void everyUnconditionalEntryIsDeniedWhateverItsArguments(SeccompArch arch) {
        Random random = new Random(42);
        for (DeniedCall d : FILTER.deniedCalls()) {
            if (d.when() instanceof DeniedCall.Always && SyscallTable.exists(arch, d.name())) {
                for (int i = 0; i < 20; i++) {
                    long[] a = random.longs(6).toArray();
                    assertThat(run(arch, d.name(), a)).as(d.name()).isEqualTo(SeccompFilter.RET_ERRNO | d.errno());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void clone3FailsWithEnosysSoTheCLibraryFallsBackToClone(SeccompArch arch) {
        assertThat(run(arch, "clone3", POINTER, 88)).isEqualTo(ENOSYS);
        assertThat(run(arch, "clone3", 0, 0)).isEqualTo(ENOSYS);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void ordinaryCallsAreAllowed(SeccompArch arch) {
        for (String n : List.of("read", "write", "openat", "execve", "getpid")) {
            int nr = Integer.parseInt(SyscallProbe.OtherCalls.number(arch, n));
            assertThat(run(FILTER, arch, arch.auditArch(), nr, 3, POINTER, 4096)).as(n).isEqualTo(ALLOW);
        }
        // glibc's pthread_create: CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
        assertThat(run(arch, "clone", 0x3d0f00, POINTER, POINTER, POINTER, POINTER)).isEqualTo(ALLOW);
        // fork() and posix_spawn's vfork
        assertThat(run(arch, "clone", 0x0120_0011, 0, 0, POINTER, 0)).isEqualTo(ALLOW);
        assertThat(run(arch, "clone", 0x4111, POINTER, 0, 0, 0)).isEqualTo(ALLOW);
        assertThat(run(arch, "unshare", 0x400)).isEqualTo(ALLOW);
        assertThat(run(arch, "personality", 0)).isEqualTo(ALLOW);
        assertThat(run(arch, "personality", 0xffff_ffffL)).isEqualTo(ALLOW);
        assertThat(run(arch, "ioctl", 1, 0x5401, POINTER)).as("TCGETS").isEqualTo(ALLOW);
        for (SyscallProbe.Request r : SyscallProbe.requests(FILTER, arch)) {
            if (r.kind().equals("call") && r.label().startsWith("allow/")) {
                assertThat(run(FILTER, arch, arch.auditArch(), Integer.parseInt(r.fields().get(0)), args(r)))
                        .as(r.label()).isEqualTo(ALLOW);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void everyNamespaceFlagAloneIsDeniedOnUnshareAndCloneAndNoOtherFlagIs(SeccompArch arch) {
        for (int bit = 0; bit < 32; bit++) {
            long flag = 1L << bit;
            int expected = (SeccompFilter.NAMESPACE_FLAGS & flag) != 0 ? EPERM : ALLOW;
            assertThat(run(arch, "unshare", flag)).as("unshare bit %d", bit).isEqualTo(expected);
            assertThat(run(arch, "clone", flag | 17, 0, 0, 0, 0)).as("clone bit %d", bit)
                    .isEqualTo((SeccompFilter.NAMESPACE_FLAGS & (flag | 17)) != 0 ? EPERM : ALLOW);
        }
        for (SeccompFilter.Flag f : SeccompFilter.Flag.values()) {
            assertThat(run(arch, "unshare", f.bit)).as(f.name()).isEqualTo(EPERM);
            assertThat(run(arch, "clone", f.bit | 0x3d0f00)).as(f.name()).isEqualTo(EPERM);
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void highBitsTheKernelDropsDoNotGetADeniedArgumentThrough(SeccompArch arch) {
        long high = 0xffff_ffff_0000_0000L;
        for (SeccompFilter.Flag f : SeccompFilter.Flag.values()) {
            assertThat(run(arch, "unshare", high | f.bit)).as(f.name()).isEqualTo(EPERM);
            assertThat(run(arch, "clone", high | f.bit | 17)).as(f.name()).isEqualTo(EPERM);
            assertThat(run(arch, "unshare", 0x1_0000_0000L | f.bit)).as(f.name()).isEqualTo(EPERM);
        }
        assertThat(run(arch, "ioctl", 0, high | SeccompFilter.TIOCSTI)).isEqualTo(EPERM);
        assertThat(run(arch, "ioctl", 0, 0x8000_0000_0000_0000L | SeccompFilter.TIOCLINUX)).isEqualTo(EPERM);
        assertThat(run(arch, "personality", high | 0x0040000)).isEqualTo(EPERM);
        // high bits alone, over an allowed low word, stay allowed: the kernel sees the low word
        assertThat(run(arch, "ioctl", 0, high | 0x541B)).isEqualTo(ALLOW);
        assertThat(run(arch, "personality", high)).isEqualTo(ALLOW);
        assertThat(run(arch, "personality", -1L)).as("personality(-1) queries").isEqualTo(ALLOW);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void personalityAllowsOnlyTheDefaultPersonaAndTheQuery(SeccompArch arch) {
        for (int bit = 0; bit < 32; bit++) {
            assertThat(run(arch, "personality", 1L << bit)).as("bit %d", bit).isEqualTo(EPERM);
        }
        assertThat(run(arch, "personality", 0xffff_fffeL)).isEqualTo(EPERM);
        assertThat(run(arch, "personality", 0x0020_0008L)).as("PER_LINUX32|UNAME26").isEqualTo(EPERM);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void ioctlIsDeniedOnlyForTiocstiAndTioclinux(SeccompArch arch) {
        assertThat(run(arch, "ioctl", 0, SeccompFilter.TIOCSTI, POINTER)).isEqualTo(EPERM);
        assertThat(run(arch, "ioctl", 0, SeccompFilter.TIOCLINUX, POINTER)).isEqualTo(EPERM);
        for (long cmd = 0x5400; cmd < 0x5480; cmd++) {
            if (cmd != SeccompFilter.TIOCSTI && cmd != SeccompFilter.TIOCLINUX) {
                assertThat(run(arch, "ioctl", 0, cmd, POINTER)).as("cmd 0x%x", cmd).isEqualTo(ALLOW);
            }
        }
        assertThat(run(arch, "ioctl", SeccompFilter.TIOCSTI, 0)).as("TIOCSTI as the fd").isEqualTo(ALLOW);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void aForeignAbiIsKilledWhateverTheCall(SeccompArch arch) {
        SeccompArch other = arch == SeccompArch.X86_64 ? SeccompArch.AARCH64 : SeccompArch.X86_64;
        for (int foreign : new int[] {AUDIT_ARCH_I386, AUDIT_ARCH_ARM, other.auditArch(), 0}) {
            for (int nr : new int[] {0, 20, 39, 63, 172}) {
                assertThat(run(FILTER, arch, foreign, nr)).as("arch 0x%x nr %d", foreign, nr).isEqualTo(KILL);
            }
        }
    }

    @Test
    void theX32AbiIsKilledOnX8664() {
        SeccompArch x = SeccompArch.X86_64;
        for (int nr : new int[] {0, 1, 39, 59, 512, 0x3fff_ffff}) {
            assertThat(run(FILTER, x, x.auditArch(), SeccompArch.X32_SYSCALL_BIT | nr)).as("x32 %d", nr)
                    .isEqualTo(KILL);
        }
        assertThat(run(FILTER, x, x.auditArch(), -1)).as("nr -1").isEqualTo(KILL);
        // aarch64 has no x32: a number that large is simply no syscall, which the kernel answers ENOSYS
        assertThat(run(FILTER, SeccompArch.AARCH64, SeccompArch.AARCH64.auditArch(), 0x4000_0027)).isEqualTo(ALLOW);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theProgramChecksTheArchBeforeItReadsTheNumber(SeccompArch arch) {
        byte[] p = FILTER.bpfProgram(arch);
        ByteBuffer b = ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getShort(0)).isEqualTo((short) 0x20);
        assertThat(b.getInt(4)).isEqualTo(SeccompFilter.OFFSET_ARCH);
        assertThat(b.getShort(8)).isEqualTo((short) 0x15);
        assertThat(b.getInt(12)).isEqualTo(arch.auditArch());
        assertThat(p.length % 8).isZero();
        assertThat(p.length / 8).isLessThan(256);
    }

    @Test
    void theMarkedFilterReturnsTheMarkerWhereTheStandardOneReturnsEperm() {
        SeccompFilter marked = FILTER.withDenyErrno(SyscallProbe.MARKER_ERRNO);
        for (SeccompArch arch : SeccompArch.values()) {
            for (SyscallProbe.Request r : SyscallProbe.requests(FILTER, arch)) {
                if (r.kind().equals("call")) {
                    int nr = Integer.parseInt(r.fields().get(0));
                    int standard = run(FILTER, arch, arch.auditArch(), nr, args(r));
                    int expected = standard == EPERM ? SeccompFilter.RET_ERRNO | SyscallProbe.MARKER_ERRNO : standard;
                    assertThat(run(marked, arch, arch.auditArch(), nr, args(r))).as(r.label()).isEqualTo(expected);
                }
            }
        }
        assertThat(marked.deniedNames()).isEqualTo(FILTER.deniedNames());
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theProfileAndTheProgramDecideEveryCaseAlike(SeccompArch arch) {
        OciProfileEvaluator profile = new OciProfileEvaluator(FILTER.ociProfileJson(arch));
        Random random = new Random(7);
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, 0xffff_ffffL, 0xffff_ffff_0000_0000L, 0x1_0000_0000L,
                (long) SeccompFilter.TIOCSTI, (long) SeccompFilter.TIOCLINUX, 0x541BL, 0x3d0f00L, 17L, 0x0040000L, 8L,
                (long) SeccompFilter.NAMESPACE_FLAGS));
        for (int bit = 0; bit < 64; bit++) {
            values.add(1L << bit);
            values.add(0xffff_ffff_0000_0000L | (1L << bit));
            values.add(~(1L << bit));
        }
        for (int i = 0; i < 200; i++) {
            values.add(random.nextLong());
            values.add(random.nextLong() & 0xffff_ffffL);
        }
        int cases = 0;
        for (String name : SyscallTable.all().keySet()) {
            if (!SyscallTable.exists(arch, name)) {
                continue;
            }
            int nr = SyscallTable.number(arch, name).orElseThrow();
            for (long v : values) {
                for (int at = 0; at < 2; at++) {
                    long[] a = new long[6];
                    a[at] = v;
                    int bpf = run(FILTER, arch, arch.auditArch(), nr, a);
                    int oci = profile.decide(arch, name, a);
                    int bpfAsOci = bpf == ALLOW ? OciProfileEvaluator.ALLOW : bpf & 0xffff;
                    assertThat(oci).as("%s(arg%d=0x%x)", name, at, v).isEqualTo(bpfAsOci);
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(10_000);
        SeccompArch other = arch == SeccompArch.X86_64 ? SeccompArch.AARCH64 : SeccompArch.X86_64;
        assertThat(profile.decide(other, "read")).as("another arch").isEqualTo(OciProfileEvaluator.KILL);
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theProgramIsPinnedByAGoldenFile(SeccompArch arch) throws IOException {
        golden(arch.name().toLowerCase() + ".bpf.txt", listing(FILTER.bpfProgram(arch)));
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theProfileIsPinnedByAGoldenFile(SeccompArch arch) throws IOException {
        golden(arch.name().toLowerCase() + ".json", FILTER.ociProfileJson(arch));
        assertThat(FILTER.ociProfileJson(arch)).isEqualTo(SeccompFilter.standard().ociProfileJson(arch));
    }

    @Test
    void theHostVariantsAreThoseOfTheHostsArch() {
        SeccompArch host = SeccompArch.host();
        assertThat(FILTER.bpfProgramForHost()).isEqualTo(FILTER.bpfProgram(host));
        assertThat(FILTER.ociProfileJson()).isEqualTo(FILTER.ociProfileJson(host));
    }

    @Test
    void theProgramReturnedIsACopy() {
        byte[] p = FILTER.bpfProgram(SeccompArch.X86_64);
        p[0] = 0;
        assertThat(FILTER.bpfProgram(SeccompArch.X86_64)[0]).isEqualTo((byte) 0x20);
    }

    @Test
    void writeToWritesBothFilesPrivatelyAndReplacesALinkRatherThanFollowingIt(@TempDir Path dir) throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "keep");
        Files.createSymbolicLink(dir.resolve("seccomp.bpf"), victim);
        assertThat(FILTER.writeTo(dir)).isEqualTo(dir);
        assertThat(Files.readString(victim)).isEqualTo("keep");
        assertThat(Files.isSymbolicLink(dir.resolve("seccomp.bpf"))).isFalse();
        assertThat(Files.readAllBytes(dir.resolve("seccomp.bpf"))).isEqualTo(FILTER.bpfProgramForHost());
        assertThat(Files.readString(dir.resolve("seccomp.json"))).isEqualTo(FILTER.ociProfileJson());
        for (String f : List.of("seccomp.bpf", "seccomp.json")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(f),
                    LinkOption.NOFOLLOW_LINKS))).as(f).isEqualTo("rw-------");
        }
        FILTER.writeTo(dir);
        assertThat(Files.readAllBytes(dir.resolve("seccomp.bpf"))).isEqualTo(FILTER.bpfProgramForHost());
    }

    /** One instruction a line, so a change shows in a diff as the instructions it moved. */
    static String listing(byte[] program) {
        ByteBuffer b = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder sb = new StringBuilder("# code jt jf k (struct sock_filter, little-endian)\n");
        for (int i = 0; i < program.length / 8; i++) {
            sb.append(String.format("%3d %04x %3d %3d %08x%n", i, b.getShort(i * 8) & 0xffff, b.get(i * 8 + 2) & 0xff,
                    b.get(i * 8 + 3) & 0xff, b.getInt(i * 8 + 4)));
        }
        return sb.toString();
    }

    static void golden(String name, String actual) throws IOException {
        String resource = "/seccomp/golden/" + name;
        if (Boolean.getBoolean("toolyard.updateGolden")) {
            Path src = Path.of("src/test/resources" + resource);
            Files.createDirectories(src.getParent());
            Files.writeString(src, actual, StandardCharsets.UTF_8);
            return;
        }
        try (InputStream in = SeccompFilterTest.class.getResourceAsStream(resource)) {
            assertThat(in).as("golden file " + resource + " (regenerate with -Dtoolyard.updateGolden=true)").isNotNull();
            assertThat(actual).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    // ------------------------------------------------------------------ real kernel

    /** What a sandboxed process printed and how it ended. */
    record Outcome(int exit, String stdout, String stderr) {
        Map<String, String> probe() {
            return SyscallProbe.parse(stdout);
        }
    }

    static Outcome exec(List<String> argv) throws IOException, InterruptedException {
        Path out = Files.createTempFile("seccomp-out", ".txt");
        Path err = Files.createTempFile("seccomp-err", ".txt");
        try {
            Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                fail("timed out: " + argv);
            }
            return new Outcome(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static Map<String, String> only(Map<String, String> results, String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        results.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** @return {@code name} in the fixed search path, or null */
    static Path executable(String name) {
        for (String d : Which.FALLBACK_PATH.split(":")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    static boolean isRoot() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
    }

    /** One test per denied request, each reading the line the probe printed for it in {@code results}. */
    static Stream<DynamicTest> onePerDeniedRequest(List<SyscallProbe.Request> requests, Map<String, String> results) {
        Map<String, String> expected = SyscallProbe.expectedDenials(FILTER, requests);
        return expected.entrySet().stream().map(e -> DynamicTest.dynamicTest(
                e.getKey() + " fails with errno " + e.getValue(),
                () -> assertThat(results.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue())));
    }

    /** The shell lines of "ordinary programs" both rungs must still run under the filter. */
    static final Map<String, List<String>> ORDINARY = ordinary();

    private static Map<String, List<String>> ordinary() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("sh pipe and coreutils", List.of("/bin/sh", "-c",
                "printf 'b\\na\\n' | sort | cat; ls / >/dev/null && echo ls-ok; echo x > /tmp/f && wc -c < /tmp/f"));
        m.put("sh background job", List.of("/bin/sh", "-c", "(echo bg-ok) & wait"));
        m.put("python threads", List.of("/usr/bin/python3", "-c",
                "import threading; r=[]; ts=[threading.Thread(target=r.append, args=(i,)) for i in range(8)];"
                        + "[t.start() for t in ts]; [t.join() for t in ts]; print('threads', len(r))"));
        m.put("python subprocess", List.of("/usr/bin/python3", "-c",
                "import subprocess; print(subprocess.run(['/bin/echo', 'spawn-ok'], capture_output=True, text=True,"
                        + " check=True).stdout.strip())"));
        return m;
    }

    static final Map<String, String> ORDINARY_OUTPUT = Map.of(
            "sh pipe and coreutils", "a\nb\nls-ok\n2\n",
            "sh background job", "bg-ok\n",
            "python threads", "threads 8\n",
            "python subprocess", "spawn-ok\n");

    /** The python line that makes the raw unshare(CLONE_NEWUSER) call and prints its errno. */
    static List<String> unshareUserNamespace(SeccompArch arch) {
        return List.of("/usr/bin/python3", "-c", "import ctypes; libc = ctypes.CDLL(None, use_errno=True);"
                + " r = libc.syscall(" + SyscallTable.number(arch, "unshare").orElseThrow() + ", 0x10000000);"
                + " print(r, ctypes.get_errno())");
    }

    /** Bubblewrap, as the launch line of the bubblewrap rung will run it, with and without a filter. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class UnderBubblewrap {
        static final String UID = "1879048192";
        Path bwrap;
        Path probeDir;
        Path filterDir;
        List<SyscallProbe.Request> requests;
        SeccompArch arch;

        @BeforeAll
        void setUp(@TempDir Path tmp) throws IOException {
            bwrap = executable("bwrap");
            Hosts.require(bwrap != null, "bubblewrap (bwrap) is not installed (run .ci/setup-sandbox.sh)");
            arch = SeccompArch.host();
            requests = SyscallProbe.requests(FILTER, arch);
            // the sandbox runs as another uid, which must reach the probe to bind it
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            probeDir = SyscallProbe.install(Files.createDirectory(tmp.resolve("probe")), requests);
            filterDir = Files.createDirectory(tmp.resolve("filter"));
            Files.write(filterDir.resolve("standard.bpf"), FILTER.bpfProgram(arch));
            Files.write(filterDir.resolve("marked.bpf"),
                    FILTER.withDenyErrno(SyscallProbe.MARKER_ERRNO).bpfProgram(arch));
        }

        /** @param filter the program file to load with --seccomp, or null for none */
        Outcome run(String filter, List<String> command) throws IOException, InterruptedException {
            List<String> a = new ArrayList<>();
            if (filter != null) {
                // the descriptor is opened by root before the uid drops, as the rung's launch line does
                a.addAll(List.of("/bin/sh", "-c", "exec 9<\"$1\"; shift; exec \"$@\"", "sh",
                        filterDir.resolve(filter).toString()));
            }
            if (isRoot()) {
                a.addAll(List.of("/usr/bin/setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups"));
            }
            a.addAll(List.of(bwrap.toString(), "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop",
                    "ALL", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"));
            for (String top : List.of("/bin", "/sbin", "/lib", "/lib64")) {
                Path p = Path.of(top);
                if (Files.isSymbolicLink(p)) {
                    a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), top));
                } else if (Files.isDirectory(p)) {
                    a.addAll(List.of("--ro-bind", top, top));
                }
            }
            a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", probeDir.toString(),
                    "/probe", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"));
            if (filter != null) {
                a.addAll(List.of("--seccomp", "9"));
            }
            a.add("--");
            a.addAll(command);
            return exec(a);
        }

        Map<String, String> probe(String filter) throws IOException, InterruptedException {
            Outcome o = run(filter, SyscallProbe.command(Path.of("/probe")));
            assertThat(o.exit()).as("probe exit; stderr: %s", o.stderr()).isZero();
            Map<String, String> r = o.probe();
            assertThat(r.keySet()).as("one line per request")
                    .containsExactlyElementsOf(requests.stream().map(SyscallProbe.Request::label).toList());
            return r;
        }

        @Test
        void everyDeniedCallFailsWithEpermUnderBubblewrap() throws Exception {
            Map<String, String> r = probe("standard.bpf");
            assertThat(only(r, "deny/")).isEqualTo(SyscallProbe.expectedDenials(FILTER, requests));
            assertThat(r).containsEntry("state/seccomp-mode", "2").containsEntry("state/no-new-privs", "1");
        }

        @TestFactory
        Stream<DynamicTest> eachDeniedCallFailsUnderBubblewrap() throws Exception {
            return onePerDeniedRequest(requests, probe("standard.bpf"));
        }

        @Test
        void theFilterNotTheKernelRefusesEveryDeniedCallUnderBubblewrap() throws Exception {
            Map<String, String> control = probe(null);
            assertThat(control).as("no filter at all").containsEntry("state/seccomp-mode", "0");
            Map<String, String> marked = probe("marked.bpf");
            Map<String, String> expected = new LinkedHashMap<>();
            SyscallProbe.expectedDenials(FILTER, requests).forEach((k, v) ->
                    expected.put(k, v.equals("1") ? Integer.toString(SyscallProbe.MARKER_ERRNO) : v));
            assertThat(only(marked, "deny/")).isEqualTo(expected);
            // Without the filter no denied request returns what the filter returns for it.
            only(control, "deny/").forEach((k, v) -> assertThat(v).as(k).isNotEqualTo(expected.get(k)));
            assertThat(control.get("deny/clone3/null-args")).isNotEqualTo("38");
            System.err.println("bubblewrap, no filter, denied requests: " + only(control, "deny/"));
        }

        @Test
        void allowedCallsBehaveAsWithoutTheFilterUnderBubblewrap() throws Exception {
            Map<String, String> control = probe(null);
            Map<String, String> filtered = probe("standard.bpf");
            assertThat(only(filtered, "allow/")).isEqualTo(only(control, "allow/"));
            assertThat(filtered).containsEntry("allow/getpid", "0").containsEntry("allow/clone-fork", "0")
                    .containsEntry("allow/unshare-files", "0").containsEntry("allow/personality-linux", "0")
                    .containsEntry("allow/personality-query-64-bit", "0").containsEntry("allow/python-threads", "0")
                    .containsEntry("allow/read-bad-fd", "9").containsEntry("allow/ioctl-FIONREAD", "9");
        }

        @Test
        void aForeignOrX32AbiIsKilledUnderBubblewrap() throws Exception {
            Hosts.require(arch == SeccompArch.X86_64, "the ABI probe is x86_64 machine code; this host is " + arch);
            Map<String, String> control = probe(null);
            Map<String, String> filtered = probe("standard.bpf");
            assertThat(only(filtered, "abi/").keySet()).containsExactlyInAnyOrder("abi/i386-getpid", "abi/x32-getpid");
            assertThat(SyscallProbe.foreignAbiViolations(filtered)).as("no foreign-ABI call succeeds").isEmpty();
            // Without the filter the sandbox answers as the bare host does: what the filter adds is its own.
            assertThat(SyscallProbe.kinds(only(control, "abi/"))).as("bubblewrap alone, against the bare host")
                    .isEqualTo(SyscallProbe.kinds(SyscallProbe.hostAbi()));
            System.err.println("foreign ABI on the bare host: " + SyscallProbe.hostAbi());
        }

        @Test
        void ordinaryProgramsStillRunUnderBubblewrap() throws Exception {
            for (Map.Entry<String, List<String>> e : ORDINARY.entrySet()) {
                Outcome o = run("standard.bpf", e.getValue());
                assertThat(o.exit()).as("%s: %s", e.getKey(), o.stderr()).isZero();
                assertThat(o.stdout()).as(e.getKey()).isEqualTo(ORDINARY_OUTPUT.get(e.getKey()));
            }
        }

        @Test
        void nestedUserNamespacesFailUnderBubblewrap() throws Exception {
            Outcome syscall = run("standard.bpf", unshareUserNamespace(arch));
            assertThat(syscall.stdout()).isEqualTo("-1 1\n");
            Outcome command = run("standard.bpf", List.of("/usr/bin/unshare", "-U", "-r", "/bin/true"));
            assertThat(command.exit()).isNotZero();
            assertThat(command.stderr()).contains("Operation not permitted");
        }
    }

    /** Podman with the profile, as the container rung's command line runs it. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class UnderPodman {
        Path podman;
        Path runc;
        Path probeDir;
        Path filterDir;
        List<SyscallProbe.Request> requests;
        SeccompArch arch;

        @BeforeAll
        void setUp(@TempDir Path tmp) throws Exception {
            podman = executable("podman");
            Hosts.require(podman != null, "podman is not installed (run .ci/setup-sandbox.sh)");
            runc = executable("runc");
            Hosts.require(runc != null, "runc is not installed (run .ci/setup-sandbox.sh)");
            Outcome image = exec(List.of(podman.toString(), "image", "exists", Hosts.IMAGE));
            Hosts.require(image.exit() == 0, "the image " + Hosts.IMAGE + " is missing (run .ci/setup-sandbox.sh)");
            arch = SeccompArch.host();
            requests = SyscallProbe.requests(FILTER, arch);
            probeDir = SyscallProbe.install(Files.createDirectory(tmp.resolve("probe")), requests);
            filterDir = Files.createDirectory(tmp.resolve("filter"));
            Files.writeString(filterDir.resolve("standard.json"), FILTER.ociProfileJson(arch));
            Files.writeString(filterDir.resolve("marked.json"),
                    FILTER.withDenyErrno(SyscallProbe.MARKER_ERRNO).ociProfileJson(arch));
        }

        /**
         * @param profile the profile file for --security-opt seccomp=, {@code "unconfined"} for no
         *     filter at all, or null for the engine's default profile
         */
        Outcome run(String profile, List<String> command) throws IOException, InterruptedException {
            // The runtime is named as the container rung names it: podman's default may be crun.
            List<String> a = new ArrayList<>(List.of(podman.toString(), "run", "--rm", "--runtime", runc.toString(), "--pull=never",
                    "--network=none", "--read-only", "--cap-drop=ALL", "--security-opt", "no-new-privileges",
                    "--cgroupns=private", "--ipc=private", "--ulimit", "nofile=1024:1024", "--ulimit",
                    "nproc=1024:1024", "--ulimit", "core=0:0", "--http-proxy=false", "--log-driver=passthrough",
                    "--mount", "type=bind,source=/usr,destination=/usr,readonly",
                    "--mount", "type=bind,source=" + probeDir + ",destination=/probe,readonly"));
            if (profile != null) {
                a.addAll(List.of("--security-opt", "seccomp="
                        + (profile.equals("unconfined") ? profile : filterDir.resolve(profile).toString())));
            }
            a.add(Hosts.IMAGE);
            a.addAll(command);
            return exec(a);
        }

        Map<String, String> probe(String profile) throws IOException, InterruptedException {
            Outcome o = run(profile, SyscallProbe.command(Path.of("/probe")));
            assertThat(o.exit()).as("probe exit; stderr: %s", o.stderr()).isZero();
            Map<String, String> r = o.probe();
            assertThat(r.keySet()).as("one line per request")
                    .containsExactlyElementsOf(requests.stream().map(SyscallProbe.Request::label).toList());
            return r;
        }

        @Test
        void everyDeniedCallFailsWithEpermInAPodmanContainer() throws Exception {
            Map<String, String> r = probe("standard.json");
            assertThat(only(r, "deny/")).isEqualTo(SyscallProbe.expectedDenials(FILTER, requests));
            assertThat(r).containsEntry("state/seccomp-mode", "2").containsEntry("state/no-new-privs", "1");
        }

        @TestFactory
        Stream<DynamicTest> eachDeniedCallFailsInAPodmanContainer() throws Exception {
            return onePerDeniedRequest(requests, probe("standard.json"));
        }

        @Test
        void theProfileNotTheKernelRefusesEveryDeniedCallInAPodmanContainer() throws Exception {
            Map<String, String> control = probe("unconfined");
            assertThat(control).as("no filter at all").containsEntry("state/seccomp-mode", "0");
            Map<String, String> marked = probe("marked.json");
            Map<String, String> expected = new LinkedHashMap<>();
            SyscallProbe.expectedDenials(FILTER, requests).forEach((k, v) ->
                    expected.put(k, v.equals("1") ? Integer.toString(SyscallProbe.MARKER_ERRNO) : v));
            assertThat(only(marked, "deny/")).isEqualTo(expected);
            only(control, "deny/").forEach((k, v) -> assertThat(v).as(k).isNotEqualTo(expected.get(k)));
            System.err.println("podman, seccomp=unconfined, denied requests: " + only(control, "deny/"));
        }

        @Test
        void allowedCallsBehaveAsWithoutAFilterInAPodmanContainer() throws Exception {
            Map<String, String> control = probe("unconfined");
            Map<String, String> filtered = probe("standard.json");
            assertThat(only(filtered, "allow/")).isEqualTo(only(control, "allow/"));
            assertThat(filtered).containsEntry("allow/getpid", "0").containsEntry("allow/clone-fork", "0")
                    .containsEntry("allow/unshare-files", "0").containsEntry("allow/personality-linux", "0")
                    .containsEntry("allow/personality-query", "0").containsEntry("allow/personality-query-64-bit", "0")
                    .containsEntry("allow/python-threads", "0").containsEntry("allow/read-bad-fd", "9")
                    .containsEntry("allow/ioctl-FIONREAD", "9").containsEntry("allow/openat-missing", "2")
                    .containsEntry("allow/unshare-nothing", "0");
        }

        @Test
        void aForeignOrX32AbiIsKilledInAPodmanContainer() throws Exception {
            Hosts.require(arch == SeccompArch.X86_64, "the ABI probe is x86_64 machine code; this host is " + arch);
            Map<String, String> filtered = probe("standard.json");
            assertThat(only(filtered, "abi/").keySet()).containsExactlyInAnyOrder("abi/i386-getpid", "abi/x32-getpid");
            assertThat(SyscallProbe.foreignAbiViolations(filtered)).as("no foreign-ABI call succeeds").isEmpty();
        }

        @Test
        void ordinaryProgramsStillRunInAPodmanContainer() throws Exception {
            for (Map.Entry<String, List<String>> e : ORDINARY.entrySet()) {
                Outcome o = run("standard.json", e.getValue());
                assertThat(o.exit()).as("%s: %s", e.getKey(), o.stderr()).isZero();
                assertThat(o.stdout()).as(e.getKey()).isEqualTo(ORDINARY_OUTPUT.get(e.getKey()));
            }
        }

        @Test
        void nestedUserNamespacesFailInAPodmanContainerThoughTheEnginesDefaultAllowsThem() throws Exception {
            assertThat(run(null, unshareUserNamespace(arch)).stdout()).as("the engine's default profile")
                    .isEqualTo("0 0\n");
            assertThat(run("standard.json", unshareUserNamespace(arch)).stdout()).isEqualTo("-1 1\n");
            Outcome command = run("standard.json", List.of("/usr/bin/unshare", "-U", "-r", "/bin/true"));
            assertThat(command.exit()).isNotZero();
            assertThat(command.stderr()).contains("Operation not permitted");
        }
    }
}
