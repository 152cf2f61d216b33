package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.Json;
import dev.toolyard.sandbox.internal.DeniedCall.AnyFlagSet;
import dev.toolyard.sandbox.internal.DeniedCall.ArgIn;
import dev.toolyard.sandbox.internal.DeniedCall.ArgNotIn;
import dev.toolyard.sandbox.internal.DeniedCall.Condition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ToolYard's own seccomp filter: one deny list, compiled two ways so the two rungs cannot drift: a
 * classic BPF program assembled here (no libseccomp, no native code) for bubblewrap's
 * {@code --seccomp FD}, and an OCI/Docker profile for a container engine's
 * {@code --security-opt seccomp=FILE}. Everything not denied is allowed: the filter takes away the
 * kernel interfaces a sandboxed command never needs and exploits often start from, and leaves the
 * rest to the namespaces, the dropped capabilities and the limits.
 *
 * <p>The BPF program checks {@code seccomp_data.arch} first and kills the process on any other ABI
 * (their numbers mean other calls), kills x32 calls on x86_64, then returns {@code EPERM} for each
 * denied call. Three entries are subtler:
 *
 * <ul>
 *   <li>{@code clone} and {@code unshare} are denied only with a namespace flag, so {@code fork}
 *       and threads keep working.</li>
 *   <li>{@code clone3} takes its flags in a struct behind a pointer, which seccomp cannot read, so
 *       it is denied whole, with {@code ENOSYS} rather than {@code EPERM}: glibc 2.34 and later try
 *       {@code clone3} for {@code pthread_create} and {@code posix_spawn} and fall back to
 *       {@code clone} only on {@code ENOSYS}, where the namespace flags are then checked.</li>
 *   <li>{@code personality} is allowed only for the default persona and the query; {@code ioctl}
 *       is denied for {@code TIOCSTI} and {@code TIOCLINUX} (typing into, or taking over, the
 *       controlling terminal).</li>
 * </ul>
 *
 * Conditions read the low 32 bits of an argument only; see {@link DeniedCall}. For a call not on
 * the list the program's answer depends on nothing but {@code arch} and {@code nr}, so the kernel's
 * seccomp action cache (Linux 5.11) lets such calls skip the program altogether. Immutable.
 * Thread-safe.
 */
public final class SeccompFilter {
    /** {@code SECCOMP_RET_KILL_PROCESS} (Linux 4.14): kill the whole process, not just the thread. */
    static final int RET_KILL_PROCESS = 0x8000_0000;
    /** {@code SECCOMP_RET_ERRNO}; the low 16 bits carry the errno. */
    static final int RET_ERRNO = 0x0005_0000;
    /** {@code SECCOMP_RET_ALLOW}. */
    static final int RET_ALLOW = 0x7fff_0000;
    /** {@code offsetof(struct seccomp_data, nr)}. */
    static final int OFFSET_NR = 0;
    /** {@code offsetof(struct seccomp_data, arch)}. */
    static final int OFFSET_ARCH = 4;
    /** {@code offsetof(struct seccomp_data, args)}: six u64, native (little) endian. */
    static final int OFFSET_ARGS = 16;

    /** Every namespace flag of {@code clone}/{@code unshare}, ORed. */
    static final int NAMESPACE_FLAGS = Flag.CLONE_NEWNS.bit | Flag.CLONE_NEWCGROUP.bit | Flag.CLONE_NEWUTS.bit
            | Flag.CLONE_NEWIPC.bit | Flag.CLONE_NEWUSER.bit | Flag.CLONE_NEWPID.bit | Flag.CLONE_NEWNET.bit
            | Flag.CLONE_NEWTIME.bit;
    /** {@code PER_LINUX}, the default persona. */
    static final int PER_LINUX = 0;
    /** The persona argument that only queries the current one. */
    static final int PERSONALITY_QUERY = 0xffff_ffff;
    /** {@code TIOCSTI}: push a byte into the terminal's input queue. */
    static final int TIOCSTI = 0x5412;
    /** {@code TIOCLINUX}: the Linux console's subcommands, among them pasting a selection as input. */
    static final int TIOCLINUX = 0x541C;

