package dev.toolyard;

import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import java.util.List;

/**
 * The executor's observers, called in order on the caller's thread. An observer never changes an
 * outcome: what it throws is logged and ignored (a JVM in trouble, such as out of memory, is not
 * swallowed). With no observer nothing is built or called. Immutable; thread-safe.
 */
final class Observers {
    private static final System.Logger LOG = System.getLogger(ToolExecutor.class.getName());

    private final ToolCallObserver[] observers;
    private final IsolationTier hostTier;

    Observers(List<ToolCallObserver> observers, IsolationTier hostTier) {
        this.observers = observers.toArray(new ToolCallObserver[0]);
        this.hostTier = hostTier;
    }

    void started(Call call) {
        if (observers.length == 0) {
            return;
        }
        ToolCallEvent event = call.event(hostTier);
        for (ToolCallObserver o : observers) {
            try {
                o.onStart(event);
            } catch (Throwable t) {
                ignore(o, "onStart", t);
            }
        }
    }

    void ended(Call call, ToolCallRecord record) {
        if (observers.length == 0) {
            return;
        }
        ToolCallEvent event = call.event(hostTier);
        for (ToolCallObserver o : observers) {
            try {
                o.onEnd(event, record);
            } catch (Throwable t) {
                ignore(o, "onEnd", t);
            }
        }
    }

    /**
     * @param task work to hand to another thread, on the thread handing it over
     * @return the task as every observer carried it, in order; {@code task} itself with no observer
     */
    Runnable carry(Runnable task) {
        Runnable carried = task;
        for (ToolCallObserver o : observers) {
            try {
                Runnable next = o.carry(carried);
                if (next != null) {
                    carried = next;
                }
            } catch (Throwable t) {
                ignore(o, "carry", t);
            }
        }
        return carried;
    }

    private static void ignore(ToolCallObserver observer, String method, Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
        LOG.log(System.Logger.Level.WARNING, () -> "observer " + observer.getClass().getName() + "." + method
                + " threw " + t.getClass().getName() + "; ignored, the call goes on", t);
    }
}
