package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarmBinaryTest {
    @TempDir
    Path dir;

    @Test
    void theJarCarriesTheSupervisorForThisPlatformAndItIsInstalledExecutableByAllWritableByNone() throws Exception {
        WarmBinary.Result r = WarmBinary.install(dir);

        assertThat(WarmBinary.missing()).isEmpty();
        assertThat(r.whyNot()).isEmpty();
        Path bin = r.path().orElseThrow();
        assertThat(bin).isEqualTo(dir.resolve("toolyard-warm"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(bin))).isEqualTo("rwxr-xr-x");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(bin);
        }
        // Outside a pid namespace of its own it refuses to start, saying why.
        Process p = new ProcessBuilder(bin.toString(), "7", "7", "1", "1", "1", "1", "1", "/w", "/tmp").redirectErrorStream(true).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(new String(p.getInputStream().readAllBytes())).contains("must be the init of its pid namespace");
    }

    @Test
    void execOnceRefusesAFilterThatIsNotWholeInstructionsInHexAndRunsNothing() throws Exception {
        Path bin = WarmBinary.install(dir).path().orElseThrow();
        Path marker = dir.resolve("ran");
        for (String filter : new String[] {"", "zz00000000000000", "0600000000ff7f", "060000000000FF7F", "0".repeat(2 * 32_768 + 16)}) {
            Process p = new ProcessBuilder(bin.toString(), "--exec-once", "1900012000", "1900012000", "60", "1073741824",
                    "67108864", "1024", "64", filter, "/", "--", "/usr/bin/touch", marker.toString()).redirectErrorStream(true).start();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("filter of %d characters", filter.length()).isEqualTo(2);
            assertThat(new String(p.getInputStream().readAllBytes())).contains("not a seccomp program in hex");
            assertThat(marker).doesNotExist();
        }
    }

    @Test
    void installingTwiceReplacesTheFileAtomically() throws IOException {
        Path first = WarmBinary.install(dir).path().orElseThrow();
        Path second = WarmBinary.install(dir).path().orElseThrow();

        assertThat(second).isEqualTo(first);
        assertThat(Files.size(second)).isPositive();
    }

    @Test
    void theResourceIsNamedByOperatingSystemAndArchitecture() {
        assertThat(WarmBinary.resource()).isEqualTo("warm/linux-" + System.getProperty("os.arch") + "/toolyard-warm");
    }
}