    /** The namespace flags of {@code linux/sched.h}. */
    enum Flag {
        CLONE_NEWTIME(0x0000_0080),
        CLONE_NEWNS(0x0002_0000),
        CLONE_NEWCGROUP(0x0200_0000),
        CLONE_NEWUTS(0x0400_0000),
        CLONE_NEWIPC(0x0800_0000),
        CLONE_NEWUSER(0x1000_0000),
        CLONE_NEWPID(0x2000_0000),
        CLONE_NEWNET(0x4000_0000);

        final int bit;

        Flag(int bit) {
            this.bit = bit;
        }
    }

    private static final SeccompFilter STANDARD = new SeccompFilter(standardList());

    private final List<DeniedCall> denied;
    private final Map<SeccompArch, byte[]> programs = new EnumMap<>(SeccompArch.class);
    private final Map<SeccompArch, String> profiles = new EnumMap<>(SeccompArch.class);

    private SeccompFilter(List<DeniedCall> denied) {
        this.denied = List.copyOf(denied);
        Set<String> names = new HashSet<>();
        for (DeniedCall d : this.denied) {
            if (!names.add(d.name())) {
                throw new IllegalStateException("syscall " + d.name() + " is denied twice");
            }
        }
        for (SeccompArch arch : SeccompArch.values()) {
            programs.put(arch, assemble(arch));
            profiles.put(arch, profile(arch));
        }
    }

    private static final SeccompFilter WARM_COMMANDS = new SeccompFilter(List.of(
            new DeniedCall("mq_open", new DeniedCall.Always(), DeniedCall.EPERM,
                    "a warm sandbox's IPC namespace outlives each command, and its POSIX message queues cannot be listed to be wiped"),
            new DeniedCall("mq_unlink", new DeniedCall.Always(), DeniedCall.EPERM, "as mq_open")));

    private static final SeccompFilter WARM_COMMANDS_ON_GVISOR = new SeccompFilter(List.of(
            WARM_COMMANDS.deniedCalls().get(0),
            WARM_COMMANDS.deniedCalls().get(1),
            new DeniedCall("shmget", new DeniedCall.Always(), DeniedCall.EPERM,
                    "gVisor's kernel has no /proc/sysvipc, so the System V objects a command left in the IPC namespace,"
                            + " which outlives each command of a warm sandbox, cannot be listed to be removed"),
            new DeniedCall("semget", new DeniedCall.Always(), DeniedCall.EPERM, "as shmget"),
            new DeniedCall("msgget", new DeniedCall.Always(), DeniedCall.EPERM, "as shmget")));

    /**
     * @return what each command of a warm sandbox loads on top of {@link #standard()}: POSIX message
     *     queues refused, the one kind of state a command could leave in the shared IPC namespace
     *     that the supervisor cannot find to remove; never {@code null}
     */
    public static SeccompFilter warmCommands() {
        return WARM_COMMANDS;
    }

    /**
     * @return what each command of a warm sandbox on gVisor loads: {@link #warmCommands()}, and System V
     *     IPC objects refused as well ({@code shmget}, {@code semget}, {@code msgget}), because gVisor's
     *     kernel has no {@code /proc/sysvipc} through which the supervisor finds and removes what a
     *     command left (a cold run's IPC namespace dies with it; a warm one outlives each command);
     *     never {@code null}
     */
    public static SeccompFilter warmCommandsOnGvisor() {
        return WARM_COMMANDS_ON_GVISOR;
    }

    /** @return the filter each warm command loads on a rung of {@code tier}; never {@code null} */
    public static SeccompFilter warmCommands(dev.toolyard.IsolationTier tier) {
        return tier == dev.toolyard.IsolationTier.GVISOR ? WARM_COMMANDS_ON_GVISOR : WARM_COMMANDS;
    }

    /** @return the standard filter, the deny list ToolYard uses on every rung; never {@code null} */
    public static SeccompFilter standard() {
        return STANDARD;
    }

    /**
     * The profile gVisor's {@code runsc} is given (with {@code oci-seccomp}). As measured on release
     * 20221219, runsc answers every {@code SCMP_ACT_ERRNO} rule with {@code EPERM}, whatever its
     * {@code errnoRet}: the one entry that answers something else, {@code clone3}'s {@code ENOSYS}
     * (which the C library needs to fall back to {@code clone}), would become {@code EPERM} and break
     * every thread. It is left out, and gVisor's own kernel, which does not implement {@code clone3},
     * answers {@code ENOSYS} in its place (the isolation tests show it on that rung). runsc also drops
     * the rules of calls its own table does not know ({@code mount_setattr}, {@code pidfd_getfd},
     * {@code process_madvise}, {@code quotactl_fd} there); gVisor's kernel implements none of them and
     * answers {@code ENOSYS}.
     *
     * @return this filter without the entries whose errno is not {@code EPERM}; never {@code null}
     */
    public SeccompFilter forGvisor() {
        return new SeccompFilter(denied.stream().filter(d -> d.errno() == DeniedCall.EPERM).toList());
    }

