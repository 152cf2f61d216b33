package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import picocli.CommandLine.Option;

/**
 * {@code --tier} and {@code --lowest-tier}: where the isolation ladder starts, and the lowest rung it
 * may take, on every command that builds a sandbox. The values are checked when the command runs, so
 * a wrong one is one line and exit 2, like every other mistake a user can make. Every command that
 * builds a sandbox mixes it in (doctor, demo, call, mcp).
 */
final class TierOption {
    @Option(names = "--tier", paramLabel = "TIER", description = "Where the isolation ladder starts, by the tier's "
            + "wire name: container (the default: a container, then bubblewrap, then refuse), gvisor (gVisor's "
            + "user-space kernel first, then the container, then bubblewrap; the strongest and the dearest rung) or "
            + "bwrap (bubblewrap: skip the container rung, which costs far more per command; see doctor). Never "
            + "lower: below bwrap the "
            + "ladder only refuses.")
    String tier = "container";

    @Option(names = "--lowest-tier", paramLabel = "TIER", description = "The lowest rung runs may use: gvisor, "
            + "container or bwrap (the default), at or below --tier. Below it every isolated run is refused "
            + "(--tier gvisor --lowest-tier gvisor: gVisor or nothing).")
    String lowestTier = "bwrap";

    /**
     * @return the tier the ladder starts at
     * @throws Main.UserError if the value is not {@code gvisor}, {@code container} or {@code bwrap} (the old
     *     spelling {@code bubblewrap} is refused with the new one in the message)
     */
    IsolationTier startAt() {
        return parse("--tier", tier);
    }

    /**
     * @return the lowest tier runs may use
     * @throws Main.UserError if the value is not a rung, or is above {@code --tier}
     */
    IsolationTier lowest() {
        IsolationTier lowest = parse("--lowest-tier", lowestTier);
        if (lowest.ordinal() < startAt().ordinal()) {
            throw new Main.UserError("--lowest-tier " + lowestTier + " is above --tier " + tier
                    + ", so no rung could be taken: start the ladder at " + lowestTier + " or higher");
        }
        return lowest;
    }

    private static IsolationTier parse(String option, String value) {
        return switch (value) {
            case "gvisor" -> IsolationTier.GVISOR;
            case "container" -> IsolationTier.CONTAINER;
            case "bwrap" -> IsolationTier.BWRAP;
            case "bubblewrap" -> throw new Main.UserError(option + " takes the tier's wire name: " + option
                    + " bwrap, not " + option + " bubblewrap");
            default -> throw new Main.UserError(option + " must be gvisor, container or bwrap, got '" + value
                    + "' (below bwrap the ladder only refuses: nothing ever runs unisolated)");
        };
    }
}
