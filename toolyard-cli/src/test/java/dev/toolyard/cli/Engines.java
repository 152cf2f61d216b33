package dev.toolyard.cli;

import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.testing.Skip;

/**
 * What the CLI tests need of the host. Outside CI a missing engine skips loudly; with {@code CI=true}
 * it fails, because CI installs podman, runc, the skeleton image and bubblewrap.
 */
final class Engines {
    private Engines() {}

    /** Skips loudly (or fails under {@code CI=true}) unless podman and bubblewrap are both on the PATH. */
    static void requireBoth() {
        boolean podman = TieredSandbox.searchPath().apply("podman").isPresent();
        boolean bwrap = TieredSandbox.searchPath().apply("bwrap").isPresent();
        require(podman && bwrap, (podman ? "" : "podman is not installed (apt-get install podman runc) ")
                + (bwrap ? "" : "bubblewrap is not installed (apt-get install bubblewrap)"));
    }

    /** Skips loudly (or fails under {@code CI=true}) unless {@code ok}: the test kit's {@link Skip}. */
    static void require(boolean ok, String whatIsMissing) {
        Skip.unless(ok, whatIsMissing);
    }
}