    /**
     * A filter with the same entries but {@code errno} where this one returns {@code EPERM}: a test
     * then tells a refusal of the filter from a refusal of the kernel's own checks.
     */
    SeccompFilter withDenyErrno(int errno) {
        List<DeniedCall> marked = new ArrayList<>();
        for (DeniedCall d : denied) {
            marked.add(d.errno() == DeniedCall.EPERM ? new DeniedCall(d.name(), d.when(), errno, d.why()) : d);
        }
        return new SeccompFilter(marked);
    }

    /** @return the deny list, in filter order; never {@code null}, unmodifiable */
    public List<DeniedCall> deniedCalls() {
        return denied;
    }

    /** @return the names of the denied system calls (some only with certain arguments), in filter order */
    public List<String> deniedNames() {
        return denied.stream().map(DeniedCall::name).toList();
    }

    /**
     * @return the program for {@code arch} as {@code struct sock_filter[]}, little-endian, 8 bytes an
     *     instruction, as bubblewrap reads it from {@code --seccomp FD}; a fresh copy
     */
    public byte[] bpfProgram(SeccompArch arch) {
        return programs.get(arch).clone();
    }

    /**
     * @return the program for the architecture of the running JVM
     * @throws IllegalStateException naming the architecture if there is no filter for it
     */
    public byte[] bpfProgramForHost() {
        return bpfProgram(SeccompArch.host());
    }

    /**
     * @return the OCI/Docker seccomp profile for {@code arch}, for {@code --security-opt seccomp=FILE}:
     *     default allow, only {@code arch} listed (libseccomp then treats every other ABI as a bad
     *     arch, which is fatal by default), and one {@code SCMP_ACT_ERRNO} rule per denied case;
     *     byte-stable for a given deny list
     */
    public String ociProfileJson(SeccompArch arch) {
        return profiles.get(arch);
    }

    /**
     * @return {@link #ociProfileJson(SeccompArch)} for the architecture of the running JVM
     * @throws IllegalStateException naming the architecture if there is no filter for it
     */
    public String ociProfileJson() {
        return ociProfileJson(SeccompArch.host());
    }

    /**
     * Writes {@code seccomp.bpf} and {@code seccomp.json} for the host's architecture into {@code dir},
     * each mode 0600, replacing files of those names (never following a link).
     *
     * @return {@code dir}
     * @throws IOException if a file cannot be written
     * @throws IllegalStateException naming the architecture if there is no filter for it
     */
    public Path writeTo(Path dir) throws IOException {
        SeccompArch arch = SeccompArch.host();
        write(dir.resolve("seccomp.bpf"), bpfProgram(arch));
        write(dir.resolve("seccomp.json"), ociProfileJson(arch).getBytes(StandardCharsets.UTF_8));
        return dir;
    }

