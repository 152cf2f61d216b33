package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The syscall probe the isolation tests run inside a sandbox ({@code seccomp/syscall_probe.py}), and
 * the requests it is given, built from {@link SeccompFilter}'s own table so the numbers have one
 * source. For every denied entry there is at least one request whose arguments make the call fail
 * with an errno other than {@code EPERM} when nothing filters it (or, where the kernel's own checks
 * say {@code EPERM} first, the test tells the two apart with {@link SeccompFilter#withDenyErrno}),
 * and every conditional entry has allowed variants beside it. Public so the rung tests in other
 * packages can run it. Stateless.
 */
public final class SyscallProbe {
    /** {@code EHWPOISON}: an errno no call here returns by itself, for a filter marked with it. */
    public static final int MARKER_ERRNO = 133;
    /** The file name of the probe script in the directory {@link #install} writes. */
    public static final String SCRIPT = "syscall_probe.py";
    /** The file name of the requests in that directory. */
    public static final String CALLS = "calls.txt";

    static final String AT_FDCWD = "0xffffffffffffff9c";
    /** A descriptor number nothing has open: calls that get as far as looking it up fail with EBADF. */
    static final String BAD_FD = "987";
    /** A pid above any pid_max: calls that look it up fail with ESRCH. */
    static final String NO_PID = "0x3fffffff";
    static final String HIGH_BITS = "0xffffffff00000000";
    static final String MISSING = "s:/nonexistent-toolyard-probe";
    static final int CLONE_THREAD = 0x10000;
    static final int CLONE_FILES = 0x400;
    static final int SIGCHLD = 17;
    static final int ADDR_NO_RANDOMIZE = 0x0040000;
    static final int PER_LINUX32 = 0x0008;
    static final int FIONREAD = 0x541B;

    /**
     * One request to the probe.
     *
     * @param kind {@code call}, {@code native}, {@code threads} or {@code status}
     * @param label unique; {@code deny/<syscall>/<variant>} for a call the filter must refuse,
     *     {@code allow/...} for one it must let through, {@code abi/...} for a foreign ABI,
     *     {@code state/...} for a field of {@code /proc/self/status}
     * @param fields the rest of the line
     */
    public record Request(String kind, String label, List<String> fields) {
        String line() {
            return kind + " " + label + (fields.isEmpty() ? "" : " " + String.join(" ", fields));
        }

        /** @return whether the filter must refuse this request */
        public boolean denied() {
            return label.startsWith("deny/");
        }

        /** @return the denied syscall's name, for a {@code deny/} label */
        public String syscall() {
            return label.split("/")[1];
        }
    }

    private SyscallProbe() {}

    /** @return every request for {@code filter} on {@code arch}: each denied entry, then allowed calls, then ABIs */
    public static List<Request> requests(SeccompFilter filter, SeccompArch arch) {
        List<Request> out = new ArrayList<>();
        for (DeniedCall d : filter.deniedCalls()) {
            if (!SyscallTable.exists(arch, d.name())) {
                continue; // no such call on this ABI
            }
            String nr = Integer.toString(SyscallTable.number(arch, d.name()).orElseThrow());
            List<List<String>> variants = denyVariants(d.name());
            for (List<String> v : variants) {
                List<String> fields = new ArrayList<>();
                fields.add(nr);
                fields.addAll(v.subList(1, v.size()));
                out.add(new Request("call", "deny/" + d.name() + "/" + v.get(0), fields));
            }
        }
        out.addAll(allowed(arch));
        out.add(new Request("threads", "allow/python-threads", List.of("4")));
        // 2 = SECCOMP_MODE_FILTER: a filter is loaded (the engine's own default profile counts too)
        out.add(new Request("status", "state/seccomp-mode", List.of("Seccomp")));
        out.add(new Request("status", "state/no-new-privs", List.of("NoNewPrivs")));
        // PR_GET_NO_NEW_PRIVS (39), asked of the kernel itself: gVisor's /proc/self/status has no such line
        out.add(new Request("ret", "state/prctl-no-new-privs", List.of(OtherCalls.number(arch, "prctl"), "39", "0", "0", "0", "0")));
        if (arch == SeccompArch.X86_64) {
            // mov eax, 20 (getpid on i386); int 0x80; ret
            out.add(new Request("native", "abi/i386-getpid", List.of("b814000000cd80c3")));
            // mov eax, 0x40000027 (getpid with the x32 bit); syscall; ret
            out.add(new Request("native", "abi/x32-getpid", List.of("b8270000400f05c3")));
        }
        return out;
    }

    /**
     * Arguments per denied call, the variant's name first. The comment on each says what the call
     * returned with no filter on the development host (Linux 6.18, both rungs, no capabilities; the
     * tests print the whole table); "EPERM" there marks a call whose own checks refuse first, which
     * only the run with the marked filter tells apart from the filter's refusal.
     */
    private static List<List<String>> denyVariants(String name) {
        switch (name) {
            case "unshare": {
                List<List<String>> v = new ArrayList<>();
                for (SeccompFilter.Flag f : SeccompFilter.Flag.values()) {
                    v.add(List.of(f.name(), hex(f.bit))); // EPERM (no CAP_SYS_ADMIN) or ENOSPC/0 for NEWUSER
                }
                v.add(List.of("CLONE_NEWUSER+high-bits", hexHigh(SeccompFilter.Flag.CLONE_NEWUSER.bit))); // EINVAL
                return v;
            }
            case "clone": {
                // With CLONE_THREAD but not CLONE_SIGHAND, copy_process says EINVAL before anything else,
                // so even unfiltered no process is made.
                List<List<String>> v = new ArrayList<>();
                for (SeccompFilter.Flag f : SeccompFilter.Flag.values()) {
                    v.add(List.of(f.name(), hex(f.bit | CLONE_THREAD), "0", "0", "0", "0"));
                }
                v.add(List.of("CLONE_NEWUSER+high-bits", hexHigh(SeccompFilter.Flag.CLONE_NEWUSER.bit | CLONE_THREAD),
                        "0", "0", "0", "0"));
                return v;
            }
            case "clone3":
                return List.of(List.of("null-args", "0", "0")); // EINVAL: size below CLONE_ARGS_SIZE_VER0
            case "setns":
                return List.of(List.of("bad-fd", BAD_FD, "0")); // EBADF
            case "mount":
                return List.of(List.of("missing-target", "0", MISSING, "0", "0", "0")); // ENOENT
            case "umount2":
                return List.of(List.of("bad-flags", "s:/", "0x100")); // EINVAL
            case "pivot_root":
                return List.of(List.of("missing", MISSING, MISSING)); // EPERM
            case "fsopen":
                return List.of(List.of("no-such-fs", "s:toolyard-nofs", "0")); // EPERM
            case "fsconfig":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0", "0")); // EINVAL
            case "fsmount":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0")); // EPERM
            case "fspick":
                return List.of(List.of("missing", AT_FDCWD, MISSING, "0")); // EPERM
            case "move_mount":
                return List.of(List.of("missing", AT_FDCWD, MISSING, AT_FDCWD, MISSING, "0")); // EPERM
            case "open_tree":
                return List.of(List.of("missing", AT_FDCWD, MISSING, "0")); // ENOENT
            case "mount_setattr":
                return List.of(List.of("bad-size", BAD_FD, "s:", "0", "0", "0")); // EINVAL
            case "ptrace":
                return List.of(List.of("attach-no-pid", "16", NO_PID, "0", "0")); // ESRCH
            case "process_vm_readv":
            case "process_vm_writev":
                return List.of(List.of("bad-flags", NO_PID, "0", "0", "0", "0", "1")); // EINVAL
            case "kcmp":
                return List.of(List.of("no-pid", NO_PID, NO_PID, "0", "0", "0")); // ESRCH
            case "pidfd_getfd":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0")); // EBADF
            case "io_uring_setup":
                return List.of(List.of("null-params", "1", "0")); // EFAULT
            case "io_uring_enter":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0", "0", "0")); // EBADF
            case "io_uring_register":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0")); // EBADF
            case "bpf":
                return List.of(List.of("bad-cmd", "0xffff", "0", "0")); // EINVAL
            case "perf_event_open":
                return List.of(List.of("null-attr", "0", "0", "0xffffffff", "0xffffffff", "0")); // EFAULT
            case "userfaultfd":
                return List.of(List.of("bad-flags", "5", "0")); // EINVAL (1 = UFFD_USER_MODE_ONLY, 4 unknown)
            case "keyctl":
                return List.of(List.of("bad-op", "0xffff", "0", "0", "0", "0")); // EOPNOTSUPP
            case "add_key":
                return List.of(List.of("null-type", "0", "0", "0", "0", "0")); // EFAULT
            case "request_key":
                return List.of(List.of("null-type", "0", "0", "0", "0")); // EFAULT
            case "kexec_load":
                // ENOSYS on the development host, whose kernel has no kexec or modules; EPERM on most
                return List.of(List.of("nothing", "0", "0", "0", "0"));
            case "kexec_file_load":
                return List.of(List.of("bad-fd", BAD_FD, BAD_FD, "0", "0", "0")); // ENOSYS, see kexec_load
            case "init_module":
                return List.of(List.of("null-image", "0", "0", "s:")); // ENOSYS, see kexec_load
            case "finit_module":
                return List.of(List.of("bad-fd", BAD_FD, "s:", "0")); // ENOSYS, see kexec_load
            case "delete_module":
                return List.of(List.of("no-module", "s:toolyard_nomod", "0")); // ENOSYS, see kexec_load
            case "open_by_handle_at":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0")); // EFAULT
            case "reboot":
                return List.of(List.of("bad-magic", "0", "0", "0", "0")); // EPERM; with the capability, EINVAL
            case "swapon":
                return List.of(List.of("missing", MISSING, "0")); // EPERM
            case "swapoff":
                return List.of(List.of("missing", MISSING)); // EPERM
            case "syslog":
                return List.of(List.of("bad-type", "0xffff", "0", "0")); // EPERM (dmesg_restrict comes first)
            case "acct":
                return List.of(List.of("off", "0")); // EPERM
            case "settimeofday":
                return List.of(List.of("nothing", "0", "0")); // EPERM
            case "clock_settime":
                return List.of(List.of("bad-clock", "0xffff", "0")); // EINVAL
            case "personality":
                return List.of(
                        List.of("ADDR_NO_RANDOMIZE", hex(ADDR_NO_RANDOMIZE)), // succeeds
                        List.of("PER_LINUX32", hex(PER_LINUX32)), // succeeds
                        // the kernel takes an unsigned int: this is ADDR_NO_RANDOMIZE again
                        List.of("ADDR_NO_RANDOMIZE+high-bits", hexHigh(ADDR_NO_RANDOMIZE)));
            case "ioctl":
                return List.of(
                        List.of("TIOCSTI", BAD_FD, hex(SeccompFilter.TIOCSTI), "0"), // EBADF
                        List.of("TIOCLINUX", BAD_FD, hex(SeccompFilter.TIOCLINUX), "0"), // EBADF
                        // the kernel takes cmd as an unsigned int: this is TIOCSTI again
                        List.of("TIOCSTI+high-bits", BAD_FD, hexHigh(SeccompFilter.TIOCSTI), "0"));
            // Calls podman's default profile denies too: each with arguments the kernel refuses (or that do
            // nothing) even where the call is allowed, so an unfiltered run stays harmless.
            case "uselib":
                return List.of(List.of("missing", MISSING)); // ENOENT, or ENOSYS without CONFIG_USELIB
            case "vmsplice":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0")); // EBADF
            case "modify_ldt":
                return List.of(List.of("bad-func", "0xff", "0", "0")); // ENOSYS
            case "migrate_pages":
                return List.of(List.of("no-pid", NO_PID, "0", "0", "0")); // ESRCH
            case "move_pages":
                return List.of(List.of("no-pid", NO_PID, "0", "0", "0", "0", "0")); // ESRCH
            case "process_madvise":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0", "0")); // EBADF
            case "io_pgetevents":
                return List.of(List.of("no-context", "0", "0", "0", "0", "0", "0")); // EINVAL
            case "chroot":
                return List.of(List.of("missing", MISSING)); // ENOENT
            case "fanotify_init":
                return List.of(List.of("bad-flags", "0xffffffff", "0")); // EINVAL or EPERM
            case "lookup_dcookie":
                return List.of(List.of("nothing", "0", "0", "0")); // EPERM, or ENOSYS where removed
            case "quotactl":
                return List.of(List.of("bad-cmd", "0", MISSING, "0", "0")); // EINVAL or ENOENT
            case "quotactl_fd":
                return List.of(List.of("bad-fd", BAD_FD, "0", "0", "0")); // EBADF
            case "sethostname":
            case "setdomainname":
                return List.of(List.of("too-long", "0", "0xffff")); // EPERM; with the capability, EINVAL
            case "vhangup":
                return List.of(List.of("nothing")); // EPERM
            case "ioperm":
                return List.of(List.of("no-ports", "0", "0", "0")); // EINVAL
            case "iopl":
                return List.of(List.of("bad-level", "4")); // EINVAL
            case "_sysctl":
            case "ustat":
                return List.of(List.of("null", "0", "0")); // ENOSYS or EFAULT
            case "sysfs":
                return List.of(List.of("bad-option", "0xff", "0", "0")); // EINVAL
            case "nfsservctl":
            case "create_module":
            case "get_kernel_syms":
            case "query_module":
            case "afs_syscall":
            case "getpmsg":
            case "putpmsg":
            case "security":
            case "tuxcall":
            case "vserver":
                return List.of(List.of("nothing")); // ENOSYS: never implemented, or removed
            default:
                throw new IllegalStateException("the probe has no request for the denied syscall " + name
                        + "; add one to SyscallProbe.denyVariants");
        }
    }

    private static List<Request> allowed(SeccompArch arch) {
        List<Request> out = new ArrayList<>();
        String clone = nr(arch, "clone");
        String unshare = nr(arch, "unshare");
        String personality = nr(arch, "personality");
        String ioctl = nr(arch, "ioctl");
        out.add(call("allow/read-bad-fd", OtherCalls.number(arch, "read"), BAD_FD, "0", "0"));
        out.add(call("allow/openat-missing", OtherCalls.number(arch, "openat"), AT_FDCWD, MISSING, "0"));
        out.add(call("allow/getpid", OtherCalls.number(arch, "getpid")));
        out.add(call("allow/clone-fork", clone, Integer.toString(SIGCHLD), "0", "0", "0", "0"));
        out.add(call("allow/unshare-nothing", unshare, "0"));
        out.add(call("allow/unshare-files", unshare, hex(CLONE_FILES)));
        out.add(call("allow/personality-linux", personality, "0"));
        out.add(call("allow/personality-query", personality, "0xffffffff"));
        out.add(call("allow/personality-query-64-bit", personality, "0xffffffffffffffff"));
        out.add(call("allow/ioctl-FIONREAD", ioctl, BAD_FD, hex(FIONREAD), "0"));
        return out;
    }

    private static Request call(String label, String nr, String... args) {
        List<String> f = new ArrayList<>();
        f.add(nr);
        f.addAll(List.of(args));
        return new Request("call", label, f);
    }

    private static String nr(SeccompArch arch, String name) {
        return Integer.toString(SyscallTable.number(arch, name).orElseThrow());
    }

    private static String hex(int v) {
        return "0x" + Integer.toHexString(v);
    }

    private static String hexHigh(int low) {
        return "0xffffffff" + String.format("%08x", low);
    }

    /**
     * Writes the probe script and the requests into {@code dir}, readable by any uid (the sandbox may
     * run as an unprivileged one), and makes {@code dir} itself searchable.
     *
     * @return {@code dir}
     */
    public static Path install(Path dir, List<Request> requests) throws IOException {
        try (InputStream in = SyscallProbe.class.getResourceAsStream("/seccomp/" + SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException("the test resource seccomp/" + SCRIPT + " is missing");
            }
            Files.write(dir.resolve(SCRIPT), in.readAllBytes());
        }
        StringBuilder sb = new StringBuilder("# written by SyscallProbe from SeccompFilter's table\n");
        for (Request r : requests) {
            sb.append(r.line()).append('\n');
        }
        Files.writeString(dir.resolve(CALLS), sb.toString(), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(dir.resolve(SCRIPT), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(dir.resolve(CALLS), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** @return the command that runs the probe installed in {@code dir}, as seen at {@code dir} inside the sandbox */
    public static List<String> command(Path dir) {
        return List.of("/usr/bin/python3", dir.resolve(SCRIPT).toString(), dir.resolve(CALLS).toString());
    }

    /** @return the probe's output as label → result, in output order */
    public static Map<String, String> parse(String stdout) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : stdout.split("\n")) {
            String[] f = line.strip().split(" ", 2);
            if (f.length == 2) {
                out.put(f[0], f[1]);
            }
        }
        return out;
    }

    /** @return what the standard filter makes of each denied request: EPERM, or ENOSYS for clone3 */
    public static Map<String, String> expectedDenials(SeccompFilter filter, List<Request> requests) {
        Map<String, Integer> errnos = new LinkedHashMap<>();
        for (DeniedCall d : filter.deniedCalls()) {
            errnos.put(d.name(), d.errno());
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Request r : requests) {
            if (r.denied()) {
                out.put(r.label(), Integer.toString(errnos.get(r.syscall())));
            }
        }
        return out;
    }

    /**
     * The denied calls gVisor's {@code runsc} (release 20221219) drops from the profile because its
     * own system-call table does not know them, and that gVisor's kernel does not implement: there
     * they fail with {@code ENOSYS} and have no effect, refused by the user-space kernel rather than
     * by the filter.
     */
    public static final java.util.Set<String> UNKNOWN_TO_GVISOR = java.util.Set.of("mount_setattr", "pidfd_getfd",
            "process_madvise", "quotactl_fd");

    /**
     * @return {@code expected} with the errno gVisor's kernel answers where the filter does not reach
     *     on that rung: {@code ENOSYS} for {@link #UNKNOWN_TO_GVISOR}; {@code clone3} is {@code ENOSYS}
     *     already, answered there by gVisor itself ({@link SeccompFilter#forGvisor()})
     */
    public static Map<String, String> expectedOnGvisor(Map<String, String> expected) {
        Map<String, String> out = new LinkedHashMap<>(expected);
        out.replaceAll((label, errno) -> UNKNOWN_TO_GVISOR.contains(label.split("/")[1])
                ? Integer.toString(DeniedCall.ENOSYS) : errno);
        return out;
    }

    /** SIGSYS: what seccomp's {@code KILL_PROCESS} ends a process with. */
    public static final String KILLED_BY_THE_FILTER = "signal=31";
    static final String X32_GETPID = "abi/x32-getpid";
    private static final Pattern RETURNED = Pattern.compile("ret=(-?\\d+)");
    private static Map<String, String> hostAbi;

    /**
     * What each {@code abi/} request does on this host with no sandbox and no filter around it, run
     * once per test JVM. Some hosts have no foreign ABI at all: a kernel without IA-32 emulation
     * answers {@code int 0x80} with {@code SIGSEGV} before any seccomp filter is consulted, and one
     * without x32 says {@code ENOSYS}.
     *
     * @return label → outcome, as the probe prints it; empty on a host that is not x86_64
     */
    public static synchronized Map<String, String> hostAbi() throws IOException, InterruptedException {
        if (hostAbi == null) {
            List<Request> abi = requests(SeccompFilter.standard(), SeccompArch.host()).stream()
                    .filter(r -> r.label().startsWith("abi/")).toList();
            if (abi.isEmpty()) {
                hostAbi = Map.of();
            } else {
                Path dir = Files.createTempDirectory("toolyard-abi-probe-");
                String out;
                try {
                    install(dir, abi);
                    Process p = new ProcessBuilder(command(dir)).redirectErrorStream(true).start();
                    out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                        p.destroyForcibly();
                        throw new IllegalStateException("the ABI probe failed on the host: " + out);
                    }
                } finally {
                    try (Stream<Path> left = Files.walk(dir)) {
                        for (Path f : (Iterable<Path>) left.sorted(Comparator.reverseOrder())::iterator) {
                            Files.deleteIfExists(f);
                        }
                    }
                }
                Map<String, String> got = parse(out);
                if (!got.keySet().equals(abi.stream().map(Request::label).collect(Collectors.toSet()))) {
                    throw new IllegalStateException("the ABI probe answered " + got + " for " + abi);
                }
                hostAbi = Map.copyOf(got);
            }
        }
        return hostAbi;
    }

    /**
     * @return whether a probe outcome is a system call that went through: a {@code ret=} that is not
     *     a negative errno (getpid answers a pid)
     */
    public static boolean succeeded(String outcome) {
        Matcher m = RETURNED.matcher(outcome == null ? "" : outcome);
        return m.matches() && Long.parseLong(m.group(1)) >= 0;
    }

    /** @return {@code outcomes} with every success (a pid, which differs between namespaces) written {@code "succeeded"} */
    public static Map<String, String> kinds(Map<String, String> outcomes) {
        Map<String, String> out = new LinkedHashMap<>();
        outcomes.forEach((k, v) -> out.put(k, succeeded(v) ? "succeeded" : v));
        return out;
    }

    /**
     * What a sandbox with the standard filter must show for each foreign-ABI request on this host:
     * where the ABI works on the host (and always for x32, whose number seccomp sees first), the
     * filter's kill ({@value #KILLED_BY_THE_FILTER}); where the host itself refuses it before any
     * filter, the host's own refusal or the filter's kill, never a success.
     *
     * @return a description of every {@code abi/} outcome in {@code sandboxed} that breaks that rule;
     *     empty when none does
     */
    public static List<String> foreignAbiViolations(Map<String, String> sandboxed) throws IOException, InterruptedException {
        return foreignAbiViolations(hostAbi(), sandboxed);
    }

    /**
     * As {@link #foreignAbiViolations(Map)} for a run on gVisor, whose kernel (not the host's) takes
     * every system call, so what the bare host does with a foreign ABI does not decide the outcome:
     * each foreign call must fail or be killed, never succeed. Seen here: an x32 number is one gVisor's
     * kernel does not know (ENOSYS, before its seccomp filter sees it), and on a host whose kernel runs
     * IA-32 calls (its own getpid by {@code int $0x80} answered a pid), gVisor answered the same
     * {@code int $0x80} with -9 (EBADF): its kernel has no IA-32 table.
     */
    public static List<String> foreignAbiViolationsOnGvisor(Map<String, String> sandboxed) throws IOException, InterruptedException {
        return foreignAbiViolationsOnGvisor(hostAbi(), sandboxed);
    }

    /** As {@link #foreignAbiViolationsOnGvisor(Map)}, against a given host outcome (for the rule's own tests). */
    static List<String> foreignAbiViolationsOnGvisor(Map<String, String> host, Map<String, String> sandboxed) {
        List<String> bad = new ArrayList<>();
        for (Map.Entry<String, String> e : host.entrySet()) {
            String got = sandboxed.get(e.getKey());
            if (got == null || succeeded(got)) {
                bad.add(e.getKey() + ": " + got + " in the sandbox (gVisor), " + e.getValue() + " on the bare host");
            }
        }
        return bad;
    }

    /** As {@link #foreignAbiViolations(Map)}, against a given host outcome (for the rule's own tests). */
    static List<String> foreignAbiViolations(Map<String, String> host, Map<String, String> sandboxed) {
        List<String> bad = new ArrayList<>();
        for (Map.Entry<String, String> e : host.entrySet()) {
            String got = sandboxed.get(e.getKey());
            // seccomp sees an x32 number on entry, before a kernel without x32 answers ENOSYS: the
            // filter's kill is observable on every x86_64 host. An int 0x80 without IA-32 emulation
            // faults before seccomp is consulted, so there only "not a success" can be asserted.
            boolean filterReached = succeeded(e.getValue()) || e.getKey().equals(X32_GETPID);
            boolean ok = filterReached
                    ? KILLED_BY_THE_FILTER.equals(got)
                    : got != null && !succeeded(got) && (got.equals(KILLED_BY_THE_FILTER) || got.equals(e.getValue()));
            if (!ok) {
                bad.add(e.getKey() + ": " + got + " in the sandbox, " + e.getValue() + " on the bare host");
            }
        }
        return bad;
    }

    /** Numbers of calls the filter allows, which only the tests need; same sources as {@link SyscallTable}. */
    static final class OtherCalls {
        private OtherCalls() {}

        static String number(SeccompArch arch, String name) {
            int[] n;
            switch (name) {
                case "read":
                    n = new int[] {0, 63};
                    break;
                case "write":
                    n = new int[] {1, 64};
                    break;
                case "openat":
                    n = new int[] {257, 56};
                    break;
                case "execve":
                    n = new int[] {59, 221};
                    break;
                case "getpid":
                    n = new int[] {39, 172};
                    break;
                case "prctl":
                    n = new int[] {157, 167};
                    break;
                default:
                    throw new IllegalArgumentException(name);
            }
            return Integer.toString(n[arch.ordinal()]);
        }
    }
}
