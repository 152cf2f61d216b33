package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LimitsTest {
    @Test
    void prlimitSetsEveryLimitNoCoreFilesAndEndsWithItsSeparator() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(2).memoryBytes(64L << 20).fileSizeBytes(4096).processCount(5).build();

        assertThat(Limits.prlimit(Path.of("/usr/bin/prlimit"), l, 6)).containsExactly("/usr/bin/prlimit", "--cpu=2",
                "--as=67108864", "--fsize=4096", "--nofile=1024", "--nproc=6", "--core=0", "--");
    }

    @Test
    void insideEnvReplacesTheEnvironmentInNameOrderBeforePrlimit() {
        assertThat(Limits.inside(Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"), Map.of("Z", "1", "A", "x=y"),
                ResourceLimits.defaults(), 65))
                .startsWith("/usr/bin/env", "-i", "--", "A=x=y", "Z=1", "/usr/bin/prlimit")
                .endsWith("--core=0", "--");
    }
}
