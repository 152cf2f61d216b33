package dev.toolyard.policy;

import java.util.Locale;

/**
 * How far synthesis generalises from the calls it saw. Per argument (see docs/policies.md for the whole
 * table):
 *
 * <ul>
 *   <li>{@link #EXACT}: only the values seen;
 *   <li>{@link #TIGHT}: numbers within the range seen, paths under the directories seen, URLs on the
 *       hosts and directories seen, strings of the characters and lengths seen (few distinct strings stay
 *       an enumeration);
 *   <li>{@link #BALANCED} (the default): numbers within twice the range seen, paths and URL paths under
 *       the first segment seen, strings of the character classes seen up to twice the longest;
 *   <li>{@link #LOOSE}: numbers, booleans and structured values of any value, paths anywhere in the
 *       workspace, URLs on the hosts seen with any path, strings of a bounded length.
 * </ul>
 *
 * Every preset is deny by default: a tool, an agent or an argument never seen is refused.
 */
public enum Strictness {
    /** Only the values seen. */
    EXACT,
    /** The ranges, directories, hosts and characters seen. */
    TIGHT,
    /** One step wider than what was seen; the default. */
    BALANCED,
    /** Bounded by kind only: the workspace, the hosts seen, a length. */
    LOOSE;

    /** @return the lower-case name used in policy documents and on the command line */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a wire name, any case
     * @return the preset
     * @throws IllegalArgumentException naming the four presets if there is none of that name
     */
    public static Strictness fromWireName(String name) {
        for (Strictness s : values()) {
            if (s.wireName().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("strictness must be one of exact, tight, balanced, loose; got '" + name + "'");
    }
}
