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
 * The reference {@link CompiledSchema} is held to: networknt, compiled by {@link SchemaRules#check} as
 * every {@code ToolSpec} is, and called with the configuration, the fail-fast handling and the
 * detail text that {@code ToolExecutor.checkArguments} and {@code ToolExecutor.describe} use (copied
 * here as they are at this commit, not shared, so that the executor moving to the fast path cannot
 * turn the comparison into one of the fast path with itself).
 */
final class NetworkntValidation {
    private static final ExecutionConfig VALIDATION = ExecutionConfig.builder()
            .formatAssertionsEnabled(false)
            .failFast(true)
            .maxEvaluationDepth(Json.MAX_DEPTH * 2)
            .maxEvaluationSteps(2_000_000)
            .build();

    private NetworkntValidation() {}

    /** @return the validator a spec with this schema holds; throws if the schema breaks a spec rule */
    static Schema validator(JsonNode schema) {
        try {
            return SchemaRules.check(schema);
        } catch (SchemaRules.Violation v) {
            throw new IllegalArgumentException(v.path() + ": " + v.getMessage(), v);
        }
    }

    /** @return {@code null} when networknt accepts; otherwise the executor's args_invalid detail */
    static String firstViolation(Schema validator, JsonNode arguments) {
        List<Error> errors;
        try {
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
