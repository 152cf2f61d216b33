package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WalkTest {
    /** A check that appends its name to the list it is handed, or refuses (returns null) when told to. */
    private record Named(Stage stage, String name, boolean refuses) implements Check<List<String>, List<String>> {
        @Override
        public List<String> apply(List<String> in) {
            in.add(name);
            return refuses ? null : in;
        }
    }

    @Test
    void checksRunInTheDeclaredOrderAndTheFirstRefusalStopsTheWalk() {
        Walk<List<String>, List<String>> walk = Walk.first(new Named(Stage.REGISTRY, "a", false))
                .then(new Named(Stage.BUDGET, "b", true)).then(new Named(Stage.ALLOWLIST, "c", false));
        List<String> seen = new ArrayList<>();

        assertThat(walk.walk(seen)).isNull();
        assertThat(seen).containsExactly("a", "b");
        assertThat(walk.length()).isEqualTo(3);
    }

    @Test
    void aCheckDeclaredOutOfPlaceMakesTheWalkImpossibleToDeclare() {
        assertThatThrownBy(() -> Walk.first(new Named(Stage.BUDGET, "a", false))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("positions must be exactly");
        Walk<List<String>, List<String>> one = Walk.first(new Named(Stage.REGISTRY, "a", false));
        assertThatThrownBy(() -> one.then(new Named(Stage.ALLOWLIST, "c", false))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> one.then(new Named(Stage.REGISTRY, "again", false))).isInstanceOf(IllegalStateException.class);
        assertThat(one.then(new Named(Stage.BUDGET, "b", false)).walk(new ArrayList<>())).containsExactly("a", "b");
    }

    @Test
    void theExecutorsWalkIsItsChecksInTheOrderTheContractFixesWithThePolicyGateAfterContainment() {
        List<Check<?, ?>> declared = List.of(new RegistryCheck(new ToolRegistry()),
                new BudgetCheck(new InvocationBudgets(java.time.Duration.ofHours(1), 1)),
                new AllowlistCheck(java.util.Set.of()), new SchemaCheck(256), new EgressCheck(),
                new ContainmentCheck(new PathContainment(), IsolationTier.UNAVAILABLE), new PolicyCheck(null, new ToolRegistry()),
                new CapacityCheck(new HandlerSlots(1, 1), HandlerMode.BY_TOOL), new ApprovalCheck(null, null, 1));
        assertThat(declared).extracting(Check::stage).containsExactlyElementsOf(Stage.walked());
        assertThat(declared).extracting(c -> c.stage().position()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void theWalkABuiltExecutorRunsIsStagesDeclaredOrderAndEveryExecutorReasonHasOneStage() {
        ToolRegistry registry = new ToolRegistry();
        ToolExecutor executor = Fixtures.executor(registry, new InMemoryToolCallStore());

        assertThat(executor.stages()).containsExactlyElementsOf(Stage.walked());
        assertThat(Stage.values()[0]).isEqualTo(Stage.ROUND);
        assertThat(Stage.ROUND.position()).isEqualTo(-1);
        assertThat(java.util.Arrays.stream(Stage.values()).flatMap(st -> st.reasons().stream()))
                .doesNotHaveDuplicates()
                .containsExactly(Reason.ROUND_LIMIT, Reason.UNKNOWN_TOOL, Reason.BUDGET_EXHAUSTED,
                        Reason.NOT_ALLOWLISTED, Reason.NOT_APPROVED, Reason.ARGS_INVALID, Reason.EGRESS_NOT_PERMITTED,
                        Reason.ISOLATION_UNAVAILABLE, Reason.PATH_ESCAPE, PolicyCheck.POLICY_ERROR,
                        Reason.TOOL_SATURATED, Reason.APPROVAL_DENIED, Reason.APPROVAL_TIMEOUT);
    }
}
