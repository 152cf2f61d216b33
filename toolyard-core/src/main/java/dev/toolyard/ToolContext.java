package dev.toolyard;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What one invocation (one agent turn or trajectory) allows: its id, its workspace, its timeout per
 * call, the tools approved for it, its egress ceiling, its budgets and its clock.
 *
 * <p>Defaults (a context built without setting them reports them: {@link #timeout()} and the others):
 * timeout 30 s; approved tools: no narrowing beyond the
 * executor's allowlist; egress ceiling {@link EgressClass#NONE} (a tool that reaches the network must be
 * allowed explicitly); no call budget and no wall-clock budget; the system UTC clock; no agent name. Immutable.
 * Thread-safe.
 *
 * <p>Budgets are counted by each {@link ToolExecutor} per invocation id (see
 * {@link ToolExecutor.Builder#budgetRetention}): contexts built again with the same id share one count.
 */
public final class ToolContext {
    /** The timeout of a call when the context names none. */
    static final long DEFAULT_TIMEOUT_SECONDS = 30;

    private static final Pattern TOOL_NAME = Pattern.compile("^[a-z][a-z0-9_]{1,63}$");
    private static final Pattern AGENT_NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$");

    private final String invocationId;
    private final SandboxPaths workspace;
    private final Duration timeout;
    private final Set<String> approvedTools;
    private final EgressClass egressCeiling;
    private final Clock clock;
    private final int callBudget;
    private final Duration timeBudget;
    private final String agent;

    private ToolContext(Builder b) {
        this.callBudget = b.callBudget;
        this.timeBudget = b.timeBudget;
        this.invocationId = b.invocationId;
        this.workspace = b.workspace;
        this.timeout = b.timeout;
        this.approvedTools = b.approvedTools;
        this.egressCeiling = b.egressCeiling;
        this.clock = b.clock;
        this.agent = b.agent;
    }

    /**
     * @param invocationId the invocation's id, 1–256 characters; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return a context with the defaults
     * @throws IllegalArgumentException if the id is empty or longer than 256 characters
     */
    public static ToolContext of(String invocationId, SandboxPaths workspace) {
        return builder(invocationId, workspace).build();
    }

    /**
     * @param invocationId the invocation's id, 1–256 characters; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return a builder with the defaults
     */
    public static Builder builder(String invocationId, SandboxPaths workspace) {
        return new Builder(invocationId, workspace);
    }

    /** @return the invocation id; never {@code null} */
    public String invocationId() {
        return invocationId;
    }

    /** @return the workspace; never {@code null} */
    public SandboxPaths workspace() {
        return workspace;
    }

    /** @return the timeout of each call; positive; never {@code null} */
    public Duration timeout() {
        return timeout;
    }

    /** @return the tools approved for this invocation, or empty for "every allowlisted tool" */
    public Optional<Set<String>> approvedTools() {
        return Optional.ofNullable(approvedTools);
    }

    /** @return the highest egress class a tool may have in this invocation; never {@code null} */
    public EgressClass egressCeiling() {
        return egressCeiling;
    }

    /** @return the clock used for record timestamps and the wall-clock budget; never {@code null} */
    public Clock clock() {
        return clock;
    }

    /** @return how many calls this invocation may make in all, or empty for no call budget */
    public OptionalInt callBudget() {
        return callBudget == 0 ? OptionalInt.empty() : OptionalInt.of(callBudget);
    }

    /** @return how long this invocation may make calls, from its first call, or empty for no wall-clock budget */
    public Optional<Duration> timeBudget() {
        return Optional.ofNullable(timeBudget);
    }

    /** @return whether either budget is set */
    boolean budgeted() {
        return callBudget != 0 || timeBudget != null;
    }

    /**
     * @return the application's name for the agent making this invocation's calls, as given to
     *     {@link Builder#agent}; empty when none was given. Records carry it, so a policy can hold one rule
     *     set per agent.
     */
    public Optional<String> agent() {
        return Optional.ofNullable(agent);
    }

    /** Builds a {@link ToolContext}. Not thread-safe. */
    public static final class Builder {
        private final String invocationId;
        private final SandboxPaths workspace;
        private Duration timeout = Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS);
        private Set<String> approvedTools;
        private EgressClass egressCeiling = EgressClass.NONE;
        private Clock clock = Clock.systemUTC();
        private int callBudget;
        private Duration timeBudget;
        private String agent;

        private Builder(String invocationId, SandboxPaths workspace) {
            Objects.requireNonNull(invocationId, "invocationId");
            Objects.requireNonNull(workspace, "workspace");
            if (invocationId.isEmpty() || invocationId.length() > 256) {
                throw new IllegalArgumentException(
                        "invocationId must be 1-256 characters, got " + invocationId.length());
            }
            this.invocationId = invocationId;
            this.workspace = workspace;
        }

        /**
         * @param timeout the deadline of each call, measured from the start of the handler; positive
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Narrows the executor's allowlist for this invocation: the effective set is the intersection.
         *
         * @param approvedTools tool names; never {@code null}; may be empty (nothing approved)
         * @return this builder
         * @throws IllegalArgumentException if a name is not a valid tool name
         */
        public Builder approvedTools(Set<String> approvedTools) {
            Objects.requireNonNull(approvedTools, "approvedTools");
            for (String name : approvedTools) {
                if (name == null || !TOOL_NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("approvedTools contains an invalid tool name: " + name);
                }
            }
            this.approvedTools = Set.copyOf(approvedTools);
            return this;
        }

        /**
         * @param egressCeiling the highest egress class allowed; never {@code null}
         * @return this builder
         */
        public Builder egressCeiling(EgressClass egressCeiling) {
            this.egressCeiling = Objects.requireNonNull(egressCeiling, "egressCeiling");
            return this;
        }

        /**
         * @param clock the clock for record timestamps; never {@code null}
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * A total call budget for the invocation: a call past it is refused {@code budget_exhausted} and
         * recorded. Every call that names a registered tool counts, whatever its outcome (unknown tools and
         * calls cut by a round's limit do not), so a model cannot spend it on refusals for free.
         *
         * @param calls how many calls the invocation may make, at least 1; default none (no budget)
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder callBudget(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("callBudget must be at least 1, got " + calls);
            }
            this.callBudget = calls;
            return this;
        }

        /**
         * A wall-clock budget for the invocation, measured by this context's clock from the first call the
         * executor saw for the invocation id: a call that arrives later is refused {@code budget_exhausted}
         * and recorded. A call that starts inside the budget runs under its own timeout.
         *
         * @param budget how long the invocation may make calls; positive; default none (no budget)
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder timeBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.isNegative() || budget.isZero()) {
                throw new IllegalArgumentException("timeBudget must be positive, got " + budget);
            }
            this.timeBudget = budget;
            return this;
        }

        /**
         * Names the agent (a persona, a role, an application component) whose calls these are. The name is
         * the application's, never the model's; records keep it. Default: none.
         *
         * @param agent 1-64 characters of {@code [A-Za-z0-9._-]}, starting with a letter or digit; never
         *     {@code null}
         * @return this builder
         * @throws IllegalArgumentException if the name does not have that form
         */
        public Builder agent(String agent) {
            Objects.requireNonNull(agent, "agent");
            if (!AGENT_NAME.matcher(agent).matches()) {
                throw new IllegalArgumentException("agent must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$, got '"
                        + (agent.length() > 80 ? agent.substring(0, 80) + "…" : agent) + "'");
            }
            this.agent = agent;
            return this;
        }

        /** @return the context */
        public ToolContext build() {
            return new ToolContext(this);
        }
    }

    @Override
    public String toString() {
        return "ToolContext[" + invocationId + ", " + workspace + ", timeout=" + timeout + "]";
    }
}
