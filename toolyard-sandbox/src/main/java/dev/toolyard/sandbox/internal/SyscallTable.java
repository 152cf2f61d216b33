package dev.toolyard.sandbox.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The system-call numbers the seccomp filter names, per native ABI. Numbers are ABI, never
 * renumbered, so a table in Java is safe; a wrong number would silently leave a call open, so
 * {@code SyscallTableTest} checks every entry against the kernel headers when the host has them.
 *
 * <p>Sources: x86_64 from the kernel's {@code arch/x86/entry/syscalls/syscall_64.tbl} (as installed
 * in {@code /usr/include/x86_64-linux-gnu/asm/unistd_64.h} by Debian's {@code linux-libc-dev});
 * aarch64 from the generic table {@code include/uapi/asm-generic/unistd.h}, which arm64 uses (as
 * installed in {@code /usr/include/asm-generic/unistd.h}). Since Linux 5.1 new calls (424 and up)
 * have one number on every arch. Immutable. Thread-safe.
 */
final class SyscallTable {
    private static final Map<String, int[]> NUMBERS = table();

    private SyscallTable() {}

    /** Marks a call an ABI does not have (x86_64's {@code modify_ldt} on aarch64, say). */
    static final int NONE = -1;

    /**
     * @return the number of {@code name} on {@code arch}; empty if ToolYard's table lacks it, or the
     *     call does not exist on that ABI (see {@link #exists})
     */
    static Optional<Integer> number(SeccompArch arch, String name) {
        int[] n = NUMBERS.get(name);
        return n == null || n[arch.ordinal()] == NONE ? Optional.empty() : Optional.of(n[arch.ordinal()]);
    }

    /** @return whether the table lists {@code name} as a call {@code arch} has */
    static boolean exists(SeccompArch arch, String name) {
        return number(arch, name).isPresent();
    }

    /** @return every name in the table, in table order, each with its {x86_64, aarch64} numbers ({@link #NONE} where absent) */
    static Map<String, int[]> all() {
        return Collections.unmodifiableMap(NUMBERS);
    }

    private static Map<String, int[]> table() {
        Map<String, int[]> t = new LinkedHashMap<>();
        // name, x86_64, aarch64
        put(t, "unshare", 272, 97);
        put(t, "clone", 56, 220);
        put(t, "clone3", 435, 435);
        put(t, "setns", 308, 268);
        put(t, "mount", 165, 40);
        put(t, "umount2", 166, 39);
        put(t, "pivot_root", 155, 41);
        put(t, "fsopen", 430, 430);
        put(t, "fsconfig", 431, 431);
        put(t, "fsmount", 432, 432);
        put(t, "fspick", 433, 433);
        put(t, "move_mount", 429, 429);
        put(t, "open_tree", 428, 428);
        put(t, "mount_setattr", 442, 442);
        put(t, "ptrace", 101, 117);
        put(t, "process_vm_readv", 310, 270);
        put(t, "process_vm_writev", 311, 271);
        put(t, "kcmp", 312, 272);
        put(t, "pidfd_getfd", 438, 438);
        put(t, "io_uring_setup", 425, 425);
        put(t, "io_uring_enter", 426, 426);
        put(t, "io_uring_register", 427, 427);
        put(t, "bpf", 321, 280);
        put(t, "perf_event_open", 298, 241);
        put(t, "userfaultfd", 323, 282);
        put(t, "mq_open", 240, 180);
        put(t, "shmget", 29, 194);
        put(t, "semget", 64, 190);
        put(t, "msgget", 68, 186);
        put(t, "mq_unlink", 241, 181);
        put(t, "keyctl", 250, 219);
        put(t, "add_key", 248, 217);
        put(t, "request_key", 249, 218);
        put(t, "kexec_load", 246, 104);
        put(t, "kexec_file_load", 320, 294);
        put(t, "init_module", 175, 105);
        put(t, "finit_module", 313, 273);
        put(t, "delete_module", 176, 106);
        put(t, "open_by_handle_at", 304, 265);
        put(t, "reboot", 169, 142);
        put(t, "swapon", 167, 224);
        put(t, "swapoff", 168, 225);
        put(t, "syslog", 103, 116);
        put(t, "acct", 163, 89);
        put(t, "settimeofday", 164, 170);
        put(t, "clock_settime", 227, 112);
        put(t, "personality", 135, 92);
        put(t, "ioctl", 16, 29);
        // What podman's default profile (containers-common) denies beyond the above; see SeccompFilter.
        put(t, "uselib", 134, NONE);
        put(t, "vmsplice", 278, 75);
        put(t, "modify_ldt", 154, NONE);
        put(t, "_sysctl", 156, NONE);
        put(t, "afs_syscall", 183, NONE);
        put(t, "chroot", 161, 51);
        put(t, "create_module", 174, NONE);
        put(t, "fanotify_init", 300, 262);
        put(t, "get_kernel_syms", 177, NONE);
        put(t, "getpmsg", 181, NONE);
        put(t, "io_pgetevents", 333, 292);
        put(t, "ioperm", 173, NONE);
        put(t, "iopl", 172, NONE);
        put(t, "lookup_dcookie", 212, 18);
        put(t, "migrate_pages", 256, 238);
        put(t, "move_pages", 279, 239);
        put(t, "nfsservctl", 180, 42);
        put(t, "process_madvise", 440, 440);
        put(t, "putpmsg", 182, NONE);
        put(t, "query_module", 178, NONE);
        put(t, "quotactl", 179, 60);
        put(t, "quotactl_fd", 443, 443);
        put(t, "security", 185, NONE);
        put(t, "setdomainname", 171, 162);
        put(t, "sethostname", 170, 161);
        put(t, "sysfs", 139, NONE);
        put(t, "tuxcall", 184, NONE);
        put(t, "ustat", 136, NONE);
        put(t, "vhangup", 153, 58);
        put(t, "vserver", 236, NONE);
        return t;
    }

    private static void put(Map<String, int[]> t, String name, int x8664, int aarch64) {
        int[] n = new int[SeccompArch.values().length];
        n[SeccompArch.X86_64.ordinal()] = x8664;
        n[SeccompArch.AARCH64.ordinal()] = aarch64;
        if (t.put(name, n) != null) {
            throw new IllegalStateException("syscall " + name + " listed twice");
        }
    }
}
