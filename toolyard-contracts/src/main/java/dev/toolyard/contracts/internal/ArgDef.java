package dev.toolyard.contracts.internal;

import java.math.BigDecimal;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One {@code [args.NAME]} of a manifest, with its custom type (if any) folded in. Immutable.
 *
 * @param name the argument's name
 * @param type the built-in type it validates as
 * @param typeName the type as written (a custom type's name, or the built-in name)
 * @param description for the model; never {@code null}
 * @param required whether the model must give it
 * @param position the manifest's ordering hint; {@link Integer#MAX_VALUE} when absent
 * @param defaultValue the default, already validated; {@code null} when none
 * @param allowed the enum's values; empty for other types
 * @param pattern the anchored pattern {@code ^(?:p)$}; {@code null} when none
 * @param min integer/port lower bound; {@code null} when none
 * @param max integer/port upper bound; {@code null} when none
 * @param minFloat number lower bound; {@code null} when none
 * @param maxFloat number upper bound; {@code null} when none
 * @param clamp whether an out-of-range number is clamped rather than refused
 * @param schemes the URL schemes allowed, lower case
 * @param scopeCheck whether the value must be inside the application's scope
 * @param blockInternal whether loopback, private and reserved targets are refused
 * @param allowWhitespace whether whitespace is allowed (honoured only with {@code command.exec})
 * @param allowLeadingDash whether a leading {@code -} or {@code +} is allowed
 */
public record ArgDef(
        String name,
        ArgType type,
        String typeName,
        String description,
        boolean required,
        int position,
        JsonNode defaultValue,
        List<String> allowed,
        String pattern,
        Long min,
        Long max,
        BigDecimal minFloat,
        BigDecimal maxFloat,
        boolean clamp,
        List<String> schemes,
        boolean scopeCheck,
        boolean blockInternal,
        boolean allowWhitespace,
        boolean allowLeadingDash) {

    /** Copies the lists. */
    public ArgDef {
        allowed = List.copyOf(allowed);
        schemes = List.copyOf(schemes);
    }

    /** @return this argument with another default */
    ArgDef withDefault(JsonNode value) {
        return new ArgDef(name, type, typeName, description, required, position, value, allowed, pattern, min, max,
                minFloat, maxFloat, clamp, schemes, scopeCheck, blockInternal, allowWhitespace, allowLeadingDash);
    }
}
