package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SyscallTableTest {
    /** Debian's linux-libc-dev: syscall_64.tbl as a header. */
    static final Path X86_64_HEADER = Path.of("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
    /** The generic table arm64 uses. */
    static final Path GENERIC_HEADER = Path.of("/usr/include/asm-generic/unistd.h");
    static final Pattern DEFINE = Pattern.compile("^#define __NR(?:3264)?_(\\w+)\\s+(\\d+)\\s*$", Pattern.MULTILINE);

    static Map<String, Integer> header(Path p) throws IOException {
        Hosts.require(Files.isRegularFile(p), p + " is missing (install linux-libc-dev: .ci/setup-seccomp.sh)");
        Map<String, Integer> out = new HashMap<>();
        Matcher m = DEFINE.matcher(Files.readString(p));
        while (m.find()) {
            out.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void everyNumberIsTheOneInTheKernelHeaders(SeccompArch arch) throws IOException {
        Map<String, Integer> kernel = header(arch == SeccompArch.X86_64 ? X86_64_HEADER : GENERIC_HEADER);
        for (String name : SyscallTable.all().keySet()) {
            if (!SyscallTable.exists(arch, name)) {
                assertThat(kernel).as("the table says %s has no %s; the header agrees", arch, name).doesNotContainKey(name);
                continue;
            }
            assertThat(kernel).as("the header defines %s", name).containsKey(name);
            assertThat(SyscallTable.number(arch, name)).as(name).contains(kernel.get(name));
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompArch.class)
    void theNumbersAreDistinctOnEachArch(SeccompArch arch) {
        Set<Integer> seen = new HashSet<>();
        for (String name : SyscallTable.all().keySet()) {
            SyscallTable.number(arch, name).ifPresent(nr -> assertThat(seen.add(nr)).as(name).isTrue());
        }
    }

    @Test
    void everyDeniedCallIsInTheTableAndExistsOnSomeArch() {
        for (String name : SeccompFilter.standard().deniedNames()) {
            assertThat(SyscallTable.all()).as(name).containsKey(name);
            assertThat(java.util.Arrays.stream(SeccompArch.values()).anyMatch(a -> SyscallTable.exists(a, name))).as(name).isTrue();
        }
        assertThat(SyscallTable.exists(SeccompArch.AARCH64, "modify_ldt")).as("x86 only").isFalse();
        assertThat(SyscallTable.number(SeccompArch.AARCH64, "modify_ldt")).isEmpty();
    }

    @Test
    void aNameOutsideTheTableHasNoNumber() {
        assertThat(SyscallTable.number(SeccompArch.X86_64, "read")).isEmpty();
    }
}
