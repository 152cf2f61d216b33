package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.SandboxPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BindSetTest {
    @TempDir
    Path tmp;

    @Test
    void rootsAreBoundAtTheirRealPaths() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path ref = Files.createDirectories(tmp.resolve("ref"));
        Path link = Files.createSymbolicLink(tmp.resolve("work-link"), work);

        BindSet b = BindSet.of(SandboxPaths.of(link, ref), true);

        assertThat(b.writeRoot()).isEqualTo(work.toRealPath());
        assertThat(b.readRoots()).containsExactly(ref.toRealPath());
    }

    @Test
    void aMissingWriteRootOrReadRootIsACallerBug() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path file = Files.writeString(tmp.resolve("file"), "x");

        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(tmp.resolve("nope")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("writeRoot must be an existing directory");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(file), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("writeRoot must be an existing directory");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(work, tmp.resolve("gone")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("readRoots must exist");
    }

    @Test
    void aRootThatWouldExposeTheHostIsRefused() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("work"));

        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(Path.of("/usr")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system directory /usr");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(Path.of("/usr/lib")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system directory /usr");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(Path.of("/etc")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system directory /etc");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(Path.of("/proc/self")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/proc");
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(work, Path.of("/sys/kernel")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readRoots must not lie in /sys");
    }

    @Test
    void readRootsMayBeSystemFilesButNeverTheWholeHost() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("work"));

        assertThat(BindSet.of(SandboxPaths.of(work, Path.of("/usr/share")), false).readRoots())
                .containsExactly(Path.of("/usr/share"));
        assertThatThrownBy(() -> SandboxPaths.of(work, Path.of("/")))
                .as("core already refuses a read root containing the write root").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPathThatWouldChangeAMountOptionIsRefusedOnlyWhereOneIsBuilt() throws Exception {
        Path comma = Files.createDirectories(tmp.resolve("a,readonly=false"));

        assertThat(BindSet.of(SandboxPaths.of(comma), false).writeRoot()).isEqualTo(comma.toRealPath());
        assertThatThrownBy(() -> BindSet.of(SandboxPaths.of(comma), true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("comma");
    }
}
