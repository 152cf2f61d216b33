package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LimitsTest {
    @Test
    void prlimitSetsEveryLimitNoCoreFilesAndEndsWithItsSeparator() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(2).memoryBytes(64L << 20).fileSizeBytes(4096).processCount(5).build();

        assertThat(Limits.prlimit(Path.of("/usr/bin/prlimit"), l, 6)).containsExactly("/usr/bin/prlimit", "--cpu=2",
                "--as=67108864", "--fsize=4096", "--nofile=1024", "--nproc=6", "--core=0", "--");
    }

    @Test
    void theLauncherPassesEveryVariablePartAsAPositionalArgumentInDashsUnits() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(2).memoryBytes(64L << 20).fileSizeBytes(4096 + 100).processCount(5).build();

        List<String> a = Limits.launcher(Path.of("/usr/bin/dash"), l, 6, Optional.of(Path.of("/run/x/seccomp.bpf")));

        assertThat(a).containsExactly("/usr/bin/dash", "-c", Limits.LAUNCHER, "toolyard-launch", "2", "65536", "8", "1024", "6",
                "/run/x/seccomp.bpf");
        assertThat(Limits.LAUNCHER).doesNotContain("/run/x", "65536").contains("exec \"$@\"", "exec 9<\"$6\"");
        assertThat(Limits.launcher(Path.of("/usr/bin/dash"), l, 6, Optional.empty())).endsWith("-");
    }

    @Test
    void aFileSizeBelowOneBlockIsOneBlockAndOtherwiseRoundedDown() {
        assertThat(Limits.fileSizeBlocks(ResourceLimits.builder().fileSizeBytes(1).build())).isEqualTo(1);
        assertThat(Limits.fileSizeBlocks(ResourceLimits.builder().fileSizeBytes(1023).build())).isEqualTo(1);
        assertThat(Limits.fileSizeBlocks(ResourceLimits.builder().fileSizeBytes(1024).build())).isEqualTo(2);
    }

    @Test
    void execOnceNamesTheIdsTheLimitsAsTheLauncherRoundsThemTheFilterInHexAndTheWriteRootThenTheWholeEnvironment() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(7).memoryBytes(10_000_000).fileSizeBytes(1_000).build();
        byte[] program = {0x06, 0x00, 0x00, 0x00, 0x00, 0x00, (byte) 0xff, 0x7f};
        assertThat(Limits.execOnce(new SandboxIds.Pair(-2, 7), l, 12, Optional.of(Limits.hex(program)), Path.of("/ws"),
                Map.of("PATH", "/bin", "A", "x=y")))
                .containsExactly("--exec-once", "4294967294", "7", "7", "9999360", "512", "1024", "12", "060000000000ff7f", "/ws",
                        "A=x=y", "PATH=/bin", "--");
        assertThat(Limits.execOnce(new SandboxIds.Pair(5, 7), l, 12, Optional.empty(), Path.of("/ws"), Map.of()))
                .containsExactly("--exec-once", "5", "7", "7", "9999360", "512", "1024", "12", "-", "/ws", "--");
    }

    @Test
    void insideEnvReplacesTheEnvironmentInNameOrderBeforePrlimit() {
        assertThat(Limits.inside(Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"), Map.of("Z", "1", "A", "x=y"),
                ResourceLimits.defaults(), 65))
                .startsWith("/usr/bin/env", "-i", "--", "A=x=y", "Z=1", "/usr/bin/prlimit")
                .endsWith("--core=0", "--");
    }

    @Test
    void theWarmLauncherSetsNoLimitOnTheSupervisorAndTheSupervisorGetsEachCommandsLimitsAsAColdRunSetsThem() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(2).memoryBytes((64L << 20) + 100).fileSizeBytes(4096 + 100)
                .processCount(5).build();
        SandboxIds.Pair lease = new SandboxIds.Pair(2147450881, 2147450882);

        assertThat(Limits.warmLauncher(Path.of("/usr/bin/dash"), Optional.of(Path.of("/run/x/seccomp.bpf"))))
                .containsExactly("/usr/bin/dash", "-c", Limits.WARM_LAUNCHER, "toolyard-launch", "1024", "/run/x/seccomp.bpf");
        assertThat(Limits.WARM_LAUNCHER).doesNotContain("ulimit -t", "ulimit -v", "ulimit -f", "ulimit -p")
                .contains("exec \"$@\"", "exec 9<\"$2\"");
        assertThat(Limits.warmSupervisorArguments(lease, l, true, 6, Path.of("/w"), List.of("/tmp")))
                .as("in the launcher's units, rounded down").containsExactly("2147450881", "2147450882", "2", "67108864",
                        "4096", "1024", "6", "/w", "/tmp");
        assertThat(Limits.warmSupervisorArguments(lease, l, false, 6, Path.of("/w"), List.of("/tmp", "/var/tmp")))
                .as("in bytes, as prlimit").containsExactly("2147450881", "2147450882", "2", "67108964", "4196", "1024", "6",
                        "/w", "/tmp", "/var/tmp");
    }
}
