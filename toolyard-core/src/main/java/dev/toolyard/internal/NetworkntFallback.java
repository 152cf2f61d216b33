package dev.toolyard.internal;

import dev.toolyard.spi.Text;
import dev.toolyard.spi.Json;
import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.FailFastAssertionException;
import com.networknt.schema.Schema;
import com.networknt.schema.path.NodePath;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Validation through networknt's json-schema-validator, for schemas {@link CompiledSchema} does not
 * cover. Bounded: formats are not asserted, the first
 * violation stops it, and depth and steps are capped so hostile arguments end as a refusal. Exported
 * only to ToolYard's own modules. Stateless; thread-safe.
 */
public final class NetworkntFallback {
    private static final ExecutionConfig VALIDATION = ExecutionConfig.builder()
            .formatAssertionsEnabled(false)
            .failFast(true) // the first violation is the reason; collecting the rest is work a refusal does not need
            .maxEvaluationDepth(Json.MAX_DEPTH * 2)
            .maxEvaluationSteps(2_000_000)
            .build();

    private NetworkntFallback() {}

    /**
     * @param validator the tool's compiled networknt schema; never {@code null}
     * @param arguments the parsed arguments; never {@code null}
     * @return {@code null} when valid, otherwise the {@code args_invalid} detail of the first violation
     */
    public static String firstViolation(Schema validator, JsonNode arguments) {
        List<Error> errors;
        try {
            // A context of our own: the validator's default one builds a fresh configuration per call.
            ExecutionContext validation = new ExecutionContext(VALIDATION);
            try {
                validator.validate(validation, arguments);
            } catch (FailFastAssertionException first) {
                validation.setErrors(first.getErrors());
            }
            if (validation.isEvaluationAborted()) {
                return "the arguments are too complex to validate";
            }
            errors = validation.getErrors();
        } catch (RuntimeException | StackOverflowError e) {
            return "the arguments are too complex to validate (" + e.getClass().getSimpleName() + ")";
        }
        return errors.isEmpty() ? null : describe(errors.get(0));
    }

    /**
     * The first violation, from its parts: location, keyword, property and the keyword's own value when
     * it is a plain value. The validator's formatted messages cost more to build than a whole success.
     */
    private static String describe(Error e) {
        StringBuilder b = new StringBuilder(128).append('$');
        NodePath at = e.getInstanceLocation();
        for (int i = 0, n = Math.min(at.getNameCount(), 16); i < n; i++) {
            Object element = at.getElement(i);
            if (element instanceof Integer index) {
                b.append('[').append(index.intValue()).append(']');
            } else {
                b.append('.').append(Text.clip(String.valueOf(element), 64));
            }
        }
        b.append(": fails \"").append(e.getKeyword()).append('"');
        if (e.getProperty() != null) {
            b.append(" for property '").append(Text.clip(e.getProperty(), 64)).append('\'');
        }
        JsonNode expected = e.getSchemaNode();
        if (expected != null && (expected.isString() || expected.isNumber() || expected.isBoolean())) {
            // Rendered by hand: JsonNode.toString() runs a whole serializer.
            b.append(" (");
            if (expected.isString()) {
                b.append('"').append(Text.clip(expected.stringValue(), 80)).append('"');
            } else {
                b.append(expected.isBoolean() ? String.valueOf(expected.booleanValue()) : expected.numberValue());
            }
            b.append(')');
        }
        return b.toString();
    }
}
