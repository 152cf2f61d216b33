package dev.toolyard;

/** Where a tool may send data, as an ordered ceiling: each class permits itself and those below it. */
public enum EgressClass {
    /** No network. */
    NONE,
    /** Only to hosts on an allowlist the application configured. */
    ALLOWLISTED,
    /** Anywhere. No built-in tool declares this. */
    ANY;

    /**
     * @param other the class to test; never {@code null}
     * @return whether a ceiling of this class admits {@code other}
     */
    public boolean permits(EgressClass other) {
        return other.ordinal() <= ordinal();
    }
}
