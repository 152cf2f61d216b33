package dev.toolyard.sandbox.internal;

import java.util.Locale;

/**
 * The native system-call ABIs ToolYard's seccomp filter is built for, each with the audit
 * architecture the kernel reports in {@code seccomp_data.arch}. Any other value there (the i386 ABI
 * reached with {@code int 0x80} from an x86_64 process, arm32 compat on aarch64) is a foreign ABI
 * with its own syscall numbers, so the filter kills the process instead of reading {@code nr}.
 * Both ABIs are little-endian, which is why an argument's low 32 bits sit at offset {@code 16 + 8*i}.
 */
public enum SeccompArch {
    /** {@code AUDIT_ARCH_X86_64} = {@code EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE}. */
    X86_64(0xC000_003E, true, "SCMP_ARCH_X86_64"),
    /** {@code AUDIT_ARCH_AARCH64} = {@code EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE}. */
    AARCH64(0xC000_00B7, false, "SCMP_ARCH_AARCH64");

    /**
     * {@code __X32_SYSCALL_BIT}: on x86_64 the x32 ABI reports the x86_64 audit arch and sets this bit
     * in {@code nr}, so the arch check alone does not keep it out.
     */
    static final int X32_SYSCALL_BIT = 0x4000_0000;

    private final int auditArch;
    private final boolean x32Bit;
    private final String ociName;

    SeccompArch(int auditArch, boolean x32Bit, String ociName) {
        this.auditArch = auditArch;
        this.x32Bit = x32Bit;
        this.ociName = ociName;
    }

    /** @return the {@code AUDIT_ARCH_*} value the kernel puts in {@code seccomp_data.arch} */
    public int auditArch() {
        return auditArch;
    }

    /** @return whether syscall numbers with {@link #X32_SYSCALL_BIT} set are another ABI on this arch */
    public boolean hasX32Abi() {
        return x32Bit;
    }

    /** @return the name of this arch in an OCI/Docker seccomp profile ({@code SCMP_ARCH_*}) */
    public String ociName() {
        return ociName;
    }

    /**
     * @param osArch a value of the {@code os.arch} system property
     * @return the arch it names
     * @throws IllegalStateException naming {@code osArch} if ToolYard has no filter for it
     */
    public static SeccompArch forOsArch(String osArch) {
        switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64":
            case "x86_64":
                return X86_64;
            case "aarch64":
            case "arm64":
                return AARCH64;
            default:
                throw new IllegalStateException("no seccomp filter for the architecture os.arch=" + osArch
                        + " (ToolYard builds one for x86_64 and aarch64)");
        }
    }

    /**
     * @return the arch of the running JVM
     * @throws IllegalStateException naming the arch if ToolYard has no filter for it
     */
    public static SeccompArch host() {
        return forOsArch(System.getProperty("os.arch", "unknown"));
    }
}
