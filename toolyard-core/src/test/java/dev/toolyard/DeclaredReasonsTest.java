package dev.toolyard;

import static dev.toolyard.Fixtures.context;
import static dev.toolyard.Fixtures.echo;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.PolicyQuery;
import dev.toolyard.spi.PolicyDecision;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool-declared reason is a value its spec (or a policy gate) carries, checked per registry: one wire
 * name keeps one status among the tools of a registry and the stages of an executor built on it, and a
 * collision names the tool and the reason. Nothing is process-wide.
 */
class DeclaredReasonsTest {
    private static final Reason QUOTA_REFUSED = Reason.declare("quota_gone", ToolStatus.REFUSED);
    private static final Reason QUOTA_FAILED = Reason.declare("quota_gone", ToolStatus.FAILED);

    @TempDir
    Path root;

    /** A gate that refuses every call with its own reason, and declares it. */
    private static PolicyGate gateRefusingWith(Reason reason) {
        return new PolicyGate() {
            @Override
            public PolicyDecision decide(PolicyQuery query) {
                return PolicyDecision.refuse(reason, "no");
            }

            @Override
            public Set<Reason> reasons() {
                return Set.of(reason);
            }
        };
    }

    @Test
    void twoToolsOfOneRegistryCannotGiveOneWireNameTwoStatusesAndTheErrorNamesBoth() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec("alpha").reasons(QUOTA_REFUSED).build(), echo());

        assertThatThrownBy(() -> registry.register(spec("beta").reasons(QUOTA_FAILED).build(), echo()))
                .isInstanceOf(InvalidToolSpecException.class)
                .hasMessageContaining("tool 'beta'").hasMessageContaining("tool 'alpha'")
                .hasMessageContaining("'quota_gone'").hasMessageContaining("FAILED").hasMessageContaining("REFUSED");
        assertThat(registry.names()).containsExactly("alpha");
        // the same meaning twice is one reason, not a collision
        registry.register(spec("gamma").reasons(Reason.declare("quota_gone", ToolStatus.REFUSED)).build(), echo());
        assertThat(registry.names()).containsExactly("alpha", "gamma");
    }

    @Test
    void registriesAreSeparateScopesSoNoJarCanClaimANameForTheWholeProcess() {
        ToolRegistry first = new ToolRegistry();
        ToolRegistry second = new ToolRegistry();
        first.register(spec("alpha").reasons(QUOTA_REFUSED).build(), echo());

        second.register(spec("alpha").reasons(QUOTA_FAILED).build(), echo());

        assertThat(second.names()).containsExactly("alpha");
        assertThatThrownBy(() -> Reason.fromWireName("quota_gone")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExecutorWhoseGateDeclaresAToolsReasonWithAnotherStatusIsNotBuiltAndTheErrorNamesTheTool() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec("alpha").reasons(QUOTA_FAILED).build(), echo());

        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("alpha"))
                        .store(new InMemoryToolCallStore()).policyGate(gateRefusingWith(QUOTA_REFUSED)).build())
                .isInstanceOf(InvalidToolSpecException.class)
                .hasMessageContaining("policy gate").hasMessageContaining("tool 'alpha'")
                .hasMessageContaining("'quota_gone'");
    }

    @Test
    void aToolRegisteredAfterTheExecutorWasBuiltIsCheckedAgainstTheExecutorsStages() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec("alpha").build(), echo());
        ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("alpha"))
                .store(new InMemoryToolCallStore()).policyGate(gateRefusingWith(QUOTA_REFUSED)).build();

        assertThatThrownBy(() -> registry.register(spec("late").reasons(QUOTA_FAILED).build(), echo()))
                .isInstanceOf(InvalidToolSpecException.class).hasMessageContaining("tool 'late'")
                .hasMessageContaining("'quota_gone'");
        assertThatThrownBy(() -> registry.register(spec("late2")
                        .reasons(Reason.declare("policy_error", ToolStatus.FAILED)).build(), echo()))
                .isInstanceOf(InvalidToolSpecException.class).hasMessageContaining("policy_error")
                .hasMessageContaining("the executor's policy stage");
    }

    @Test
    void aHandlerEndingACallWithACollidingUndeclaredReasonFailsAsHandlerErrorAndTheRecordSaysWhy() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec("alpha").reasons(QUOTA_REFUSED).build(), echo());
        registry.register(spec("rogue").build(), (args, ctx) -> ToolOutput.failed(QUOTA_FAILED, "mine"));
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        ToolExecutor executor = Fixtures.executor(registry, store, "alpha", "rogue");

        ToolResult r = executor.execute(ToolCallRequest.of("rogue", "{\"text\":\"a\"}"), context(root));

        assertThat(r.reason()).contains(Reason.HANDLER_ERROR);
        assertThat(r.reasonDetail()).contains("quota_gone").contains("tool 'alpha'");
        assertThat(store.records().get(0).reason()).contains(Reason.HANDLER_ERROR);
    }

    @Test
    void aSpecRefusesACoreReasonAndOneNameWithTwoStatuses() {
        assertThatThrownBy(() -> spec("alpha").reasons(Reason.TOO_LARGE).build())
                .isInstanceOf(InvalidToolSpecException.class).hasMessageContaining("$.reasons")
                .hasMessageContaining("too_large");
        assertThatThrownBy(() -> spec("alpha").reasons(QUOTA_REFUSED, QUOTA_FAILED).build())
                .isInstanceOf(InvalidToolSpecException.class).hasMessageContaining("quota_gone");
        assertThat(spec("alpha").reasons(QUOTA_REFUSED).build().reasons()).containsExactly(QUOTA_REFUSED);
    }
}
