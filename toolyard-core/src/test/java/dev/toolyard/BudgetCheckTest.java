package dev.toolyard;

import static dev.toolyard.Fixtures.echo;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Call and wall-clock budgets, through a real executor and store. */
class BudgetCheckTest {
    @TempDir
    Path root;

    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolExecutor executor;
    final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T08:00:00Z"));

    @BeforeEach
    void setUp() {
        registry = new ToolRegistry();
        store = new InMemoryToolCallStore();
        registry.register(spec("echo").build(), echo());
        registry.register(spec("hidden").build(), echo());
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo")).store(store).build();
    }

    private ToolContext.Builder context(String invocation) {
        return ToolContext.builder(invocation, SandboxPaths.of(root)).clock(clock);
    }

    private ToolResult callEcho(ToolContext c) {
        return executor.execute(ToolCallRequest.of("echo", "{\"text\":\"a\"}"), c);
    }

    @Test
    void aCallBudgetRefusesEveryCallPastItAndRecordsTheRefusals() {
        ToolContext c = context("inv-1").callBudget(3).build();
        List<ToolResult> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            results.add(callEcho(c));
        }

        assertThat(results.subList(0, 3)).allMatch(ToolResult::isOk);
        assertThat(results.subList(3, 5)).allSatisfy(r -> {
            assertThat(r.reason()).contains(Reason.BUDGET_EXHAUSTED);
            assertThat(r.reasonDetail()).contains("budget of 3 calls");
        });
        assertThat(store.records()).hasSize(5);
        assertThat(store.records().get(4).reason()).contains(Reason.BUDGET_EXHAUSTED);
    }

    @Test
    void aWallClockBudgetRefusesCallsOnceSpentByTheContextsClock() {
        ToolContext c = context("inv-1").timeBudget(Duration.ofSeconds(10)).build();

        assertThat(callEcho(c).isOk()).isTrue();
        clock.advance(Duration.ofMillis(9_999));
        assertThat(callEcho(c).isOk()).isTrue();
        clock.advance(Duration.ofMillis(1));
        ToolResult late = callEcho(c);

        assertThat(late.reason()).contains(Reason.BUDGET_EXHAUSTED);
        assertThat(late.reasonDetail()).contains("wall-clock budget of 10000 ms");
        assertThat(store.records()).hasSize(3);
    }

    @Test
    void theCountIsKeptPerInvocationIdAcrossContextsBuiltAgainAndOtherInvocationsKeepTheirOwn() {
        assertThat(callEcho(context("inv-1").callBudget(2).build()).isOk()).isTrue();
        assertThat(callEcho(context("inv-1").callBudget(2).build()).isOk()).isTrue();
        assertThat(callEcho(context("inv-1").callBudget(2).build()).reason()).contains(Reason.BUDGET_EXHAUSTED);
        assertThat(callEcho(context("inv-2").callBudget(2).build()).isOk()).isTrue();
        assertThat(callEcho(context("inv-1").build()).isOk()).as("a context with no budget is not limited").isTrue();
    }

    @Test
    void refusalsOfARegisteredToolCountButUnknownToolsDoNot() {
        ToolContext c = context("inv-1").callBudget(2).build();
        for (int i = 0; i < 10; i++) {
            assertThat(executor.execute(ToolCallRequest.of("ghost", "{}"), c).reason()).contains(Reason.UNKNOWN_TOOL);
        }
        assertThat(executor.execute(ToolCallRequest.of("hidden", "{\"text\":\"a\"}"), c).reason())
                .contains(Reason.NOT_ALLOWLISTED);
        assertThat(callEcho(c).isOk()).isTrue();
        assertThat(callEcho(c).reason()).contains(Reason.BUDGET_EXHAUSTED);
    }

    @Test
    void aRoundSpendsTheBudgetAndTheCallsPastItAreRefused() {
        ToolContext c = context("inv-1").callBudget(4).build();
        List<ToolCallRequest> requests = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            requests.add(ToolCallRequest.of("echo", "{\"text\":\"" + i + "\"}"));
        }

        List<ToolResult> results = executor.executeRound(requests, c);

        assertThat(results).filteredOn(ToolResult::isOk).hasSize(4);
        assertThat(results).filteredOn(r -> r.reason().orElse(null) == Reason.BUDGET_EXHAUSTED).hasSize(6);
        assertThat(store.records()).hasSize(10);
    }

    @Test
    void budgetsAreValidatedWhenTheContextIsBuiltNamingTheParameter() {
        ToolContext.Builder b = context("inv");
        assertThatThrownBy(() -> b.callBudget(0)).hasMessageContaining("callBudget");
        assertThatThrownBy(() -> b.timeBudget(Duration.ZERO)).hasMessageContaining("timeBudget");
        assertThatThrownBy(() -> b.timeBudget(Duration.ofSeconds(-1))).hasMessageContaining("timeBudget");
        assertThat(context("inv").build().callBudget()).isEmpty();
        assertThat(context("inv").callBudget(7).build().callBudget()).hasValue(7);
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).budgetRetention(Duration.ZERO))
                .hasMessageContaining("budgetRetention");
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).maxBudgetedInvocations(0))
                .hasMessageContaining("maxBudgetedInvocations");
    }
}
