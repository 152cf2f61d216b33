package dev.toolyard.builtins;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Every case of {@link RunCommandNetworkTest} (curl, urllib, pip, git and npm through the proxy; the
 * denied name, IP literal, other port and internal answers refused before any connect; the direct
 * connect that bypasses the proxy; the first connect that never fails) on warm sandboxes: bubblewrap
 * and the container rung run them warm, gVisor (no warm mode yet) cold. That a networked call really runs
 * in a warm sandbox, and that each call's record names only its own connections, is
 * {@link RunCommandNetworkWarmTest}'s.
 */
@Tag("isolation")
@Timeout(240) // a hang guard only
class RunCommandNetworkWarmModeTest extends RunCommandNetworkTest {
    @Override
    boolean warm() {
        return true;
    }
}
