package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.internal.ContainerCommand;
import dev.toolyard.sandbox.internal.HostLayout;
import dev.toolyard.sandbox.internal.Ladder;
import dev.toolyard.sandbox.internal.Rung;
import dev.toolyard.sandbox.internal.WarmBinary;
import dev.toolyard.sandbox.internal.SandboxFiles;
import dev.toolyard.sandbox.internal.SandboxIds;
import dev.toolyard.sandbox.internal.SeccompFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The probe of one {@link TieredSandbox}: climbs (or surveys) the ladder and turns what it found into
 * an {@link IsolationReport}; and the sandbox's private files (the seccomp filter, the {@code /etc}
 * snapshot, the warm supervisor), looked up once for the probe and every survey: every sandbox of the
 * JVM shares them while their content is the same ({@link SandboxFiles#shared}). Thread-safe.
 */
final class LadderProbe {
    private static final System.Logger LOG = System.getLogger(LadderProbe.class.getName());

    /** What the probe found: the report, and the rung runs use ({@code null} when none is available). */
    record Probed(IsolationReport report, Rung rung) {}

    /** The sandbox's settings the probe depends on. */
    record Settings(Function<String, Optional<Path>> which, ResourceLimits limits, String containerImage,
            String ociRuntime, SandboxIds ids, BooleanSupplier root, IsolationTier startAt,
            IsolationTier lowestTier) {}

    private final Settings settings;
    private final WarmMode warm;
    private final Object filesLock = new Object();
    private Optional<SandboxFiles> files; // guarded by filesLock; written once

    LadderProbe(Settings settings, WarmMode warm) {
        this.settings = settings;
        this.warm = warm;
    }

    /**
     * @param survey whether to survey every rung (the doctor) rather than climb to the first that works
     * @return what was found
     */
    Probed probe(boolean survey) {
        Settings s = settings;
        Map<String, String> clientEnv = ContainerCommand.clientEnvironment(
                System.getProperty("user.home", "/"), Optional.ofNullable(System.getenv("XDG_RUNTIME_DIR")));
        boolean asRoot = s.root().getAsBoolean();
        Ladder.Host host = new Ladder.Host(asRoot, s.ids(), files());
        Ladder.Climb climb = survey
                ? Ladder.survey(s.which(), s.limits(), s.containerImage(), s.ociRuntime(), clientEnv, host, s.startAt(),
                        s.lowestTier())
                : Ladder.climb(s.which(), s.limits(), s.containerImage(), s.ociRuntime(), clientEnv, host, s.startAt(),
                        s.lowestTier());
        List<IsolationReport.Rung> rungs = new ArrayList<>();
        for (Ladder.Step step : climb.steps()) {
            rungs.add(new IsolationReport.Rung(step.name(), step.taken(), step.why(), step.canaryTimes(), step.canaryArgv(),
                    step.rung().map(Rung::filtered).orElse(false), step.rung().map(Rung::enforcement).orElse(Map.of())));
        }
        String runsAs = asRoot
                ? s.ids() + ", one pair lent to each run at a time; no supplementary group but the run's own gid"
                : "this process's uid (it is not root)";
        Map<String, String> warmByRung = new LinkedHashMap<>();
        for (Ladder.Step step : climb.steps()) {
            step.rung().ifPresent(r -> warmByRung.put(step.name(), survey ? WarmMode.survey(r, files()) : r.warmUnavailable().map(
                    why -> "cannot run warm: " + why).orElse("can run warm")));
        }
        Map<String, String> networkByRung = new LinkedHashMap<>();
        Optional<String> relayMissing = WarmBinary.relayMissing();
        for (Ladder.Step step : climb.steps()) {
            step.rung().ifPresent(r -> networkByRung.put(step.name(), relayMissing.map(why -> "unavailable: " + why)
                    .or(() -> files().isEmpty() ? Optional.of("unavailable: the sandbox's private directory could not be"
                            + " written") : Optional.empty())
                    .orElse("available: cold runs, through toolyard-relay on 127.0.0.1 inside, listening before the"
                            + " command starts" + (step.name().equals(Ladder.GVISOR) ? "; runsc may open the bound proxy"
                            + " socket (host-uds=open) on those runs only" : ""))));
        }
        IsolationReport report = new IsolationReport(climb.tier(), rungs, climb.limitsUnenforced(), s.limits(),
                climb.canaryArgv(), runsAs, climb.rung().map(Rung::filtered).orElse(false),
                climb.rung().map(Rung::enforcement).orElse(Map.of()), s.startAt(), warm.reportLine(climb.rung()), warmByRung,
                networkByRung);
        return new Probed(report, climb.rung().orElse(null));
    }

    /** @return the sandbox's private files, looked up (or written) on the first call; empty (and logged) if they cannot be */
    Optional<SandboxFiles> files() {
        synchronized (filesLock) {
            if (files == null) {
                files = writeFiles();
            }
            return files;
        }
    }

    /**
     * @return the private files of this sandbox's runs, ToolYard's seccomp filter among them; empty (and
     *     logged) if they cannot be written, in which case the report says no filter is loaded
     */
    private static Optional<SandboxFiles> writeFiles() {
        Optional<byte[]> program;
        Optional<String> profile;
        Optional<String> gvisorProfile;
        try {
            SeccompFilter filter = SeccompFilter.standard();
            program = Optional.of(filter.bpfProgramForHost());
            profile = Optional.of(filter.ociProfileJson());
            gvisorProfile = Optional.of(filter.forGvisor().ociProfileJson());
        } catch (IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "no seccomp filter for this architecture: " + e.getMessage());
            program = Optional.empty();
            profile = Optional.empty();
            gvisorProfile = Optional.empty();
        }
        try {
            return Optional.of(SandboxFiles.shared(HostLayout.inspect(), program, profile, gvisorProfile));
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not write the sandbox's private files; /etc entries are bound "
                    + "one by one and no seccomp filter is loaded: " + e);
            return Optional.empty();
        }
    }
}
