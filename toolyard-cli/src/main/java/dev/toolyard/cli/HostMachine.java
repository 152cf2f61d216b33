package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.util.ArrayList;
import java.util.List;

/** What the CLI assumes about the host, and what to tell a user to install. */
final class HostMachine {
    /** The local image `.ci/setup-sandbox.sh` builds; no registry is ever pulled from. */
    static final String DEFAULT_IMAGE = "localhost/toolyard-skeleton:1";

    private HostMachine() {}

    /** @return the sandbox every command uses: the host's PATH, the given image, the ladder from {@code startAt} */
    static TieredSandbox sandbox(String image, IsolationTier startAt) {
        return sandbox(image, startAt, false);
    }

    /** @return as {@link #sandbox(String, IsolationTier)}, with warm mode on or off */
    static TieredSandbox sandbox(String image, IsolationTier startAt, boolean warm) {
        return TieredSandbox.builder().containerImage(image).startAt(startAt).warm(warm).build();
    }

    /** @return the sandbox every command uses, the ladder from {@code --tier} down to {@code --lowest-tier} */
    static TieredSandbox sandbox(String image, TierOption tier, boolean warm) {
        return TieredSandbox.builder().containerImage(image).startAt(tier.startAt()).lowestTier(tier.lowest()).warm(warm)
                .build();
    }

    static List<String> climbHints(IsolationReport report) {
        List<String> hints = new ArrayList<>();
        if (report.startAt() == IsolationTier.GVISOR && report.tier() != IsolationTier.GVISOR) {
            hints.add("gvisor rung: apt-get install -y podman runsc, then build the local image with "
                    + "bash .ci/setup-sandbox.sh (it is never pulled)");
        }
        if (report.startAt() == IsolationTier.BWRAP) {
            hints.add("container rung: skipped because the ladder was started at bubblewrap (--tier bwrap)");
        } else if (!report.tier().containerized()) {
            hints.add("container rung: apt-get install -y podman runc, then build the local image with "
                    + "bash .ci/setup-sandbox.sh (it is never pulled)");
        }
        if (report.tier() == IsolationTier.UNAVAILABLE) {
            hints.add("bubblewrap rung: apt-get install -y bubblewrap");
        }
        return hints;
    }
}
