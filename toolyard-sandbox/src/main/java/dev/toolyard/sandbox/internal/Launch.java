package dev.toolyard.sandbox.internal;

import java.util.List;
import java.util.Map;

/**
 * One prepared run: the command line to spawn, the environment of the spawned client (not of the
 * command, which the command line sets), and how to stop and tidy up everything it started.
 * Used by one thread.
 */
public interface Launch {
    /** @return the command line, argv only */
    List<String> argv();

    /** @return the environment of the process spawned directly; the command's own is in the command line */
    Map<String, String> environment();

    /** Kills the whole tree of the run now, without waiting; safe to call more than once. */
    void killTree(Process client);

    /**
     * Called once after the client has exited: removes what outlived it (a cgroup's stragglers, a
     * container) and releases what the run held.
     *
     * @param killed whether the supervisor killed the run (timeout, output cap, interruption)
     */
    void close(Process client, boolean killed);

    /** Called instead of {@link #close} when the client could not be started. */
    void abandon();
}
