package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxPathsTest {
    @TempDir
    Path tmp;

    @Test
    void aRelativeRootIsRefusedNamingTheParameter() {
        assertThatThrownBy(() -> SandboxPaths.of(Path.of("work")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writeRoot");
        assertThatThrownBy(() -> SandboxPaths.of(tmp, Path.of("docs")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readRoots");
    }

    @Test
    void rootsThatEqualOrContainOneAnotherAreRefused() {
        assertThatThrownBy(() -> SandboxPaths.of(tmp, tmp)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SandboxPaths.of(tmp.resolve("w"), tmp)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SandboxPaths.of(tmp, tmp.resolve("r"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rootsThatOverlapOnlyThroughASymlinkAreRefused() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), work);
        assertThatThrownBy(() -> SandboxPaths.of(work, alias)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void siblingRootsWithACommonPrefixAreTwoRoots() {
        SandboxPaths p = SandboxPaths.of(tmp.resolve("data"), tmp.resolve("database"));
        assertThat(p.readRoots()).containsExactly(tmp.resolve("database"));
    }
}
