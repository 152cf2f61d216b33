package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TierOptionTest {
    @TempDir
    Path tmp;

    @Test
    void gvisorContainerAndBwrapTheTiersWireNamesAreTheOnlyValuesAndContainerIsTheDefault() {
        TierOption option = new TierOption();
        assertThat(option.startAt()).isEqualTo(IsolationTier.CONTAINER);
        assertThat(option.lowest()).isEqualTo(IsolationTier.BWRAP);
        option.tier = "bwrap";
        assertThat(option.startAt()).isEqualTo(IsolationTier.BWRAP);
        assertThat(option.startAt().wireName()).isEqualTo(option.tier);
        option.tier = "gvisor";
        assertThat(option.startAt()).isEqualTo(IsolationTier.GVISOR);
        assertThat(option.startAt().wireName()).isEqualTo(option.tier);
        for (String bad : new String[] {"unavailable", "none", "Container", "bwrap ", "gVisor", ""}) {
            option.tier = bad;
            assertThatThrownBy(option::startAt).as(bad).isInstanceOf(Main.UserError.class)
                    .hasMessageStartingWith("--tier must be gvisor, container or bwrap, got '" + bad + "'");
        }
    }

    @Test
    void theOldSpellingBubblewrapIsRefusedNamingTheWireName() {
        TierOption option = new TierOption();
        option.tier = "bubblewrap";
        assertThatThrownBy(option::startAt).isInstanceOf(Main.UserError.class)
                .hasMessage("--tier takes the tier's wire name: --tier bwrap, not --tier bubblewrap");
    }

    @Test
    void theLowestTierMayNotBeAboveWhereTheLadderStarts() {
        TierOption option = new TierOption();
        option.tier = "gvisor";
        option.lowestTier = "gvisor";
        assertThat(option.lowest()).isEqualTo(IsolationTier.GVISOR);
        option.tier = "container";
        assertThatThrownBy(option::lowest).isInstanceOf(Main.UserError.class)
                .hasMessageStartingWith("--lowest-tier gvisor is above --tier container");
        option.lowestTier = "none";
        assertThatThrownBy(option::lowest).isInstanceOf(Main.UserError.class)
                .hasMessageStartingWith("--lowest-tier must be gvisor, container or bwrap, got 'none'");
    }

    @Test
    void anInvalidTierOnEveryCommandThatBuildsASandboxIsExitTwoWithOneLineAndNothingRun() {
        String[][] commands = {
            {"doctor", "--tier", "none"},
            {"demo", "--tier", "none", "--dir", tmp.resolve("demo").toString()},
            {"call", "--tier", "none", "--workspace", tmp.toString(), "--tool", "run_command", "--args",
                "{\"argv\":[\"/usr/bin/touch\",\"ran\"]}", "--store", tmp.resolve("calls.db").toString()},
            {"mcp", "--tier", "none", "--workspace", tmp.toString(), "--store", tmp.resolve("mcp.db").toString()},
        };
        for (String[] args : commands) {
            CliRun r = CliRun.of(args);

            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(Main.USAGE);
            assertThat(r.err()).isEqualTo("toolyard: --tier must be gvisor, container or bwrap, got 'none' (below bwrap "
                    + "the ladder only refuses: nothing ever runs unisolated)\n");
            assertThat(r.out()).isEmpty();
        }
        assertThat(tmp.resolve("demo")).doesNotExist();
        assertThat(tmp.resolve("ran")).doesNotExist();
        assertThat(tmp.resolve("calls.db")).doesNotExist();
        assertThat(tmp.resolve("mcp.db")).doesNotExist();
    }

    @Test
    void everyCommandThatBuildsASandboxListsTheOptionInItsHelp() {
        for (String command : new String[] {"doctor", "demo", "call", "mcp"}) {
            CliRun r = CliRun.of(command, "--help");

            assertThat(r.out()).as(command).contains("--tier=TIER").contains("--lowest-tier=TIER").contains("gvisor")
                    .contains("container").contains("bwrap");
        }
    }
}
