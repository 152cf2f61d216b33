package dev.toolyard;

/** How a call ended. */
public enum ToolStatus {
    /** The handler ran and returned. A command that exited non-zero is still {@code OK}: it ran. */
    OK,
    /** A check refused the call (or the handler refused its input); see {@link ToolResult#reason()}. */
    REFUSED,
    /** The handler ran and failed; see {@link ToolResult#reason()}. */
    FAILED,
    /** The handler ran past its deadline; its late output was discarded. */
    TIMEOUT,
    /**
     * Only on records read back from a store: the call was marked as started but no completion was
     * recorded, because the process died during it (or, in a live process, it is still running).
     * A {@link ToolResult} never carries this status.
     */
    INTERRUPTED;

    /** @return the wire form, lower case: {@code ok}, {@code refused}, ... */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * @param wireName a value of {@link #wireName()}
     * @return the status with that wire name
     * @throws IllegalArgumentException if no status has that wire name
     */
    public static ToolStatus fromWireName(String wireName) {
        for (ToolStatus s : values()) {
            if (s.wireName().equals(wireName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown status wire name: " + wireName);
    }
}
