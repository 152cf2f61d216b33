package dev.toolyard;

/** The rung of the isolation ladder a sandbox runs commands on. */
public enum IsolationTier {
    /** A rootless-style container (podman, then docker), no network. */
    CONTAINER,
    /** bubblewrap namespaces with limits applied inside. */
    BWRAP,
    /** No isolation is available; isolated runs are refused, never run unisolated. */
    UNAVAILABLE;

    /** @return the wire form, lower case; never {@code null} */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
