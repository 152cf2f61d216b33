package dev.toolyard;

/**
 * Stage {@link Stage#CAPACITY}: where the handler runs, and for a handed-off handler a slot under the bounds
 * ({@code tool_saturated} when there is none). A handler runs on the caller's thread when the executor's
 * mode says so, or in {@link HandlerMode#BY_TOOL} when its tool is cooperative; those hold no slot,
 * since they hold no thread of the executor's. Immutable; thread-safe.
 */
final class CapacityCheck implements Check<ContainedArgs, Admitted> {
    private final HandlerSlots slots;
    private final HandlerMode mode;

    CapacityCheck(HandlerSlots slots, HandlerMode mode) {
        this.slots = slots;
        this.mode = mode;
    }

    @Override
    public Stage stage() {
        return Stage.CAPACITY;
    }

    /**
     * @param spec a tool's spec
     * @return whether its handler runs on the caller's thread under this executor's mode
     */
    boolean onCallersThread(ToolSpec spec) {
        return mode == HandlerMode.CALLER_THREAD || (mode == HandlerMode.BY_TOOL && spec.cooperative());
    }

    @Override
    public Admitted apply(ContainedArgs in) {
        ToolSpec spec = in.tool().spec();
        if (onCallersThread(spec)) {
            return new Admitted(in, true, null);
        }
        HandlerSlots.Slot slot = slots.acquire(spec.name());
        if (slot == null) {
            return in.call().refuse(Reason.TOOL_SATURATED, slots.saturation(spec.name()));
        }
        return new Admitted(in, false, slot);
    }
}
