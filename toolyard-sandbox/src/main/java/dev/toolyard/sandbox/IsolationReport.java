package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the isolation probe found: the tier runs use, every rung visited in order with why it was
 * taken or skipped, the limits the chosen rung cannot enforce, and the canary's command line.
 * {@link #describe()} is the text a user pastes into a bug report. Immutable. Thread-safe. No
 * accessor returns {@code null}.
 */
public final class IsolationReport {
    private final IsolationTier tier;
    private final List<Rung> rungs;
    private final Set<String> limitsUnenforced;
    private final ResourceLimits limits;
    private final List<String> canaryCommand;
    private final String runsAs;
    private final boolean seccompFilter;
    private final Map<String, String> limitEnforcement;

    IsolationReport(IsolationTier tier, List<Rung> rungs, Set<String> limitsUnenforced, ResourceLimits limits,
            List<String> canaryCommand, String runsAs, boolean seccompFilter, Map<String, String> limitEnforcement) {
        this.tier = Objects.requireNonNull(tier, "tier");
        this.rungs = List.copyOf(rungs);
        this.limitsUnenforced = Collections.unmodifiableSet(new LinkedHashSet<>(limitsUnenforced));
        this.limits = Objects.requireNonNull(limits, "limits");
        this.canaryCommand = List.copyOf(canaryCommand);
        this.runsAs = Objects.requireNonNull(runsAs, "runsAs");
        this.seccompFilter = seccompFilter;
        this.limitEnforcement = Collections.unmodifiableMap(new LinkedHashMap<>(limitEnforcement));
    }

    /**
     * One rung of the ladder as the probe left it.
     *
     * @param name {@code podman}, {@code docker} or {@code bwrap}; never {@code null}
     * @param taken whether runs use this rung; at most one rung of a report is taken
     * @param why why it was taken or skipped, with what to install or configure to climb to it;
     *     never {@code null}
     */
    public record Rung(String name, boolean taken, String why) {
        /**
         * @param name the rung's name
         * @param taken whether runs use it
         * @param why why it was taken or skipped
         * @throws NullPointerException if {@code name} or {@code why} is {@code null}
         */
        public Rung {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(why, "why");
        }
    }

    /** @return the tier runs use; {@link IsolationTier#UNAVAILABLE} when no rung passed its canary */
    public IsolationTier tier() {
        return tier;
    }

    /** @return every rung, in the order of the ladder (podman, docker, bwrap); unmodifiable */
    public List<Rung> rungs() {
        return rungs;
    }

    /**
     * @return the limits the chosen tier cannot enforce, by {@link ResourceLimits} parameter name
     *     ({@code cpuSeconds}, {@code memoryBytes}, {@code fileSizeBytes}, {@code processCount});
     *     all four when no tier is available; unmodifiable
     */
    public Set<String> limitsUnenforced() {
        return limitsUnenforced;
    }

    /** @return the limits runs are given */
    public ResourceLimits limits() {
        return limits;
    }

    /** @return the canary's command line on the rung taken, which real runs share; empty when none was taken */
    public List<String> canaryCommand() {
        return canaryCommand;
    }

    /**
     * @return the host uid and gid commands run as: when this process is root, the block of sandbox
     *     ids runs are lent from (never uid 0); otherwise this process's own
     */
    public String runsAs() {
        return runsAs;
    }

    /** @return whether runs on the tier taken load ToolYard's own seccomp filter; {@code false} when no tier was taken */
    public boolean seccompFilterLoaded() {
        return seccompFilter;
    }

    /**
     * @return for each {@link ResourceLimits} parameter name, in order, the mechanism that enforces it on
     *     the tier taken (an rlimit set by the launcher, a cgroup of the engine...); empty when no tier
     *     was taken; unmodifiable
     */
    public Map<String, String> limitEnforcement() {
        return limitEnforcement;
    }

    /** @return a multi-line, human-readable account of the probe, for a bug report */
    public String describe() {
        StringBuilder b = new StringBuilder(512);
        b.append("ToolYard isolation report\n");
        b.append("tier: ").append(tier.wireName())
                .append(tier == IsolationTier.UNAVAILABLE ? " (isolated runs are refused)" : "").append('\n');
        b.append("rungs, in the order visited:\n");
        int width = 0;
        for (Rung r : rungs) {
            width = Math.max(width, r.name().length());
        }
        for (Rung r : rungs) {
            b.append("  ").append(r.name()).append(" ".repeat(width - r.name().length()))
                    .append(r.taken() ? "  TAKEN    " : "  skipped  ").append(r.why()).append('\n');
        }
        b.append("runs as: ").append(runsAs).append('\n');
        b.append("seccomp filter: ").append(tier == IsolationTier.UNAVAILABLE ? "none (no tier)"
                : seccompFilter ? "ToolYard's own, loaded on every run" : "none of ToolYard's (the engine's default, if any)")
                .append('\n');
        b.append("limits: ").append(limits).append('\n');
        int nameWidth = 0;
        for (String name : limitEnforcement.keySet()) {
            nameWidth = Math.max(nameWidth, name.length());
        }
        for (Map.Entry<String, String> e : limitEnforcement.entrySet()) {
            b.append("  ").append(e.getKey()).append(" ".repeat(nameWidth - e.getKey().length())).append("  ")
                    .append(e.getValue()).append('\n');
        }
        b.append("limits unenforced: ").append(limitsUnenforced.isEmpty() ? "none" : String.join(", ", limitsUnenforced))
                .append('\n');
        if (!canaryCommand.isEmpty()) {
            b.append("canary command:");
            for (String arg : canaryCommand) {
                b.append(' ').append(arg.isEmpty() || arg.chars().anyMatch(Character::isWhitespace) ? "'" + arg + "'" : arg);
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** @return {@link #describe()} */
    @Override
    public String toString() {
        return describe();
    }
}
