package dev.toolyard.spi;

import dev.toolyard.IsolationTier;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * How an isolated run ended. {@code exitCode} is the command's exit status, or 128 plus the signal
 * number when it was killed (including by a timeout or the output cap). Texts are capped while they
 * were read; when cut, they end with a label and {@code outputTruncated} is set. Immutable.
 *
 * @param exitCode the exit status
 * @param stdout what the command wrote to standard output, decoded as UTF-8 (malformed bytes replaced); never {@code null}
 * @param stderr what it wrote to standard error, likewise; never {@code null}
 * @param tier the tier that ran it; never {@code null}; never {@link IsolationTier#UNAVAILABLE}
 * @param timedOut whether the deadline killed it
 * @param outputTruncated whether an output stream hit its cap (which also kills the run)
 * @param limitsUnenforced names of resource limits this tier could not apply; never {@code null}
 * @param elapsed wall time from start to exit; never {@code null}
 */
public record SubprocessResult(
        int exitCode,
        String stdout,
        String stderr,
        IsolationTier tier,
        boolean timedOut,
        boolean outputTruncated,
        Set<String> limitsUnenforced,
        Duration elapsed) {

    /**
     * Checks the components.
     *
     * @param exitCode the exit status
     * @param stdout what the command wrote to standard output, decoded as UTF-8 (malformed bytes replaced); never {@code null}
     * @param stderr what it wrote to standard error, likewise; never {@code null}
     * @param tier the tier that ran it; never {@code null}; never {@link IsolationTier#UNAVAILABLE}
     * @param timedOut whether the deadline killed it
     * @param outputTruncated whether an output stream hit its cap (which also kills the run)
     * @param limitsUnenforced names of resource limits this tier could not apply; never {@code null}
     * @param elapsed wall time from start to exit; never {@code null}
     * @throws NullPointerException if a field documented as never {@code null} is
     */
    public SubprocessResult {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(tier, "tier");
        limitsUnenforced = Set.copyOf(limitsUnenforced);
        Objects.requireNonNull(elapsed, "elapsed");
    }
}
