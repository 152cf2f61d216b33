package dev.toolyard;

/** How much a tool can change, as an ordered ceiling: each class permits itself and those below it. */
public enum RiskClass {
    /** Reads only. */
    READ_ONLY,
    /** Writes inside the workspace. */
    WRITE,
    /** Runs commands. */
    EXECUTE;

    /**
     * @param other the class to test; never {@code null}
     * @return whether a ceiling of this class admits {@code other}
     */
    public boolean permits(RiskClass other) {
        return other.ordinal() <= ordinal();
    }
}
