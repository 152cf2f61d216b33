package dev.toolyard;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import dev.toolyard.internal.SchemaRules;
import dev.toolyard.spi.Json;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The executor's schema checks, for a tool implementer who must judge text the way {@code execute}
 * will: a regular expression matched with the executor's work budget (proportional to the input, so a
 * backtracking pattern cannot hang a call), and a tool's argument schema applied to arguments before
 * any call (a dry run). Stateless; thread-safe; no method accepts {@code null}.
 */
public final class Schemas {
    private Schemas() {}

    /**
     * @param regex a regular expression in the JSON Schema {@code pattern} dialect; it is not anchored
     *     here (a caller who wants a whole match anchors it)
     * @return a predicate that is {@code true} when the pattern is found in a text within the work budget;
     *     a match that exceeds its budget, or fails in any other way, is {@code false}. Thread-safe.
     * @throws IllegalArgumentException if the validator cannot compile the pattern
     */
    public static Predicate<String> boundedPattern(String regex) {
        Objects.requireNonNull(regex, "regex");
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "object");
        s.putObject("properties").putObject("v").put("type", "string").put("pattern", regex);
        s.put("additionalProperties", false);
        Schema schema;
        try {
            schema = SchemaRules.check(s);
        } catch (SchemaRules.Violation e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        return value -> {
            ObjectNode v = Json.MAPPER.createObjectNode();
            v.put("v", Objects.requireNonNull(value, "value"));
            try {
                return schema.validate(v).isEmpty();
            } catch (RuntimeException | StackOverflowError e) {
                return false;
            }
        };
    }

    /**
     * @param spec a built spec (its schema already passed the executor's rules)
     * @param arguments the parsed arguments
     * @return empty if the arguments satisfy the spec's schema, else the first violation as
     *     {@code <JSON path>: fails "<keyword>"}, the text an {@code args_invalid} refusal carries
     */
    public static Optional<String> firstViolation(ToolSpec spec, JsonNode arguments) {
        Objects.requireNonNull(arguments, "arguments");
        List<Error> errors;
        try {
            errors = SchemaRules.check(spec.argsSchemaNode()).validate(arguments);
        } catch (SchemaRules.Violation v) {
            throw new IllegalStateException("a built spec's schema failed the executor's rules", v);
        }
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        Error e = errors.get(0);
        return Optional.of(e.getInstanceLocation() + ": fails \"" + e.getKeyword() + "\"");
    }
}
