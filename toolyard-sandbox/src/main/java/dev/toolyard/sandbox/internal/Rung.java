package dev.toolyard.sandbox.internal;

import dev.toolyard.IsolationTier;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /**
     * @return why warm sandboxes cannot run on this rung on this host (this process is not root, so
     *     a command could not run as a uid other than its supervisor's; an engine warm mode is not
     *     built for); empty when they can
     */
    Optional<String> warmUnavailable();

    /**
     * Prepares the start of a warm sandbox for {@code binds}: the same sandbox a run gets, with the
     * supervisor as its init. The lease it takes is held until the sandbox ends.
     *
     * @param supervisor the host path of {@code toolyard-warm}
     * @param timeout how long to wait at most for a sandbox uid
     * @return the prepared start
     * @throws IllegalStateException if {@link #warmUnavailable()} is not empty
     * @throws java.io.UncheckedIOException as {@link #prepare}
     */
    WarmLaunch prepareWarm(BindSet binds, Path supervisor, Duration timeout);

    /**
     * The start of a warm sandbox: a {@link Launch} holding an exclusive lease
     * ({@link SandboxIds#acquireExclusive}) for the sandbox's whole life, released by {@link #close} or
     * {@link #abandon}, whose write root is claimed for each command.
     */
    interface WarmLaunch extends Launch {
        /** @return the uid and gid the sandbox's commands run as, lent to it alone */
        SandboxIds.Pair pair();

        /**
         * Claims the write root for one command ({@link SandboxIds.Lease#claim}): waits until no other run
         * works in a tree that contains it or lies inside it, then hands it over to the sandbox's uid, so
         * that what the application wrote there since is the command's to change. Close the claim once the
         * command and everything it left are gone.
         *
         * @param waitNanos how long to wait at most for the tree
         * @return the claim; empty if the tree was not free in time (the command may run elsewhere)
         * @throws IOException if the hand-over fails
         */
        Optional<SandboxIds.Claim> claimWriteRoot(long waitNanos) throws IOException;
    }
}
