package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A rung of the ladder that passed its canary: it prepares runs. Immutable. Thread-safe. */
public interface Rung {
    /** @return the rung's name in reports: {@code podman}, {@code docker} or {@code bwrap} */
    String name();

    /** @return the tier it provides */
    IsolationTier tier();

    /** @return the limits it cannot enforce, by {@code ResourceLimits} parameter name, in a stable order */
    Set<String> limitsUnenforced();

    /** @return for each {@code ResourceLimits} parameter name, in order, the mechanism that enforces it here */
    Map<String, String> enforcement();

    /** @return whether runs load ToolYard's own seccomp filter */
    boolean filtered();

    /**
     * @param command the command, argv only
     * @param env the command's environment, exactly
     * @return the prepared run
     * @throws java.io.UncheckedIOException if what the run needs (a cgroup) cannot be prepared
     */
    Launch prepare(List<String> command, BindSet binds, Map<String, String> env, Duration timeout);
}
