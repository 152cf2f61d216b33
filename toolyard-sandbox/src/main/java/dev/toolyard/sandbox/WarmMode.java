package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.sandbox.internal.BindSet;
import dev.toolyard.sandbox.internal.Rung;
import dev.toolyard.sandbox.internal.SandboxFiles;
import dev.toolyard.sandbox.internal.SeccompFilter;
import dev.toolyard.sandbox.internal.Supervisor;
import dev.toolyard.sandbox.internal.WarmBinary;
import dev.toolyard.sandbox.internal.WarmPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Warm mode of one {@link TieredSandbox}: whether the application asked for it, its policy, and its
 * pool, made once on the first run after the probe (or the reason there is none), until
 * {@link #close()}. Also the text the report shows for it and the survey's warm timing. Thread-safe.
 */
final class WarmMode implements AutoCloseable {
    /** How long a warm start may take. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final boolean asked;
    private final WarmPool.Policy policy;
    private final Object lock = new Object();
    private State state; // guarded by lock; set once
    private boolean closed; // guarded by lock

    /** The pool, or why there is none. */
    private record State(Optional<WarmPool> pool, String mode) {}

    WarmMode(boolean asked, int perWorkspace, Duration idleTimeout, int maxTotal) {
        this.asked = asked;
        this.policy = new WarmPool.Policy(perWorkspace, idleTimeout, maxTotal, START_TIMEOUT);
    }

    /** @return whether the application asked for warm mode */
    boolean asked() {
        return asked;
    }

    /**
     * @param files the sandbox's private files, where the supervisor is installed
     * @return the pool of {@code rung}, made on the first call; empty when warm mode is off, unavailable
     *     or closed
     */
    Optional<WarmPool> pool(Rung rung, Supplier<Optional<SandboxFiles>> files) {
        if (!asked) {
            return Optional.empty();
        }
        synchronized (lock) {
            if (state == null) {
                state = closed ? new State(Optional.empty(), "off: the sandbox was closed") : newState(rung, files.get());
            }
            return state.pool();
        }
    }

    /** Runs {@code command} warm if a warm sandbox can be had; empty when the caller must run it cold. */
    Optional<Supervisor.Outcome> run(Rung rung, Supplier<Optional<SandboxFiles>> files, BindSet binds,
            List<String> command, Map<String, String> env, Duration timeout, int cap) {
        Optional<WarmPool> pool = pool(rung, files);
        return pool.isEmpty() ? Optional.empty() : pool.get().run(binds, command, env, timeout, cap);
    }

    /**
     * Runs {@code command} warm with network through {@code routed} if a warm sandbox with network can be
     * had ({@link #networkUnavailable} empty); empty when the caller must run it cold.
     */
    Optional<Supervisor.Outcome> run(Rung rung, Supplier<Optional<SandboxFiles>> files, BindSet binds,
            List<String> command, Map<String, String> env, Duration timeout, int cap, WarmPool.Routed routed) {
        if (networkUnavailable(rung).isPresent()) {
            return Optional.empty();
        }
        Optional<WarmPool> pool = pool(rung, files);
        return pool.isEmpty() ? Optional.empty() : pool.get().run(binds, command, env, timeout, cap, Optional.of(routed));
    }

    /** Why runs with network are cold on gVisor even in warm mode, as the report says it. */
    static final String GVISOR_WARM_NETWORK_UNAVAILABLE = "runs with network are cold on gvisor: runsc connects to a "
            + "bound unix socket only when told to (host-uds), which a warm gVisor sandbox is not";

    /** @return why runs with network on {@code rung} are cold in warm mode; empty when they run warm */
    static Optional<String> networkUnavailable(Rung rung) {
        return rung.tier() == dev.toolyard.IsolationTier.GVISOR ? Optional.of(GVISOR_WARM_NETWORK_UNAVAILABLE) : Optional.empty();
    }

    private State newState(Rung rung, Optional<SandboxFiles> f) {
        Optional<String> unavailable = rung.warmUnavailable();
        if (unavailable.isPresent()) {
            return new State(Optional.empty(), "asked for, but unavailable on " + rung.name() + ": " + unavailable.get());
        }
        if (f.isEmpty()) {
            return new State(Optional.empty(), "asked for, but the sandbox's private files could not be written; runs are cold");
        }
        WarmBinary.Result bin;
        try {
            bin = WarmBinary.install(f.get().directory());
        } catch (IOException e) {
            return new State(Optional.empty(), "asked for, but the supervisor could not be written (" + e + "); runs are cold");
        }
        if (bin.path().isEmpty()) {
            return new State(Optional.empty(), "asked for, but " + bin.whyNot());
        }
        WarmPool pool = new WarmPool(rung, bin.path().get(), SeccompFilter.warmCommands(rung.tier()).bpfProgramForHost(), policy);
        return new State(Optional.of(pool), on(rung) + "; supervisor " + bin.path().get());
    }

    /** @return the report's warm-mode line for the rung the ladder took (empty: none) */
    String reportLine(Optional<Rung> taken) {
        if (!asked) {
            return "off (the default; TieredSandbox.builder().warm(true) turns it on)";
        }
        if (taken.isEmpty()) {
            return "asked for, but no tier is available";
        }
        Rung rung = taken.get();
        return rung.warmUnavailable().or(WarmBinary::missing)
                .map(why -> "asked for, but unavailable on " + rung.name() + ": " + why).orElse(on(rung));
    }

    private String on(Rung rung) {
        return "on, " + rung.name() + ": " + policy.perWorkspace() + " idle per workspace, at most "
                + policy.maxTotal() + " in all, idle ones ended after " + policy.idleTimeout().toSeconds() + " s"
                + networkUnavailable(rung).map(why -> "; " + why).orElse("");
    }

    /** @return the commands a warm sandbox answered so far; 0 when there is no pool */
    long served() {
        synchronized (lock) {
            return state == null ? 0 : state.pool().map(WarmPool::served).orElse(0L);
        }
    }

    /** @return the pool's counts, {@code [live, idle, starts, discarded]}; all 0 when there is no pool */
    long[] counts() {
        synchronized (lock) {
            return state == null ? new long[4] : state.pool().map(pool -> new long[] {pool.live(), pool.idleCount(),
                    pool.starts(), pool.discarded()}).orElse(new long[4]);
        }
    }

    /** Ends the pool, if there is one; later runs are cold. Idempotent. */
    @Override
    public void close() {
        State s;
        synchronized (lock) {
            closed = true;
            s = state;
        }
        if (s != null) {
            s.pool().ifPresent(WarmPool::close);
        }
    }

    /**
     * Times a warm start and five warm {@code /bin/true} runs on
     * {@code rung}, in a temporary workspace, with a pool of its own that is closed before this returns.
     *
     * @return what the doctor shows for the rung's warm mode
     */
    static String survey(Rung rung, Optional<SandboxFiles> f) {
        Optional<String> unavailable = rung.warmUnavailable();
        if (unavailable.isPresent()) {
            return "cannot run warm: " + unavailable.get();
        }
        if (f.isEmpty()) {
            return "cannot run warm: the sandbox's private files could not be written";
        }
        Path dir = null;
        try {
            WarmBinary.Result bin = WarmBinary.install(f.get().directory());
            if (bin.path().isEmpty()) {
                return "cannot run warm: " + bin.whyNot();
            }
            dir = Files.createTempDirectory("toolyard-warm-survey-");
            BindSet binds = BindSet.of(SandboxPaths.of(dir.toRealPath()), rung.tier().containerized());
            try (WarmPool pool = new WarmPool(rung, bin.path().get(), SeccompFilter.warmCommands(rung.tier()).bpfProgramForHost(),
                    new WarmPool.Policy(1, Duration.ofMinutes(1), 1, START_TIMEOUT))) {
                long start = System.nanoTime();
                pool.warmUp(binds);
                List<Duration> times = new ArrayList<>();
                Duration first = null;
                for (int i = 0; i <= TieredSandbox.SURVEY_WARM_RUNS; i++) {
                    Optional<Supervisor.Outcome> o = pool.run(binds, List.of("/bin/true"), Map.of(), Duration.ofSeconds(10),
                            TieredSandbox.MIN_OUTPUT_CAP_BYTES);
                    if (o.isEmpty() || o.get().exitCode() != 0) {
                        return "can run warm, but a warm /bin/true did not pass" + o.map(x -> " (exit " + x.exitCode() + ")").orElse("");
                    }
                    if (i == 0) {
                        first = Duration.ofNanos(System.nanoTime() - start);
                    } else {
                        times.add(o.get().elapsed());
                    }
                }
                times.sort(null);
                return "can run warm: a warm start and its first /bin/true took " + first.toMillis() + " ms; each further "
                        + "warm /bin/true, median of " + TieredSandbox.SURVEY_WARM_RUNS + ", " + String.format(Locale.ROOT,
                        "%.2f", times.get(times.size() / 2).toNanos() / 1e6) + " ms";
            }
        } catch (IOException | RuntimeException e) {
            return "can run warm, but the warm survey failed: " + e.getMessage();
        } finally {
            if (dir != null) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    // a temporary directory
                }
            }
        }
    }
}
