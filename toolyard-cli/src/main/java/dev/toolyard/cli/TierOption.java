package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import picocli.CommandLine.Option;

/**
 * {@code --tier}: where the isolation ladder starts, on every command that builds a sandbox. The
 * value is checked when the command runs, so a wrong one is one line and exit 2, like every other
 * mistake a user can make. Every command that builds a sandbox mixes it in (doctor, demo, call, mcp).
 */
final class TierOption {
    @Option(names = "--tier", paramLabel = "TIER", description = "Where the isolation ladder starts: container "
            + "(the default: a container, then bubblewrap, then refuse) or bubblewrap (skip the container rung, "
            + "which costs far more per command; see doctor). Never lower: below bubblewrap the ladder only refuses.")
    String tier = "container";

    /**
     * @return the tier the ladder starts at
     * @throws Main.UserError if the value is neither {@code container} nor {@code bubblewrap}
     */
    IsolationTier startAt() {
        return switch (tier) {
            case "container" -> IsolationTier.CONTAINER;
            case "bubblewrap" -> IsolationTier.BWRAP;
            default -> throw new Main.UserError("--tier must be container or bubblewrap, got '" + tier
                    + "' (below bubblewrap the ladder only refuses: nothing ever runs unisolated)");
        };
    }
}
