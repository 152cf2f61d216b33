package dev.toolyard;

import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.IsolatedRunner;
import dev.toolyard.spi.PathPolicy;
import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * Runs every tool call a model asks for, and records it. {@link #execute} walks the refusal order, one
 * check class per stage, each handing the next a richer type: registry, budgets, allowlist, schema, egress,
 * containment, the application's {@link dev.toolyard.spi.PolicyGate} if it gave one, capacity and approval.
 * The order and each stage's reasons are declared once, in the package-private enum {@code Stage} (shown
 * in docs/architecture.md, "The refusal order"); this sentence names the stages only as a reader's guide. The
 * first check that fails names the reason; only a call that passes all of
 * them reaches its handler, with its path arguments resolved, under a mandatory deadline (see
 * {@link HandlerMode}). Its output is capped; its exceptions become {@code handler_error}. Every call is
 * recorded, refusals included, and observers hear of it. {@link #executeRound} runs one model turn's calls
 * concurrently, at most {@code maxCallsPerRound} of them ({@code round_limit} for the rest, before the
 * registry). Its helper lanes run with what the observers {@linkplain ToolCallObserver#carry carry} from the
 * caller's thread, so a trace continues across them.
 *
 * <p>Nothing a model sends makes {@code execute} or {@code executeRound} throw. They throw only
 * {@link StoreFailureException}, when the store cannot record, {@link IllegalStateException} after
 * {@link #close}, and {@link NullPointerException} for {@code null} arguments.
 *
 * <p>Thread-safe; the hot path takes no lock. Defaults: content cap 65,536 UTF-8 bytes, summary cap
 * 4,096 bytes, arguments up to 1 MiB, {@link HandlerMode#BY_TOOL}, at most 64 running or abandoned
 * handed-off handlers per tool and 256 in all, no observer, 32 calls per round on up to 8 lanes, no
 * approval gate (so no tool that needs approval may be allowlisted), an approval timeout of 5 minutes,
 * budgets kept 24 hours past an invocation's last call for up to 100,000 invocations.
 */
public final class ToolExecutor implements AutoCloseable {
    /** Default cap on the content a model sees, in UTF-8 bytes, truncation label included. */
    static final int DEFAULT_MAX_CONTENT_BYTES = 65_536;
    /** Default cap on the summary a record keeps, in UTF-8 bytes. */
    static final int DEFAULT_MAX_SUMMARY_BYTES = 4_096;
    /** Default cap on the arguments accepted, in UTF-8 bytes. */
    static final int DEFAULT_MAX_ARGUMENT_BYTES = 1 << 20;
    /** Arguments above this size are kept in records as their size and digest only. */
    static final int RECORD_ARGUMENT_BYTES = 16_384;
    /** The floor of any configured cap, so the truncation label always fits. */
    static final int MIN_CAP_BYTES = 256;
    /** Default bound on one tool's running and abandoned handed-off handlers. */
    static final int DEFAULT_MAX_HANDLERS_PER_TOOL = 64;
    /** Default bound on all running and abandoned handed-off handlers of one executor. */
    static final int DEFAULT_MAX_HANDLERS = 256;
    /** Default most calls of one round that run; the rest are refused {@code round_limit}. */
    static final int DEFAULT_MAX_CALLS_PER_ROUND = 32;
    /** Default most calls of one round that run at once. */
    static final int DEFAULT_ROUND_PARALLELISM = 8;
    /** Default wait for the approval gate's answer: 5 minutes. */
    static final Duration DEFAULT_APPROVAL_TIMEOUT = Duration.ofMinutes(5);
    /** Default time a budgeted invocation's count is kept after its last call: 24 hours. */
    static final Duration DEFAULT_BUDGET_RETENTION = Duration.ofHours(24);
    /** Default most budgeted invocations whose counts one executor keeps at once. */
    static final int DEFAULT_MAX_BUDGETED_INVOCATIONS = 100_000;
    private static final ToolCallRequest NO_REQUEST = ToolCallRequest.of("", "");

    private final Walk<Call, Admitted> checks;
    private final ToolRegistry registry;
    private final CapacityCheck capacity;
    private final CallRecorder recorder;
    private final HandlerRunner runner;
    private final WorkerPool workers;
    private final RoundRunner rounds;
    private final Observers observers;
    private final int maxCallsPerRound;
    private final Limits limits;
    private volatile boolean closed;

    private ToolExecutor(Builder b) {
        IsolationTier hostTier = b.pathPolicy instanceof IsolatedRunner r ? r.isolationTier() : IsolationTier.UNAVAILABLE;
        this.registry = b.registry;
        this.capacity = new CapacityCheck(new HandlerSlots(b.maxHandlersPerTool, b.maxHandlers), b.mode);
        // One check per Stage, in Stage's order (Walk refuses another order); Stage.ROUND is executeRound's.
        this.checks = Walk.first(new RegistryCheck(b.registry))
                .then(new BudgetCheck(new InvocationBudgets(b.budgetRetention, b.maxBudgetedInvocations)))
                .then(new AllowlistCheck(b.allowlist))
                .then(new SchemaCheck(b.maxArgumentBytes))
                .then(new EgressCheck())
                .then(new ContainmentCheck(b.pathPolicy, hostTier))
                .then(new PolicyCheck(b.policyGate, b.registry))
                .then(capacity)
                .then(b.approval());
        this.observers = new Observers(b.observers, hostTier);
        this.recorder = new CallRecorder(b.registry, b.store, new OutputCap(b.maxContentBytes, b.maxSummaryBytes), observers);
        this.workers = new WorkerPool(b.threads);
        this.runner = new HandlerRunner(workers);
        // A round never holds more handler slots than one tool may have, so a round alone cannot saturate a tool.
        this.rounds = new RoundRunner(Math.min(b.roundParallelism, b.maxHandlersPerTool), b.maxHandlers,
                RoundRunner.LANE_THREADS);
        this.maxCallsPerRound = b.maxCallsPerRound;
        this.limits = new Limits(b.maxContentBytes, b.maxSummaryBytes, b.maxArgumentBytes, RECORD_ARGUMENT_BYTES,
                b.maxHandlersPerTool, b.maxHandlers, b.maxCallsPerRound, b.roundParallelism, b.approvalTimeout,
                b.budgetRetention, b.maxBudgetedInvocations);
    }

    /**
     * The caps and bounds an executor was built with: the configured value of each, or its default. A
     * read-only view; the defaults are what an executor built without setting them reports.
     *
     * @param maxContentBytes cap on the content a model sees, in UTF-8 bytes, truncation label included; default 65,536
     * @param maxSummaryBytes cap on the summary a record keeps, in UTF-8 bytes; default 4,096
     * @param maxArgumentBytes cap on the arguments accepted, in UTF-8 bytes; default 1 MiB
     * @param recordArgumentBytes arguments above this size are kept in records as their size and digest only;
     *     16,384, not configurable
     * @param maxHandlersPerTool bound on one tool's running and abandoned handed-off handlers; default 64
     * @param maxHandlers bound on all running and abandoned handed-off handlers; default 256
     * @param maxCallsPerRound most calls of one round that run, the rest refused {@code round_limit}; default 32
     * @param roundParallelism most calls of one round that run at once; default 8
     * @param approvalTimeout wait for the approval gate's answer; default 5 minutes
     * @param budgetRetention how long a budgeted invocation's count is kept after its last call; default 24 hours
     * @param maxBudgetedInvocations most budgeted invocations whose counts are kept at once; default 100,000
     */
    public record Limits(int maxContentBytes, int maxSummaryBytes, int maxArgumentBytes, int recordArgumentBytes,
            int maxHandlersPerTool, int maxHandlers, int maxCallsPerRound, int roundParallelism,
            Duration approvalTimeout, Duration budgetRetention, int maxBudgetedInvocations) {
        /**
         * Checks nothing: an executor builds it from values its builder already checked.
         *
         * @param maxContentBytes cap on the content a model sees
         * @param maxSummaryBytes cap on the summary a record keeps
         * @param maxArgumentBytes cap on the arguments accepted
         * @param recordArgumentBytes size above which records keep only the arguments' size and digest
         * @param maxHandlersPerTool bound on one tool's handed-off handlers
         * @param maxHandlers bound on all handed-off handlers
         * @param maxCallsPerRound most calls of one round that run
         * @param roundParallelism most calls of one round that run at once
         * @param approvalTimeout wait for the approval gate's answer
         * @param budgetRetention how long a budgeted invocation's count is kept
         * @param maxBudgetedInvocations most budgeted invocations kept at once
         */
        public Limits {}
    }

    /** @return the caps and bounds this executor was built with, defaults included; never {@code null} */
    public Limits limits() {
        return limits;
    }

    /**
     * @param registry the tools; never {@code null}
     * @param pathPolicy the containment port: a {@link PathContainment}, or a whole
     *     {@link dev.toolyard.spi.Sandbox} such as {@code TieredSandbox}, whose isolation tier then decides
     *     whether tools that require isolation may run (with only a path policy they are refused);
     *     never {@code null}
     * @return a builder; {@link Builder#allowlist} and {@link Builder#store} are required
     */
    public static Builder builder(ToolRegistry registry, PathPolicy pathPolicy) {
        return new Builder(registry, pathPolicy);
    }

    /** @return the stages this executor's walk runs, in order; for the test that it is {@code Stage}'s order */
    List<Stage> stages() {
        return checks.stages();
    }

    /**
     * Runs one call. Never throws for anything the model controls.
     *
     * @param request the call as the model asked for it; never {@code null}
     * @param context the invocation's context; never {@code null}
     * @return how the call ended; never {@code null}
     * @throws StoreFailureException if the store cannot record the call
     * @throws IllegalStateException if this executor is closed
     */
    public ToolResult execute(ToolCallRequest request, ToolContext context) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(context, "context");
        if (closed) {
            throw new IllegalStateException("this ToolExecutor is closed");
        }
        Call call = new Call(request, context);
        Admitted admitted = checks.walk(call);
        if (admitted == null) {
            return recorder.refused(call);
        }
        try {
            recorder.started(call);
        } catch (RuntimeException e) {
            if (admitted.slot() != null) {
                admitted.slot().release(); // the handler never runs
            }
            throw e;
        }
        return recorder.completed(call, runner.run(admitted));
    }

    /**
     * Runs one model turn's calls, concurrently on at most {@code roundParallelism} lanes (the caller's
     * thread among them; capped at {@code maxHandlersPerTool}), and returns exactly one result per request,
     * in request order, each recorded. The first {@code maxCallsPerRound} requests run as {@link #execute}
     * would run them; every later one is refused {@code round_limit} without being looked up, its detail
     * telling the model to ask again with fewer calls; a {@code null} element is refused
     * {@code unknown_tool}. The list is read once, at the start. Never throws for anything the model
     * controls.
     *
     * @param requests the turn's calls, in the model's order; never {@code null}; may be empty
     * @param context the invocation's context; never {@code null}
     * @return one result per request, in request order; unmodifiable; never {@code null}
     * @throws StoreFailureException if the store cannot record a call (once every call taken has ended)
     * @throws IllegalStateException if this executor is closed
     */
    public List<ToolResult> executeRound(List<ToolCallRequest> requests, ToolContext context) {
        Objects.requireNonNull(requests, "requests");
        Objects.requireNonNull(context, "context");
        if (closed) {
            throw new IllegalStateException("this ToolExecutor is closed");
        }
        Object[] calls = requests.toArray(); // one read: a list changed meanwhile changes nothing here
        int count = calls.length;
        if (count == 0) {
            return List.of();
        }
        String overLimit = count > maxCallsPerRound ? overLimit(count) : null;
        ToolResult[] results = rounds.run(count, i -> {
            if (!(calls[i] instanceof ToolCallRequest request)) {
                return refuseUnlooked(NO_REQUEST, context, Reason.UNKNOWN_TOOL,
                        "place " + i + " of the round held no tool call");
            }
            if (i >= maxCallsPerRound) {
                return refuseUnlooked(request, context, Reason.ROUND_LIMIT, overLimit);
            }
            return execute(request, context);
        }, observers::carry, count > 1 && handsOff(calls)); // one call has no lanes to start
        return List.of(results);
    }

    private String overLimit(int count) {
        return "this round asked for " + count + " calls; at most " + maxCallsPerRound
                + " run in one round and the first " + maxCallsPerRound + " did: ask for this call again in a"
                + " later round, with fewer calls per round";
    }

    /**
     * @return whether a call of the round that will run names a tool whose handler is handed off, so the
     *     round's lanes will wait and start at once; a round of calls on the caller's thread starts alone
     */
    private boolean handsOff(Object[] calls) {
        for (int i = 0, n = Math.min(calls.length, maxCallsPerRound); i < n; i++) {
            if (calls[i] instanceof ToolCallRequest request) {
                Tool tool = registry.get(request.name());
                if (tool != null && !capacity.onCallersThread(tool.spec())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Opens one model turn whose calls will arrive one at a time, before the turn is complete (a streamed
     * response): see {@link StreamedRound}. The first {@code maxCallsPerRound} calls to arrive run; every
     * later one is refused {@code round_limit}, recorded. Prefer {@link #executeRound} whenever the whole
     * turn is known.
     *
     * @param context the invocation's context, for every call of the turn; never {@code null}
     * @return the turn, with no call yet; never {@code null}
     * @throws IllegalStateException if this executor is closed
     */
    public StreamedRound openRound(ToolContext context) {
        Objects.requireNonNull(context, "context");
        if (closed) {
            throw new IllegalStateException("this ToolExecutor is closed");
        }
        return new StreamedRound(this, context, maxCallsPerRound);
    }

    /** A call of a streamed round past {@code maxCallsPerRound}: refused and recorded, never looked up. */
    ToolResult refuseRoundLimit(ToolCallRequest request, ToolContext context, String detail) {
        if (closed) {
            throw new IllegalStateException("this ToolExecutor is closed");
        }
        return refuseUnlooked(request, context, Reason.ROUND_LIMIT, detail);
    }

    /**
     * Carries what the observers read from the calling thread (an OpenTelemetry context, for one) to the
     * thread that will run {@code task}: for an adapter whose framework hands a turn's calls to threads of
     * its own. Call it on the thread the calls belong to, and run what it returns on the other thread.
     * {@link #executeRound} does the same for its own helper lanes. With no observer, {@code task} itself.
     *
     * @param task the work to run on another thread; never {@code null}
     * @return the task to run there; never {@code null}
     */
    public Runnable carry(Runnable task) {
        return observers.carry(Objects.requireNonNull(task, "task"));
    }

    /** Refuses a call before any check of the walk: it is recorded, never looked up. */
    private ToolResult refuseUnlooked(ToolCallRequest request, ToolContext context, Reason reason, String detail) {
        Call call = new Call(request, context);
        call.refuse(reason, detail);
        return recorder.refused(call);
    }

    /**
     * Stops accepting calls and releases the workers: idle ones end, busy ones are interrupted (a handler
     * that ignores interruption runs on until it returns, its output discarded). Calls already running
     * end as they would. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        workers.close();
        rounds.close();
    }

    /**
     * Builds a {@link ToolExecutor}. The allowlist and the store are required: a security setting has
     * no silent default. Not thread-safe.
     */
    public static final class Builder {
        private final ToolRegistry registry;
        private final PathPolicy pathPolicy;
        private final List<ToolCallObserver> observers = new ArrayList<>();
        private PolicyGate policyGate;
        private Set<String> allowlist;
        private ToolCallStore store;
        private int maxContentBytes = DEFAULT_MAX_CONTENT_BYTES;
        private int maxSummaryBytes = DEFAULT_MAX_SUMMARY_BYTES;
        private int maxArgumentBytes = DEFAULT_MAX_ARGUMENT_BYTES;
        private int maxHandlersPerTool = DEFAULT_MAX_HANDLERS_PER_TOOL;
        private int maxHandlers = DEFAULT_MAX_HANDLERS;
        private HandlerMode mode = HandlerMode.BY_TOOL;
        private ThreadFactory threads = WorkerPool.DAEMON_THREADS;
        private int maxCallsPerRound = DEFAULT_MAX_CALLS_PER_ROUND;
        private int roundParallelism = DEFAULT_ROUND_PARALLELISM;
        private ApprovalGate approvalGate;
        private RiskClass approvalFrom;
        private Duration approvalTimeout = DEFAULT_APPROVAL_TIMEOUT;
        private Duration budgetRetention = DEFAULT_BUDGET_RETENTION;
        private int maxBudgetedInvocations = DEFAULT_MAX_BUDGETED_INVOCATIONS;

        private Builder(ToolRegistry registry, PathPolicy pathPolicy) {
            this.registry = Objects.requireNonNull(registry, "registry");
            this.pathPolicy = Objects.requireNonNull(pathPolicy, "pathPolicy");
        }

        /**
         * @param allowlist the tools this application lets a model call; never {@code null}; may be empty
         * @return this builder
         */
        public Builder allowlist(Set<String> allowlist) {
            this.allowlist = Set.copyOf(Objects.requireNonNull(allowlist, "allowlist"));
            return this;
        }

        /**
         * @param store where every call is recorded; never {@code null}
         * @return this builder
         */
        public Builder store(ToolCallStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * @param bytes cap on the content a model sees, at least 256; default 65,536
         * @return this builder
         */
        public Builder maxContentBytes(int bytes) {
            this.maxContentBytes = atLeast("maxContentBytes", bytes, MIN_CAP_BYTES);
            return this;
        }

        /**
         * @param bytes cap on the summary a record keeps, at least 256; default 4,096
         * @return this builder
         */
        public Builder maxSummaryBytes(int bytes) {
            this.maxSummaryBytes = atLeast("maxSummaryBytes", bytes, MIN_CAP_BYTES);
            return this;
        }

        /**
         * @param bytes cap on the arguments accepted, at least 256; default 1 MiB
         * @return this builder
         */
        public Builder maxArgumentBytes(int bytes) {
            this.maxArgumentBytes = atLeast("maxArgumentBytes", bytes, MIN_CAP_BYTES);
            return this;
        }

        /**
         * @param bound most running and abandoned handed-off handlers one tool may hold, at least 1 and at
         *     most {@link #maxHandlers}; default 64. Past it the tool's calls are refused {@code tool_saturated}.
         * @return this builder
         */
        public Builder maxHandlersPerTool(int bound) {
            this.maxHandlersPerTool = atLeast("maxHandlersPerTool", bound, 1);
            return this;
        }

        /**
         * @param bound most running and abandoned handed-off handlers of this executor, and so most worker
         *     threads; at least 1; default 256
         * @return this builder
         */
        public Builder maxHandlers(int bound) {
            this.maxHandlers = atLeast("maxHandlers", bound, 1);
            return this;
        }

        /**
         * @param threads makes the executor's worker threads (the executor owns them and ends them at
         *     {@link ToolExecutor#close}); default daemon threads named {@code toolyard-handler-N}
         * @return this builder
         */
        public Builder workerThreads(ThreadFactory threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        /**
         * @param mode where handlers run; default {@link HandlerMode#BY_TOOL}
         * @return this builder
         */
        public Builder handlerMode(HandlerMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * Adds an observer of every call. Repeatable: observers are called in the order added. Default none,
         * and with none the executor builds and calls nothing for observation.
         *
         * @param observer the observer; never {@code null}
         * @return this builder
         */
        public Builder observer(ToolCallObserver observer) {
            observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * @param calls most calls of one {@link ToolExecutor#executeRound} that run, at least 1; default 32.
         *     The rest are refused {@code round_limit} and recorded.
         * @return this builder
         */
        public Builder maxCallsPerRound(int calls) {
            this.maxCallsPerRound = atLeast("maxCallsPerRound", calls, 1);
            return this;
        }

        /**
         * @param lanes most calls of one round that run at once, the caller's thread included, at least 1;
         *     default 8; capped at {@link #maxHandlersPerTool} so a round alone never saturates a tool
         * @return this builder
         */
        public Builder roundParallelism(int lanes) {
            this.roundParallelism = atLeast("roundParallelism", lanes, 1);
            return this;
        }

        /**
         * @param gate asked before every call that needs approval runs (see {@link ToolSpec#requiresApproval()}
         *     and {@link #requireApprovalFrom}); never {@code null}; default none, and then an executor with
         *     such a tool on its allowlist cannot be built
         * @return this builder
         */
        public Builder approvalGate(ApprovalGate gate) {
            this.approvalGate = Objects.requireNonNull(gate, "approvalGate");
            return this;
        }

        /**
         * @param riskClass every tool of this risk class or above needs approval, whatever its spec says;
         *     never {@code null}; default none (only tools declaring {@code requiresApproval} need it)
         * @return this builder
         */
        public Builder requireApprovalFrom(RiskClass riskClass) {
            this.approvalFrom = Objects.requireNonNull(riskClass, "riskClass");
            return this;
        }

        /**
         * @param timeout how long a call waits for the approval gate's answer before it is refused
         *     {@code approval_timeout}; positive; default 5 minutes
         * @return this builder
         */
        public Builder approvalTimeout(Duration timeout) {
            this.approvalTimeout = positive("approvalTimeout", timeout);
            return this;
        }

        /**
         * @param retention how long a budgeted invocation's count is kept after its last call; positive;
         *     default 24 hours. An invocation that comes back later starts a fresh count, so this should
         *     exceed the longest pause of an agent task.
         * @return this builder
         */
        public Builder budgetRetention(Duration retention) {
            this.budgetRetention = positive("budgetRetention", retention);
            return this;
        }

        /**
         * @param invocations most budgeted invocations whose counts are kept at once, at least 1; default
         *     100,000. A new budgeted invocation past it is refused {@code budget_exhausted}.
         * @return this builder
         */
        public Builder maxBudgetedInvocations(int invocations) {
            this.maxBudgetedInvocations = atLeast("maxBudgetedInvocations", invocations, 1);
            return this;
        }

        private ApprovalCheck approval() {
            return new ApprovalCheck(approvalGate, approvalFrom, approvalTimeout.toNanos());
        }

        private static Duration positive(String parameter, Duration value) {
            Objects.requireNonNull(value, parameter);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(parameter + " must be positive, got " + value);
            }
            return value;
        }

        /**
         * Adds the application's check, after containment, before a handler slot is taken and before the
         * approval gate (see {@link PolicyGate}). Default none.
         *
         * @param gate the gate; never {@code null}
         * @return this builder
         */
        public Builder policyGate(PolicyGate gate) {
            this.policyGate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        private static int atLeast(String parameter, int value, int floor) {
            if (value < floor) {
                throw new IllegalArgumentException(parameter + " must be at least " + floor + ", got " + value);
            }
            return value;
        }

        /**
         * @return the executor
         * @throws IllegalStateException if the allowlist or the store was not given
         * @throws IllegalArgumentException if the allowlist names a tool that is not registered, or
         *     maxHandlersPerTool is above maxHandlers
         * @throws IllegalStateException if an allowlisted tool needs approval and no approval gate was given
         * @throws InvalidToolSpecException ({@code $.reasons}) if the policy gate declares a reason that a tool
         *     of the registry declared with another status; the message names both
         */
        public ToolExecutor build() {
            if (allowlist == null) {
                throw new IllegalStateException("allowlist is required (an empty set refuses every tool)");
            }
            if (store == null) {
                throw new IllegalStateException("store is required: every call is recorded");
            }
            ApprovalCheck approval = approval();
            for (String name : allowlist) {
                Tool tool = registry.get(name);
                if (tool == null) {
                    throw new IllegalArgumentException("allowlist names '" + name + "', which is not registered");
                }
                if (approvalGate == null && approval.needsApproval(tool.spec())) {
                    throw new IllegalStateException("approvalGate is required: the allowlisted tool '" + name
                            + "' needs approval");
                }
            }
            if (maxHandlersPerTool > maxHandlers) {
                throw new IllegalArgumentException("maxHandlersPerTool must be at most maxHandlers (" + maxHandlers
                        + "), got " + maxHandlersPerTool);
            }
            // The stages' own reasons join the registry's, so one wire name keeps one status among them.
            registry.declare("the executor's policy stage", Set.of(PolicyCheck.POLICY_ERROR));
            if (policyGate != null) {
                Set<Reason> gateReasons = Objects.requireNonNull(policyGate.reasons(), "policyGate.reasons()");
                registry.declare("the policy gate " + policyGate.getClass().getName(), gateReasons);
            }
            return new ToolExecutor(this);
        }
    }
}
