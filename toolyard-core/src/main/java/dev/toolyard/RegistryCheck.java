package dev.toolyard;

/** Stage {@link Stage#REGISTRY}: the tool must be registered ({@code unknown_tool}). Thread-safe. */
final class RegistryCheck implements Check<Call, ResolvedTool> {
    private final ToolRegistry registry;

    RegistryCheck(ToolRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Stage stage() {
        return Stage.REGISTRY;
    }

    @Override
    public ResolvedTool apply(Call call) {
        Tool tool = registry.get(call.request.name());
        if (tool == null) {
            return call.refuse(Reason.UNKNOWN_TOOL, "no tool of that name is registered");
        }
        call.resolved(tool);
        return new ResolvedTool(call, tool);
    }
}
