package dev.toolyard;

import java.util.Set;

/**
 * Stage {@link Stage#ALLOWLIST}: the tool must be on the executor's allowlist ({@code not_allowlisted}, never
 * re-approvable), then inside the invocation's approved tools ({@code not_approved}); the effective set
 * is the intersection, so approval only narrows. Immutable; thread-safe.
 */
final class AllowlistCheck implements Check<ResolvedTool, ResolvedTool> {
    private final Set<String> allowlist;

    AllowlistCheck(Set<String> allowlist) {
        this.allowlist = Set.copyOf(allowlist);
    }

    @Override
    public Stage stage() {
        return Stage.ALLOWLIST;
    }

    @Override
    public ResolvedTool apply(ResolvedTool in) {
        String name = in.spec().name();
        if (!allowlist.contains(name)) {
            return in.call().refuse(Reason.NOT_ALLOWLISTED, "the tool is not on this application's allowlist");
        }
        Set<String> approved = in.call().context.approvedTools().orElse(null);
        if (approved != null && !approved.contains(name)) {
            return in.call().refuse(Reason.NOT_APPROVED, "the tool is not approved for this invocation");
        }
        return in;
    }
}
