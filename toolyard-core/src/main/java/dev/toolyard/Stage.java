package dev.toolyard;

import java.util.Arrays;
import java.util.List;

/**
 * The refusal order, declared once: the stages a call passes before its handler runs, in the order they
 * run, each with the reasons it refuses with. The order of the constants is the order; nothing else
 * states it. A check's place in the {@link Walk} is its stage's {@link #position()}, and {@code Walk}
 * refuses a check out of place, so an executor whose walk disagrees with this list cannot be built.
 * {@link ToolExecutor}, {@link Reason} and docs/architecture.md point here. Immutable; thread-safe.
 */
enum Stage {
    /** {@code executeRound}, before the walk: calls past {@code maxCallsPerRound} are never looked up. */
    ROUND(Reason.ROUND_LIMIT),
    /** {@link RegistryCheck}: the tool must be registered. */
    REGISTRY(Reason.UNKNOWN_TOOL),
    /** {@link BudgetCheck}: the invocation must have budget left. */
    BUDGET(Reason.BUDGET_EXHAUSTED),
    /** {@link AllowlistCheck}: the executor's allowlist, then the invocation's approved tools. */
    ALLOWLIST(Reason.NOT_ALLOWLISTED, Reason.NOT_APPROVED),
    /** {@link SchemaCheck}: the arguments parse and pass the tool's schema. */
    SCHEMA(Reason.ARGS_INVALID),
    /** {@link EgressCheck}: the tool's egress class is within the invocation's ceiling. */
    EGRESS(Reason.EGRESS_NOT_PERMITTED),
    /** {@link ContainmentCheck}: isolation before paths. */
    CONTAINMENT(Reason.ISOLATION_UNAVAILABLE, Reason.PATH_ESCAPE),
    /** {@link PolicyCheck}: the application's policy gate, if any (plus the gate's own reasons). */
    POLICY(PolicyCheck.POLICY_ERROR),
    /** {@link CapacityCheck}: a handler slot. */
    CAPACITY(Reason.TOOL_SATURATED),
    /** {@link ApprovalCheck}: the approval gate, last before the write-ahead mark. */
    APPROVAL(Reason.APPROVAL_DENIED, Reason.APPROVAL_TIMEOUT);

    private static final List<Stage> WALKED = List.copyOf(Arrays.asList(values()).subList(1, values().length));

    private final List<Reason> reasons;

    Stage(Reason... reasons) {
        this.reasons = List.of(reasons);
    }

    /** @return the reasons this stage refuses with, in the order it checks them; unmodifiable */
    List<Reason> reasons() {
        return reasons;
    }

    /** @return the place of this stage's check in the walk, from 0; {@code -1} for {@link #ROUND}, which is before it */
    int position() {
        return ordinal() - 1;
    }

    /** @return the stages the walk runs, in order: every stage but {@link #ROUND}; unmodifiable */
    static List<Stage> walked() {
        return WALKED;
    }
}
