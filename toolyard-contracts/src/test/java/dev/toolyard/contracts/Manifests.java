package dev.toolyard.contracts;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.testing.Skip;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The test manifests under src/test/resources/contracts, a real sandbox, and loud skips. */
final class Manifests {
    private Manifests() {}

    static Path path(String name) {
        try {
            return Path.of(Manifests.class.getResource("/contracts/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    static String text(String name) {
        try {
            return Files.readString(path(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Skips the test loudly, or fails it in CI, unless {@code condition}: the test kit's {@link Skip}. */
    static void require(boolean condition, String missing) {
        Skip.unless(condition, missing + " (see .ci/setup-contracts.sh and .ci/setup-sandbox.sh)");
    }

    static void requireBinary(String name) {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            found |= Files.isExecutable(Path.of(dir, name));
        }
        require(found, name + " is not installed (.ci/setup-contracts.sh installs it)");
    }

    /** A sandbox on the bubblewrap rung. */
    static TieredSandbox bwrap() {
        var which = TieredSandbox.searchPath();
        TieredSandbox sandbox = TieredSandbox.builder()
                .limits(ResourceLimits.builder().cpuSeconds(20).memoryBytes(512L << 20).fileSizeBytes(16L << 20)
                        .processCount(64).build())
                .which(name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : which.apply(name))
                .build();
        require(sandbox.isolationTier() == IsolationTier.BWRAP,
                "the bubblewrap rung is not available on this host: " + sandbox.report().describe());
        return sandbox;
    }
}
