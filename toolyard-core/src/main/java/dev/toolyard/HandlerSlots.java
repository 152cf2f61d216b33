package dev.toolyard;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds what handed-off handlers may hold: at most {@code perTool} running or abandoned handlers of one
 * tool, and {@code perExecutor} in all. A slot is taken before the write-ahead mark and given back only
 * when the handler itself returns, not when its caller stops waiting, so an abandoned handler keeps its
 * slot for as long as it runs; that is the point. Lock-free; thread-safe.
 */
final class HandlerSlots {
    private final int perTool;
    private final int perExecutor;
    private final AtomicInteger held = new AtomicInteger();
    private final ConcurrentHashMap<String, Slot> byTool = new ConcurrentHashMap<>();

    HandlerSlots(int perTool, int perExecutor) {
        this.perTool = perTool;
        this.perExecutor = perExecutor;
    }

    /** One tool's slots. Release exactly once per successful {@link HandlerSlots#acquire}. */
    final class Slot {
        private final AtomicInteger toolHeld = new AtomicInteger();

        void release() {
            toolHeld.decrementAndGet();
            held.decrementAndGet();
        }
    }

    /**
     * @param tool a registered tool's name
     * @return the tool's slot, now held once more; {@code null} when the tool or the executor is at its bound
     */
    Slot acquire(String tool) {
        Slot slot = byTool.get(tool);
        if (slot == null) {
            slot = byTool.computeIfAbsent(tool, t -> new Slot()); // registered names only: a bounded key set
        }
        if (slot.toolHeld.incrementAndGet() > perTool) {
            slot.toolHeld.decrementAndGet();
            return null;
        }
        if (held.incrementAndGet() > perExecutor) {
            held.decrementAndGet();
            slot.toolHeld.decrementAndGet();
            return null;
        }
        return slot;
    }

    /** @return the refusal detail for a tool that could not get a slot just now */
    String saturation(String tool) {
        Slot slot = byTool.get(tool);
        if (slot != null && slot.toolHeld.get() >= perTool) {
            return "the tool already has " + perTool + " running or abandoned handlers, its bound; retry later";
        }
        return "the executor already has " + perExecutor + " running or abandoned handlers, its bound; retry later";
    }

    /** @return the slots held now, in all */
    int held() {
        return held.get();
    }

    /** @return the slots one tool holds now */
    int held(String tool) {
        Slot slot = byTool.get(tool);
        return slot == null ? 0 : slot.toolHeld.get();
    }
}
