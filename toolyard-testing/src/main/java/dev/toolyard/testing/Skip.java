package dev.toolyard.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The one "skip loudly locally, fail under CI" rule of every module's tests. A test that needs a tool
 * or a service of the host (bubblewrap, podman, PostgreSQL, node, a binary) calls {@link #unless}: when
 * the host lacks it, the test is skipped with the missing thing named on standard error and in the
 * JUnit report, and under {@code CI=true} it fails instead, because CI's {@code .ci/setup-*.sh}
 * install all of it and a skip there would hide a test that never ran.
 *
 * <p>Stateless and thread-safe.
 */
public final class Skip {
    private Skip() {}

    /** @return whether this JVM runs under CI ({@code CI=true} in the environment), where no test may skip */
    public static boolean underCi() {
        return "true".equals(System.getenv("CI"));
    }

    /**
     * Returns when {@code ok}; otherwise fails the test under {@code CI=true}, or skips it loudly.
     *
     * @param ok whether the host has what the test needs
     * @param whatIsMissing what the host lacks and how to install it, shown in the skip or the failure
     */
    public static void unless(boolean ok, String whatIsMissing) {
        unless(ok, whatIsMissing, underCi());
    }

    static void unless(boolean ok, String whatIsMissing, boolean ci) {
        if (ok) {
            return;
        }
        if (ci) {
            Assertions.fail("CI=true, so this must run, but " + whatIsMissing);
        }
        System.err.println("SKIPPED: " + whatIsMissing);
        Assumptions.abort(whatIsMissing);
    }
}
