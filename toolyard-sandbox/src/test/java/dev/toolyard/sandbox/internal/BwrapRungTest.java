package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BwrapRungTest {
    private static final BwrapCommand.Tools TOOLS =
            new BwrapCommand.Tools(Path.of("/usr/bin/bwrap"), Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"), Optional.empty());
    private static final ResourceLimits LIMITS = ResourceLimits.builder().processCount(10).build();

    @Test
    void onlyAnUnheldProcessCountIsReportedUnenforced() {
        for (BwrapRung.ProcessCount mode : List.of(BwrapRung.ProcessCount.RLIMIT_NPROC, BwrapRung.ProcessCount.UNENFORCED)) {
            BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, mode, Optional.empty());

            assertThat(rung.name()).isEqualTo("bwrap");
            assertThat(rung.tier()).isEqualTo(IsolationTier.BWRAP);
            assertThat(rung.limitsUnenforced())
                    .isEqualTo(mode == BwrapRung.ProcessCount.UNENFORCED ? java.util.Set.of("processCount") : java.util.Set.of());
        }
    }

    @Test
    void aCgroupModeWithoutThePoolOrCgexecIsRefused() {
        assertThatThrownBy(() -> new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, BwrapRung.ProcessCount.PIDS_CGROUP, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutACgroupTheRunStartsWithBubblewrapAndTheRlimitIsTheProcessCount() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, BwrapRung.ProcessCount.RLIMIT_NPROC, Optional.empty());

        Launch launch = rung.prepare(List.of("/bin/true"), Fixtures.BINDS, Map.of(), Duration.ofSeconds(1));

        assertThat(launch.argv().get(0)).isEqualTo("/usr/bin/bwrap");
        assertThat(launch.argv()).contains("--nproc=10").endsWith("/bin/true");
        assertThat(launch.environment()).as("bubblewrap itself needs no environment").isEmpty();
    }
}
