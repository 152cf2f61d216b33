package dev.toolyard;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each budgeted invocation has used, kept by one executor and keyed by invocation id: the calls
 * counted and when its first call came, by the context's clock. Only contexts that carry a budget make
 * an entry. Memory is bounded twice: an entry idle (no call) longer than the retention is dropped, in a
 * sweep run every {@value #SWEEP_EVERY} new entries and whenever the table is full; and at most
 * {@code maxTracked} entries exist. A new budgeted invocation that finds the table full even after a sweep
 * is refused {@code budget_exhausted} (failing closed), never let through uncounted. An invocation whose
 * entry was dropped starts a fresh count when it returns: the retention should exceed how long an agent
 * task may pause. Lock-free; thread-safe.
 */
final class InvocationBudgets {
    static final int SWEEP_EVERY = 1024;

    private final ConcurrentHashMap<String, Usage> byInvocation = new ConcurrentHashMap<>();
    private final long retentionMillis;
    private final int maxTracked;
    private final AtomicInteger created = new AtomicInteger();

    InvocationBudgets(Duration retention, int maxTracked) {
        this.retentionMillis = retention.toMillis();
        this.maxTracked = maxTracked;
    }

    private static final class Usage {
        final long firstMillis;
        final AtomicInteger calls = new AtomicInteger();
        volatile long lastMillis;

        Usage(long now) {
            this.firstMillis = now;
            this.lastMillis = now;
        }
    }

    /**
     * Counts one call against its invocation's budgets.
     *
     * @param context the call's context
     * @return {@code null} when the call is within budget (and now counted), otherwise the refusal detail
     */
    String charge(ToolContext context) {
        if (!context.budgeted()) {
            return null;
        }
        long now = context.clock().millis();
        String id = context.invocationId();
        Usage usage = byInvocation.get(id);
        if (usage == null) {
            if (byInvocation.size() >= maxTracked) {
                sweep(now);
                if (byInvocation.size() >= maxTracked) {
                    return "this executor already tracks the budgets of " + maxTracked
                            + " invocations, its bound; retry later";
                }
            }
            Usage fresh = new Usage(now);
            usage = byInvocation.putIfAbsent(id, fresh);
            if (usage == null) {
                usage = fresh;
                if (created.incrementAndGet() % SWEEP_EVERY == 0) {
                    sweep(now);
                }
            }
        }
        usage.lastMillis = now;
        if (context.timeBudget().isPresent()) {
            long budget = context.timeBudget().get().toMillis();
            long used = now - usage.firstMillis;
            if (used >= budget) {
                return "the invocation's wall-clock budget of " + budget + " ms is spent (its first call was " + used
                        + " ms ago)";
            }
        }
        int limit = context.callBudget().orElse(Integer.MAX_VALUE);
        while (true) {
            int n = usage.calls.get();
            if (n >= limit) {
                return "the invocation's budget of " + limit + " calls is spent";
            }
            if (usage.calls.compareAndSet(n, n + 1)) {
                return null;
            }
        }
    }

    private void sweep(long now) {
        for (Iterator<Map.Entry<String, Usage>> it = byInvocation.entrySet().iterator(); it.hasNext(); ) {
            if (now - it.next().getValue().lastMillis > retentionMillis) {
                it.remove();
            }
        }
    }

    /** @return how many invocations are tracked now */
    int tracked() {
        return byInvocation.size();
    }
}
