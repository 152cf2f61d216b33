package dev.toolyard;

/**
 * The rung of the isolation ladder a sandbox runs commands on, {@link #UNAVAILABLE} for a host with no
 * rung, and {@link #IN_PROCESS} for a call that runs in the JVM's own process because its tool declares no
 * need for isolation. The last two are two facts, not two words for one: {@code UNAVAILABLE} is a
 * sandbox's state (a call that needs isolation is refused {@code isolation_unavailable}), while
 * {@code IN_PROCESS} is how one call ran, on any host, bwrap or none. A sandbox reports a rung or
 * {@code UNAVAILABLE}, never {@code IN_PROCESS}; a call event reports {@code IN_PROCESS} for a tool that
 * needs no isolation and the sandbox's tier for one that does. Until 0.1 the second was named
 * {@code NONE} (wire {@code none}).
 */
public enum IsolationTier {
    /**
     * A container whose system calls a user-space kernel answers: podman with gVisor's {@code runsc}
     * as the OCI runtime, no network. Above the container rung; taken only when the application starts
     * the ladder here.
     */
    GVISOR,
    /** A rootless-style container (podman, then docker), no network. */
    CONTAINER,
    /** bubblewrap namespaces with limits applied inside. */
    BWRAP,
    /** No isolation is available; isolated runs are refused, never run unisolated. */
    UNAVAILABLE,
    /**
     * Not isolated, by design: the call's tool does not require isolation, so its handler runs in this
     * process. Observers see it; a sandbox never reports it as its tier. Wire name {@code in_process}.
     */
    IN_PROCESS;

    /**
     * @return whether this tier runs commands in a container (gVisor or the container rung), where
     *     the write root is bound at its own path inside an image
     */
    public boolean containerized() {
        return this == GVISOR || this == CONTAINER;
    }

    /** @return the wire form, lower case; never {@code null} */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
