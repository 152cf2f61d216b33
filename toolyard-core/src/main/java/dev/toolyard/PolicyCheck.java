package dev.toolyard;

import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.PolicyQuery;
import dev.toolyard.spi.PolicyDecision;

/**
 * Stage {@link Stage#POLICY}: the application's {@link PolicyGate}, after containment (so it judges validated arguments
 * and resolved paths) and before capacity (so a refused call takes no slot). With no gate it hands the
 * call on untouched. A gate that throws or answers {@code null} refuses the call ({@code policy_error}):
 * a policy that cannot decide must not let a call through. Immutable; thread-safe.
 */
final class PolicyCheck implements Check<ContainedArgs, ContainedArgs> {
    /** Why a call was refused when the gate itself failed. */
    static final Reason POLICY_ERROR = Reason.declare("policy_error", ToolStatus.REFUSED);

    private final PolicyGate gate;
    private final ToolRegistry registry;

    PolicyCheck(PolicyGate gate, ToolRegistry registry) {
        this.gate = gate;
        this.registry = registry;
    }

    @Override
    public Stage stage() {
        return Stage.POLICY;
    }

    @Override
    public ContainedArgs apply(ContainedArgs in) {
        if (gate == null) {
            return in;
        }
        Call call = in.call();
        PolicyDecision verdict;
        try {
            verdict = gate.decide(PolicyQuery.of(call.agent, call.context.invocationId(), in.tool().spec(),
                    in.parsed().arguments(), in.paths(), call.context.workspace()));
        } catch (RuntimeException | StackOverflowError e) {
            return call.refuse(POLICY_ERROR, "the policy gate failed: " + e.getClass().getName());
        }
        if (verdict == null) {
            return call.refuse(POLICY_ERROR, "the policy gate gave no verdict");
        }
        if (verdict.refuses()) {
            if (registry.collision(verdict.reason()).isPresent()) {
                return call.refuse(POLICY_ERROR, "the policy gate refused with reason '" + verdict.reason().wireName()
                        + "', which another owner in the registry declared with another status");
            }
            return call.refuse(verdict.reason(), verdict.detail());
        }
        call.shadowDenial = verdict.shadowDenial();
        return in;
    }
}
