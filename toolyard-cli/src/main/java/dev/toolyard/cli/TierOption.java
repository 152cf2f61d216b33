package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import picocli.CommandLine.Option;

/**
 * {@code --tier}: where the isolation ladder starts, on every command that builds a sandbox. The
 * value is checked when the command runs, so a wrong one is one line and exit 2, like every other
 * mistake a user can make. Every command that builds a sandbox mixes it in (doctor, demo, call, mcp).
 */
final class TierOption {
    @Option(names = "--tier", paramLabel = "TIER", description = "Where the isolation ladder starts, by the tier's "
            + "wire name: container (the default: a container, then bubblewrap, then refuse) or bwrap (bubblewrap: "
            + "skip the container rung, which costs far more per command; see doctor). Never lower: below bwrap the "
            + "ladder only refuses.")
    String tier = "container";

    /**
     * @return the tier the ladder starts at
     * @throws Main.UserError if the value is neither {@code container} nor {@code bwrap} (the old spelling
     *     {@code bubblewrap} is refused with the new one in the message)
     */
    IsolationTier startAt() {
        return switch (tier) {
            case "container" -> IsolationTier.CONTAINER;
            case "bwrap" -> IsolationTier.BWRAP;
            case "bubblewrap" -> throw new Main.UserError("--tier takes the tier's wire name: --tier bwrap, not "
                    + "--tier bubblewrap");
            default -> throw new Main.UserError("--tier must be container or bwrap, got '" + tier
                    + "' (below bwrap the ladder only refuses: nothing ever runs unisolated)");
        };
    }
}
