package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the isolation probe found: the tier runs use, every rung in ladder order with why it was
 * taken or skipped (and, for each rung whose canary passed, the canary's times and what the rung
 * enforces), the limits the chosen rung cannot enforce, and the canary's command line.
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
    private final IsolationTier startAt;
    private final String warmMode;
    private final Map<String, String> warmByRung;
    private final Map<String, String> commandNetworkByRung;

    IsolationReport(IsolationTier tier, List<Rung> rungs, Set<String> limitsUnenforced, ResourceLimits limits,
            List<String> canaryCommand, String runsAs, boolean seccompFilter, Map<String, String> limitEnforcement,
            IsolationTier startAt, String warmMode, Map<String, String> warmByRung) {
        this(tier, rungs, limitsUnenforced, limits, canaryCommand, runsAs, seccompFilter, limitEnforcement, startAt,
                warmMode, warmByRung, Map.of());
    }

    IsolationReport(IsolationTier tier, List<Rung> rungs, Set<String> limitsUnenforced, ResourceLimits limits,
            List<String> canaryCommand, String runsAs, boolean seccompFilter, Map<String, String> limitEnforcement,
            IsolationTier startAt, String warmMode, Map<String, String> warmByRung,
            Map<String, String> commandNetworkByRung) {
        this.commandNetworkByRung = Collections.unmodifiableMap(new LinkedHashMap<>(commandNetworkByRung));
        this.warmMode = Objects.requireNonNull(warmMode, "warmMode");
        this.warmByRung = Collections.unmodifiableMap(new LinkedHashMap<>(warmByRung));
        this.tier = Objects.requireNonNull(tier, "tier");
        this.startAt = Objects.requireNonNull(startAt, "startAt");
        this.rungs = List.copyOf(rungs);
        this.limitsUnenforced = Collections.unmodifiableSet(new LinkedHashSet<>(limitsUnenforced));
        this.limits = Objects.requireNonNull(limits, "limits");
        this.canaryCommand = List.copyOf(canaryCommand);
        this.runsAs = Objects.requireNonNull(runsAs, "runsAs");
        this.seccompFilter = seccompFilter;
        this.limitEnforcement = Collections.unmodifiableMap(new LinkedHashMap<>(limitEnforcement));
    }

    /**
     * One rung of the ladder as the probe left it: whether runs use it, why it was taken or skipped,
     * and, when its canary passed, each canary run's time and what the rung enforces. A rung that was
     * not probed (a tool missing, no image, above where the application started the ladder, below the
     * rung taken) has no times, an empty enforcement and no filter.
     *
     * @param name {@code podman}, {@code docker} or {@code bwrap}; never {@code null}
     * @param taken whether runs use this rung; at most one rung of a report is taken, and only one that
     *     passed its canary
     * @param why why it was taken or skipped, with what to install or configure to climb to it;
     *     never {@code null}
     * @param canaryTimes the time of each canary run, spawn to exit, in the order run, when every run
     *     passed; empty when the canary failed or did not run; never {@code null}
     * @param canaryCommand the canary's command line (the one a real run on this rung uses, around
     *     {@code /bin/true}), when the canary ran, whether or not it passed; never {@code null}
     * @param seccompFilterLoaded whether runs on this rung load ToolYard's own seccomp filter
     *     ({@code false} when the canary did not pass)
     * @param limitEnforcement for each {@link ResourceLimits} parameter name, in order, what enforces it
     *     on this rung; empty when the canary did not pass; never {@code null}
     */
    public record Rung(String name, boolean taken, String why, List<Duration> canaryTimes, List<String> canaryCommand,
            boolean seccompFilterLoaded, Map<String, String> limitEnforcement) {
        /**
         * Copies the collections.
         *
         * @param name the rung's name
         * @param taken whether runs use it
         * @param why why it was taken or skipped
         * @param canaryTimes each canary run's time, when every run passed
         * @param canaryCommand the canary's command line, when it ran
         * @param seccompFilterLoaded whether runs on it load ToolYard's seccomp filter
         * @param limitEnforcement what enforces each limit on it
         * @throws NullPointerException if any argument is {@code null}
         * @throws IllegalArgumentException if {@code taken} and {@code canaryTimes} is empty
         */
        public Rung {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(why, "why");
            canaryTimes = List.copyOf(canaryTimes);
            canaryCommand = List.copyOf(canaryCommand);
            limitEnforcement = Collections.unmodifiableMap(new LinkedHashMap<>(limitEnforcement));
            if (taken && canaryTimes.isEmpty()) {
                throw new IllegalArgumentException("a taken rung passed its canary, so it has its times; " + name + " has none");
            }
        }

        /**
         * A rung that was not probed, or whose canary failed.
         *
         * @param name the rung's name
         * @param why why it was skipped
         * @throws NullPointerException if {@code name} or {@code why} is {@code null}
         */
        public Rung(String name, String why) {
            this(name, false, why, List.of(), List.of(), false, Map.of());
        }

        /** @return whether every run of its canary passed */
        public boolean passed() {
            return !canaryTimes.isEmpty();
        }

        /** @return the median of {@link #canaryTimes()}; empty when the canary did not pass */
        public Optional<Duration> canaryTime() {
            if (canaryTimes.isEmpty()) {
                return Optional.empty();
            }
            List<Duration> sorted = new ArrayList<>(canaryTimes);
            Collections.sort(sorted);
            int n = sorted.size();
            return Optional.of(n % 2 == 1 ? sorted.get(n / 2) : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2));
        }

        /** @return {@code TAKEN}, {@code passed} (its canary passed, but a rung above it was taken) or {@code skipped} */
        public String standing() {
            return taken ? "TAKEN" : passed() ? "passed" : "skipped";
        }
    }

    /**
     * @return the rung the ladder started at: {@link IsolationTier#CONTAINER} (the default),
     *     {@link IsolationTier#GVISOR} or {@link IsolationTier#BWRAP}
     *     ({@link TieredSandbox.Builder#startAt(IsolationTier)})
     */
    public IsolationTier startAt() {
        return startAt;
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

    /**
     * @return whether runs use warm sandboxes ({@code TieredSandbox.Builder#warm(boolean)}): "off", or
     *     "on" with the pool's policy, or why they were asked for and are not used; never {@code null}
     */
    public String warmMode() {
        return warmMode;
    }

    /**
     * @return for each rung whose canary passed, in ladder order, whether it can run warm sandboxes and,
     *     when it can and this report is a survey, what a warm start and a warm {@code /bin/true} cost,
     *     against the cold canary; never {@code null}
     */
    public Map<String, String> warmByRung() {
        return warmByRung;
    }

    /**
     * Whether commands can have network ({@code run_command} with a {@code CommandNetwork}) on each rung
     * whose canary passed: {@code available (...)} or {@code unavailable: <why>}.
     *
     * @return by rung name, in ladder order; rungs that did not pass are absent; never {@code null}
     */
    public Map<String, String> commandNetworkByRung() {
        return commandNetworkByRung;
    }

    /** @return a multi-line, human-readable account of the probe, for a bug report */
    public String describe() {
        StringBuilder b = new StringBuilder(512);
        b.append("ToolYard isolation report\n");
        b.append("tier: ").append(tier.wireName())
                .append(tier == IsolationTier.UNAVAILABLE ? " (isolated runs are refused)" : "").append('\n');
        b.append("rungs, in ladder order").append(startAt == IsolationTier.BWRAP ? " (the application started it at bubblewrap)"
                : startAt == IsolationTier.GVISOR ? " (the application started it at gvisor)" : "")
                .append(":\n");
        int width = 0;
        for (Rung r : rungs) {
            width = Math.max(width, r.name().length());
        }
        for (Rung r : rungs) {
            String standing = r.standing() + ":";
            b.append("  ").append(r.name()).append(" ".repeat(width - r.name().length())).append("  ")
                    .append(standing).append(" ".repeat(9 - standing.length())).append(r.why()).append('\n');
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
        b.append("warm mode: ").append(warmMode).append('\n');
        for (Map.Entry<String, String> e : warmByRung.entrySet()) {
            b.append("  ").append(e.getKey()).append(" ".repeat(Math.max(0, width - e.getKey().length()))).append("  ")
                    .append(e.getValue()).append('\n');
        }
        if (!commandNetworkByRung.isEmpty()) {
            b.append("network for commands:\n");
            for (Map.Entry<String, String> e : commandNetworkByRung.entrySet()) {
                b.append("  ").append(e.getKey()).append(" ".repeat(Math.max(0, width - e.getKey().length()))).append("  ")
                        .append(e.getValue()).append('\n');
            }
        }
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
