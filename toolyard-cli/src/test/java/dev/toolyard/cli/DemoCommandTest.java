package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(180) // a hang guard only
class DemoCommandTest {
    @TempDir
    Path tmp;

    @Test
    void withTierBubblewrapTheDemosCommandsRunOnBubblewrapAndTheHeaderSaysWhy() {
        Engines.requireBoth();

        CliRun r = CliRun.of("demo", "--tier", "bwrap", "--dir", tmp.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("isolation tier: bwrap (the ladder started at bubblewrap: --tier bwrap)\n")
                .containsPattern("run python in the sandbox +run_command +ok +-")
                .contains("  | tier: bwrap\n");
    }

    @Test
    void withWarmOnTheDemoPassesTheSameWayAndItsCommandsRunInAWarmSandbox() {
        Engines.requireBoth();

        for (String tier : new String[] {"bwrap", "container"}) {
            CliRun r = CliRun.of("demo", "--warm", "--tier", tier, "--dir", tmp.resolve(tier).toString());

            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).as(tier).contains("warm mode: on, " + (tier.equals("container") ? "podman" : "bwrap"))
                    .containsPattern("run python in the sandbox +run_command +ok +-")
                    .containsPattern("a command past its timeout +run_command +timeout")
                    .contains("  | tier: " + (tier.equals("container") ? "container" : "bwrap") + "\n");
        }
    }
}
