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

        CliRun r = CliRun.of("demo", "--tier", "bubblewrap", "--dir", tmp.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("isolation tier: bwrap (the ladder started at bubblewrap: --tier bubblewrap)\n")
                .containsPattern("run python in the sandbox +run_command +ok +-")
                .contains("  | tier: bwrap\n");
    }
}
