package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SeccompArchTest {
    @Test
    void theJvmsNamesForEachArchMapToIt() {
        assertThat(SeccompArch.forOsArch("amd64")).isEqualTo(SeccompArch.X86_64);
        assertThat(SeccompArch.forOsArch("x86_64")).isEqualTo(SeccompArch.X86_64);
        assertThat(SeccompArch.forOsArch("aarch64")).isEqualTo(SeccompArch.AARCH64);
    }

    @Test
    void anArchWithoutAFilterFailsNamingIt() {
        assertThatThrownBy(() -> SeccompArch.forOsArch("riscv64")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("riscv64");
        assertThatThrownBy(() -> SeccompArch.forOsArch("x86")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("x86");
    }

    @Test
    void theAuditArchesAreTheKernels() {
        // EM_X86_64 = 62, EM_AARCH64 = 183, | __AUDIT_ARCH_64BIT (0x80000000) | __AUDIT_ARCH_LE (0x40000000)
        assertThat(SeccompArch.X86_64.auditArch()).isEqualTo(0x8000_0000 | 0x4000_0000 | 62);
        assertThat(SeccompArch.AARCH64.auditArch()).isEqualTo(0x8000_0000 | 0x4000_0000 | 183);
        assertThat(SeccompArch.X86_64.ociName()).isEqualTo("SCMP_ARCH_X86_64");
        assertThat(SeccompArch.AARCH64.ociName()).isEqualTo("SCMP_ARCH_AARCH64");
    }

    @Test
    void onlyX8664HasAnX32Abi() {
        assertThat(SeccompArch.X86_64.hasX32Abi()).isTrue();
        assertThat(SeccompArch.AARCH64.hasX32Abi()).isFalse();
    }

    @Test
    void theHostIsTheJvmsArch() {
        assertThat(SeccompArch.host()).isEqualTo(SeccompArch.forOsArch(System.getProperty("os.arch")));
    }
}