    private static void write(Path file, byte[] bytes) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
    }

    private static List<DeniedCall> standardList() {
        List<DeniedCall> l = new ArrayList<>();
        DeniedCall.Always always = new DeniedCall.Always();
        String ns = "creates namespaces";
        l.add(new DeniedCall("unshare", new AnyFlagSet(0, NAMESPACE_FLAGS), DeniedCall.EPERM, ns));
        // clone(flags, ...) takes its flags first on both ABIs (aarch64 is CLONE_BACKWARDS, which only
        // swaps tls and child_tid).
        l.add(new DeniedCall("clone", new AnyFlagSet(0, NAMESPACE_FLAGS), DeniedCall.EPERM, ns));
        l.add(new DeniedCall("clone3", always, DeniedCall.ENOSYS, "flags unreadable by seccomp; libc falls back to clone"));
        l.add(new DeniedCall("setns", always, DeniedCall.EPERM, "enters namespaces"));
        String mount = "changes mounts";
        for (String n : List.of("mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick",
                "move_mount", "open_tree", "mount_setattr")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, mount));
        }
        String inspect = "reads or controls another process";
        for (String n : List.of("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, inspect));
        }
        String surface = "large kernel attack surface";
        for (String n : List.of("io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
                "userfaultfd")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, surface));
        }
        String podman = "denied by podman's default profile (containers-common) too";
        l.add(new DeniedCall("uselib", always, DeniedCall.EPERM, "loads a shared library the a.out way: obsolete, " + podman));
        l.add(new DeniedCall("vmsplice", always, DeniedCall.EPERM, "maps user pages into a pipe, a recurring source of "
                + "kernel bugs (Dirty Pipe's kin); " + podman));
        l.add(new DeniedCall("modify_ldt", always, DeniedCall.EPERM, "x86 segments for 16-bit code only, and a potential "
                + "information leak (Docker's reason to block it)"));
        for (String n : List.of("migrate_pages", "move_pages", "process_madvise")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, "moves or advises on another process's memory; " + podman));
        }
        l.add(new DeniedCall("io_pgetevents", always, DeniedCall.EPERM, "asynchronous I/O with a signal mask, little used; " + podman));
        for (String n : List.of("chroot", "fanotify_init", "lookup_dcookie", "quotactl", "quotactl_fd", "sethostname",
                "setdomainname", "vhangup", "ioperm", "iopl")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, "needs a capability the command never has; " + podman));
        }
        for (String n : List.of("_sysctl", "ustat", "sysfs", "nfsservctl", "create_module", "get_kernel_syms", "query_module",
                "afs_syscall", "getpmsg", "putpmsg", "security", "tuxcall", "vserver")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, "obsolete or never implemented; " + podman));
        }
        for (String n : List.of("keyctl", "add_key", "request_key")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, "kernel keyrings, not namespaced"));
        }
        String admin = "administers the host";
        for (String n : List.of("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
                "open_by_handle_at", "reboot", "swapon", "swapoff", "syslog", "acct", "settimeofday",
                "clock_settime")) {
            l.add(new DeniedCall(n, always, DeniedCall.EPERM, admin));
        }
        l.add(new DeniedCall("personality", new ArgNotIn(0, List.of(PER_LINUX, PERSONALITY_QUERY)), DeniedCall.EPERM,
                "other personas turn off address randomisation"));
        l.add(new DeniedCall("ioctl", new ArgIn(1, List.of(TIOCSTI, TIOCLINUX)), DeniedCall.EPERM,
                "types into the terminal"));
        return l;
    }

    private byte[] assemble(SeccompArch arch) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label kill = a.label("kill");
        BpfAssembler.Label allow = a.label("allow");
        Map<Integer, BpfAssembler.Label> errnoReturns = new TreeMap<>();
        for (DeniedCall d : denied) {
            errnoReturns.computeIfAbsent(d.errno(), e -> a.label("errno " + e));
        }
        a.loadWord(OFFSET_ARCH);
        a.jumpIfEqual(arch.auditArch(), null, kill);
        a.loadWord(OFFSET_NR);
        if (arch.hasX32Abi()) {
            a.jumpIfAtLeast(SeccompArch.X32_SYSCALL_BIT, kill, null);
        }
        Map<DeniedCall, BpfAssembler.Label> conditional = new LinkedHashMap<>();
        Set<Integer> numbers = new TreeSet<>();
        for (DeniedCall d : denied) {
            if (!SyscallTable.all().containsKey(d.name())) {
                throw new IllegalStateException("no " + arch + " number for syscall " + d.name());
            }
            if (!SyscallTable.exists(arch, d.name())) {
                continue; // this ABI has no such call (x86_64's modify_ldt on aarch64): nothing to deny
            }
            int nr = SyscallTable.number(arch, d.name()).orElseThrow();
            if (!numbers.add(nr)) {
                throw new IllegalStateException("two denied syscalls share " + arch + " number " + nr);
            }
            BpfAssembler.Label target;
            if (d.when() instanceof DeniedCall.Always) {
                target = errnoReturns.get(d.errno());
            } else {
                target = a.label(d.name());
                conditional.put(d, target);
            }
            a.jumpIfEqual(nr, target, null);
        }
        a.ret(RET_ALLOW);
        for (Map.Entry<DeniedCall, BpfAssembler.Label> e : conditional.entrySet()) {
            DeniedCall d = e.getKey();
            BpfAssembler.Label deny = errnoReturns.get(d.errno());
            a.bind(e.getValue());
            Condition c = d.when();
            if (c instanceof AnyFlagSet f) {
                a.loadWord(argLow(f.arg()));
                a.jumpIfAnySet(f.mask(), deny, allow);
            } else if (c instanceof ArgIn in) {
                a.loadWord(argLow(in.arg()));
                for (int v : in.values()) {
                    a.jumpIfEqual(v, deny, null);
                }
                a.ret(RET_ALLOW);
            } else if (c instanceof ArgNotIn notIn) {
                a.loadWord(argLow(notIn.arg()));
                for (int v : notIn.values()) {
                    a.jumpIfEqual(v, allow, null);
                }
                a.ret(RET_ERRNO | d.errno());
            } else {
                throw new IllegalStateException("unknown condition " + c);
            }
        }
        a.bind(kill).ret(RET_KILL_PROCESS);
        a.bind(allow).ret(RET_ALLOW);
        for (Map.Entry<Integer, BpfAssembler.Label> e : errnoReturns.entrySet()) {
            a.bind(e.getValue()).ret(RET_ERRNO | e.getKey());
        }
        return a.assemble();
    }

    /** The offset of the low word of argument {@code i}, on a little-endian ABI. */
    private static int argLow(int i) {
        return OFFSET_ARGS + 8 * i;
    }

    private String profile(SeccompArch arch) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("defaultAction", "SCMP_ACT_ALLOW");
        root.putArray("architectures").add(arch.ociName());
        ArrayNode rules = root.putArray("syscalls");
        for (DeniedCall d : denied) {
            if (!SyscallTable.exists(arch, d.name())) {
                continue; // no such call on this ABI
            }
            Condition c = d.when();
            if (c instanceof DeniedCall.Always) {
                rule(rules, d, -1, 0, 0);
            } else if (c instanceof AnyFlagSet f) {
                // Rules for one call are ORed: one per flag, each "(arg & flag) == flag".
                for (int bit = 0; bit < 32; bit++) {
                    int flag = 1 << bit;
                    if ((f.mask() & flag) != 0) {
                        rule(rules, d, f.arg(), flag, flag);
                    }
                }
            } else if (c instanceof ArgIn in) {
                // libseccomp compares all 64 bits; masking with 0xffffffff compares what the kernel reads.
                for (int v : in.values()) {
                    rule(rules, d, in.arg(), 0xffff_ffff, v);
                }
            } else if (c instanceof ArgNotIn notIn) {
                // Two comparisons of one argument in one rule are not ANDed: with runc 1.1.5 and
                // libseccomp 2.5.4, "NE 0" plus "NE 0xffffffff" denied personality(0) as well. So "not
                // in" becomes the complement of the allowed values as a union of one-comparison rules,
                // "(arg & prefixMask) == prefix" for every 32-bit prefix no allowed value starts with.
                List<long[]> cubes = new ArrayList<>();
                complement(new TreeSet<>(notIn.values().stream().map(Integer::toUnsignedLong).toList()), 31, 0, 0,
                        cubes);
                for (long[] cube : cubes) {
                    rule(rules, d, notIn.arg(), (int) cube[0], (int) cube[1]);
                }
            } else {
                throw new IllegalStateException("unknown condition " + c);
            }
        }
        return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }

    private static void complement(TreeSet<Long> values, int bit, long mask, long prefix, List<long[]> out) {
        if (values.isEmpty()) {
            out.add(new long[] {mask, prefix});
            return;
        }
        if (bit < 0) {
            return;
        }
        long b = 1L << bit;
        TreeSet<Long> zero = new TreeSet<>();
        TreeSet<Long> one = new TreeSet<>();
        for (long v : values) {
            ((v & b) == 0 ? zero : one).add(v);
        }
        complement(zero, bit - 1, mask | b, prefix, out);
        complement(one, bit - 1, mask | b, prefix | b, out);
    }

    private static void rule(ArrayNode rules, DeniedCall d, int arg, int mask, int value) {
        ObjectNode r = rules.addObject();
        r.putArray("names").add(d.name());
        r.put("action", "SCMP_ACT_ERRNO");
        r.put("errnoRet", d.errno());
        if (arg >= 0) {
            ObjectNode cmp = r.putArray("args").addObject();
            cmp.put("index", arg);
            cmp.put("value", Integer.toUnsignedLong(mask));
            cmp.put("valueTwo", Integer.toUnsignedLong(value));
            cmp.put("op", "SCMP_CMP_MASKED_EQ");
        }
        r.put("comment", d.why());
    }
}
