package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The defaults are read from a built executor, not from public constants. */
class ToolExecutorLimitsTest {
    @Test
    void aBuiltExecutorReportsItsDefaults() {
        try (ToolExecutor executor = ToolExecutor.builder(new ToolRegistry(), new PathContainment())
                .allowlist(Set.of()).store(new InMemoryToolCallStore()).build()) {
            assertThat(executor.limits()).isEqualTo(new ToolExecutor.Limits(65_536, 4_096, 1 << 20, 16_384, 64, 256, 32,
                    8, Duration.ofMinutes(5), Duration.ofHours(24), 100_000));
        }
    }

    @Test
    void aBuiltExecutorReportsWhatItWasConfiguredWith() {
        try (ToolExecutor executor = ToolExecutor.builder(new ToolRegistry(), new PathContainment())
                .allowlist(Set.of()).store(new InMemoryToolCallStore())
                .maxContentBytes(1_000).maxSummaryBytes(500).maxArgumentBytes(2_000).maxHandlersPerTool(3)
                .maxHandlers(7).maxCallsPerRound(5).roundParallelism(2).approvalTimeout(Duration.ofSeconds(9))
                .build()) {
            ToolExecutor.Limits limits = executor.limits();
            assertThat(limits.maxContentBytes()).isEqualTo(1_000);
            assertThat(limits.maxSummaryBytes()).isEqualTo(500);
            assertThat(limits.maxArgumentBytes()).isEqualTo(2_000);
            assertThat(limits.maxHandlersPerTool()).isEqualTo(3);
            assertThat(limits.maxHandlers()).isEqualTo(7);
            assertThat(limits.maxCallsPerRound()).isEqualTo(5);
            assertThat(limits.roundParallelism()).isEqualTo(2);
            assertThat(limits.approvalTimeout()).isEqualTo(Duration.ofSeconds(9));
        }
    }
}
