package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InvocationBudgetsTest {
    @TempDir
    Path root;

    final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T08:00:00Z"));

    private ToolContext budgeted(String id, int calls) {
        return ToolContext.builder(id, SandboxPaths.of(root)).clock(clock).callBudget(calls).build();
    }

    @Test
    void aContextWithoutABudgetMakesNoEntry() {
        InvocationBudgets budgets = new InvocationBudgets(Duration.ofHours(1), 10);
        for (int i = 0; i < 100; i++) {
            assertThat(budgets.charge(ToolContext.builder("inv-" + i, SandboxPaths.of(root)).build())).isNull();
        }
        assertThat(budgets.tracked()).isZero();
    }

    @Test
    void aFullTableRefusesANewBudgetedInvocationRatherThanLetItThroughUncounted() {
        InvocationBudgets budgets = new InvocationBudgets(Duration.ofHours(1), 2);
        assertThat(budgets.charge(budgeted("a", 5))).isNull();
        assertThat(budgets.charge(budgeted("b", 5))).isNull();

        assertThat(budgets.charge(budgeted("c", 5))).contains("tracks the budgets of 2 invocations");
        assertThat(budgets.charge(budgeted("a", 5))).as("known invocations go on").isNull();
        assertThat(budgets.tracked()).isEqualTo(2);
    }

    @Test
    void anEntryIdleLongerThanTheRetentionIsDroppedSoMemoryStaysBounded() {
        InvocationBudgets budgets = new InvocationBudgets(Duration.ofMinutes(10), 2);
        assertThat(budgets.charge(budgeted("a", 1))).isNull();
        assertThat(budgets.charge(budgeted("b", 1))).isNull();
        clock.advance(Duration.ofMinutes(5));
        assertThat(budgets.charge(budgeted("b", 1))).as("spent, and now active again").isNotNull();
        clock.advance(Duration.ofMinutes(6)); // a idle 11 min, b idle 6 min

        assertThat(budgets.charge(budgeted("c", 1))).isNull();
        assertThat(budgets.tracked()).isEqualTo(2);
        assertThat(budgets.charge(budgeted("b", 1))).as("b was kept, and is still spent").isNotNull();
    }

    @Test
    void tenThousandInvocationsPassingThroughKeepOnlyThoseInsideTheRetention() {
        InvocationBudgets budgets = new InvocationBudgets(Duration.ofSeconds(1), 1_000_000);
        for (int i = 0; i < 10_000; i++) {
            clock.advance(Duration.ofMillis(10));
            assertThat(budgets.charge(budgeted("inv-" + i, 3))).isNull();
        }
        // a sweep runs every 1,024 new entries; entries idle past 1 s (100 invocations) go in it
        assertThat(budgets.tracked()).isLessThanOrEqualTo(InvocationBudgets.SWEEP_EVERY + 101);
    }

    @Test
    void aSpentBudgetStaysSpentHoweverManyCallsArriveTheCountDoesNotGrowPastIt() {
        InvocationBudgets budgets = new InvocationBudgets(Duration.ofHours(1), 10);
        ToolContext c = budgeted("inv", 1);
        assertThat(budgets.charge(c)).isNull();
        for (int i = 0; i < 100_000; i++) {
            assertThat(budgets.charge(c)).isNotNull();
        }
    }
}
