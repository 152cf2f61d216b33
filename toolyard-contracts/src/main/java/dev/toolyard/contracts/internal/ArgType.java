package dev.toolyard.contracts.internal;

import java.util.Locale;
import java.util.Optional;

/** ToolClad's 15 built-in argument types. */
public enum ArgType {
    /** Injection-safe text, optionally matching an anchored pattern. */
    STRING,
    /** A whole number, optionally within min/max (or clamped). */
    INTEGER,
    /** A finite decimal number, optionally within min_float/max_float (or clamped). */
    NUMBER,
    /** 1-65535. */
    PORT,
    /** {@code true} or {@code false}, any case, normalised to lower case. */
    BOOLEAN,
    /** One of the declared values, exactly. */
    ENUM,
    /** A host name, IP address or CIDR range: ASCII only, no wildcard, no traversal. */
    SCOPE_TARGET,
    /** {@code scheme://host[:port]/...}, no user info. */
    URL,
    /** A relative path with no {@code ..} component. */
    PATH,
    /** An IPv4 or IPv6 literal, written canonically on output. */
    IP_ADDRESS,
    /** An IPv4 or IPv6 range. */
    CIDR,
    /** Semicolon-separated {@code KEY VALUE} pairs, each optionally written {@code set KEY VALUE}. */
    MSF_OPTIONS,
    /** A relative path to a regular file that exists in the workspace. */
    CREDENTIAL_FILE,
    /** Seconds, or h/m/s/ms components ({@code 30}, {@code 5m}, {@code 1h30m}). */
    DURATION,
    /** A value matching the declared (required) anchored pattern. */
    REGEX_MATCH;

    /** @return the manifest's spelling, for example {@code scope_target} */
    public String manifestName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a manifest's type name
     * @return the built-in type of that name
     */
    public static Optional<ArgType> byName(String name) {
        for (ArgType t : values()) {
            if (t.manifestName().equals(name)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** @return whether the value is a number on the wire (a JSON number or a string holding one) */
    public boolean numeric() {
        return this == INTEGER || this == NUMBER || this == PORT;
    }

    /** @return whether the type names a network target ({@code block_internal} and {@code scope_check} apply) */
    public boolean networkTarget() {
        return this == SCOPE_TARGET || this == URL || this == IP_ADDRESS || this == CIDR;
    }
}
