package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.IsolationReport;
import java.util.ArrayList;
import java.util.List;

/** What the CLI assumes about the host, and what to tell a user to install. */
final class Hosts {
    /** The local image `.ci/setup-sandbox.sh` builds; no registry is ever pulled from. */
    static final String DEFAULT_IMAGE = "localhost/toolyard-skeleton:1";

    private Hosts() {}

    static List<String> climbHints(IsolationReport report) {
        List<String> hints = new ArrayList<>();
        if (report.tier() != IsolationTier.CONTAINER) {
            hints.add("container rung: apt-get install -y podman runc, then build the local image with "
                    + "bash .ci/setup-sandbox.sh (it is never pulled)");
        }
        if (report.tier() == IsolationTier.UNAVAILABLE) {
            hints.add("bubblewrap rung: apt-get install -y bubblewrap");
        }
        return hints;
    }
}
