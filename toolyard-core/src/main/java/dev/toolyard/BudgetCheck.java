package dev.toolyard;

/**
 * Stage {@link Stage#BUDGET}: the invocation must have budget left ({@code budget_exhausted}).
 * Every call that names a registered tool is counted here, whatever the later checks decide, so refusals
 * are not free; unknown tools and calls cut by a round's limit never reach it and are not counted.
 * Thread-safe.
 */
final class BudgetCheck implements Check<ResolvedTool, ResolvedTool> {
    private final InvocationBudgets budgets;

    BudgetCheck(InvocationBudgets budgets) {
        this.budgets = budgets;
    }

    @Override
    public Stage stage() {
        return Stage.BUDGET;
    }

    @Override
    public ResolvedTool apply(ResolvedTool in) {
        String spent = budgets.charge(in.call().context);
        return spent == null ? in : in.call().refuse(Reason.BUDGET_EXHAUSTED, spent);
    }
}
