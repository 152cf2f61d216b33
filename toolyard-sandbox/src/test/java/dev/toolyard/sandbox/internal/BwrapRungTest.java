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
    private static final BwrapCommand.Tools TOOLS = new BwrapCommand.Tools(Path.of("/usr/bin/dash"), Path.of("/usr/bin/bwrap"),
            Path.of("/usr/bin/env"), Optional.empty());
    private static final ResourceLimits LIMITS = ResourceLimits.builder().processCount(10).build();

    @Test
    void everyLimitIsEnforcedAndTheReportSaysHow() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        assertThat(rung.name()).isEqualTo("bwrap");
        assertThat(rung.tier()).isEqualTo(IsolationTier.BWRAP);
        assertThat(rung.limitsUnenforced()).isEmpty();
        assertThat(rung.enforcement()).containsOnlyKeys("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
        assertThat(rung.enforcement().get("processCount")).contains("RLIMIT_NPROC on this process's uid");
        assertThat(rung.filtered()).isFalse();
    }

    @Test
    void lendingUidsWithoutSetprivIsRefused() {
        assertThatThrownBy(() -> new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.of(new SandboxIds(2147450880, 2147450880, 1)),
                Optional.empty(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setpriv");
    }

    @Test
    void notAsRootTheRunStartsWithTheLauncherAndTheRlimitIsTheProcessCount() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        Launch launch = rung.prepare(List.of("/bin/true"), Fixtures.BINDS, Map.of(), Duration.ofSeconds(1));

        assertThat(launch.argv().get(0)).isEqualTo("/usr/bin/dash");
        assertThat(launch.argv().get(8)).as("ulimit -p").isEqualTo("10");
        assertThat(launch.argv()).doesNotContain("setpriv").endsWith("/bin/true");
        assertThat(launch.environment()).as("the launcher itself needs no environment").isEmpty();
    }

    @Test
    void notAsRootThereIsNoWarmModeBecauseCommandsWouldShareTheSupervisorsUid() {
        BwrapRung rung = new BwrapRung(TOOLS, Fixtures.DEBIAN, LIMITS, Optional.empty(), Optional.empty(), Optional.empty());

        assertThat(rung.warmUnavailable()).hasValueSatisfying(why -> assertThat(why).contains("root", "runs are cold"));
        assertThatThrownBy(() -> rung.prepareWarm(Fixtures.BINDS, Path.of("/x/toolyard-warm"), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class);
    }
}
