package dev.toolyard;

import dev.toolyard.internal.ArgumentsTree;
import dev.toolyard.internal.CompiledSchema;
import dev.toolyard.spi.Json;
import dev.toolyard.internal.NetworkntFallback;
import dev.toolyard.spi.Text;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Stage {@link Stage#SCHEMA}: the arguments must be a JSON object within the size limit, parse (duplicate keys, trailing
 * data and excess depth refused), and satisfy the tool's schema ({@code args_invalid}, the first
 * violation in the detail). Immutable; thread-safe.
 *
 * <p>A plain document is read by {@link ArgumentsTree} into the tree Jackson would build; anything else,
 * every refusal included, is read by Jackson itself ({@code ArgumentsTreeDifferentialFuzzTest}).
 *
 * <p>The schema is judged by {@link CompiledSchema} when it stays inside the closed subset tools use, by
 * networknt otherwise; {@code CompiledSchemaDifferentialFuzzTest} keeps the two in agreement.
 */
final class SchemaCheck implements Check<ResolvedTool, ParsedArgs> {
    /**
     * The largest arguments the compiled fast path judges. networknt stops at 2,000,000 evaluation steps
     * and the call is then refused as too complex; the fast path counts no steps, so larger arguments go
     * to networknt, which then decides as it always has ({@code SchemaCheckEvaluationStepCapTest}).
     */
    static final int FAST_PATH_MAX_BYTES = 64 * 1024;

    private final int maxArgumentBytes;

    SchemaCheck(int maxArgumentBytes) {
        this.maxArgumentBytes = maxArgumentBytes;
    }

    @Override
    public Stage stage() {
        return Stage.SCHEMA;
    }

    @Override
    public ParsedArgs apply(ResolvedTool in) {
        Call call = in.call();
        if (call.notJson != null) {
            return call.refuse(Reason.ARGS_INVALID, call.notJson);
        }
        if (call.argumentBytes > maxArgumentBytes) {
            return call.refuse(Reason.ARGS_INVALID,
                    "arguments are " + call.argumentBytes + " bytes, over the limit of " + maxArgumentBytes);
        }
        ObjectNode arguments = call.preParsed;
        if (arguments == null) {
            arguments = ArgumentsTree.read(call.argumentsText, in.spec().argumentNames()); // the plain documents models send
        }
        if (arguments == null) {
            JsonNode parsed;
            try {
                parsed = Json.MAPPER.readTree(call.argumentsText);
            } catch (JacksonException e) {
                return call.refuse(Reason.ARGS_INVALID, "not valid JSON: " + Text.clip(
                        String.valueOf(e.getOriginalMessage()), 300));
            } catch (RuntimeException | StackOverflowError e) {
                return call.refuse(Reason.ARGS_INVALID, "not valid JSON: " + e.getClass().getSimpleName());
            }
            if (parsed == null || !parsed.isObject()) {
                return call.refuse(Reason.ARGS_INVALID, "arguments must be a JSON object");
            }
            arguments = (ObjectNode) parsed;
        }
        String violation = firstViolation(in.spec(), arguments, call.argumentBytes);
        if (violation == null) {
            violation = integerOutsideLong(in.spec(), arguments);
        }
        return violation == null ? new ParsedArgs(in, arguments) : call.refuse(Reason.ARGS_INVALID, violation);
    }

    /**
     * JSON Schema counts {@code 1e19} or {@code 12345678901234567890} as an integer, and the schema may
     * bound it nowhere; {@link ToolArgs#integer} cannot hand a handler such a value. The model is told
     * why, as a refusal, instead of the handler failing on a call the schema admitted.
     */
    private static String integerOutsideLong(ToolSpec spec, ObjectNode arguments) {
        List<String> names = spec.integerArgs();
        for (int i = 0; i < names.size(); i++) { // indexed: no iterator per call, most tools declare none
            String name = names.get(i);
            JsonNode value = arguments.get(name);
            if (value != null && value.isNumber() && ToolArgs.exactLong(value) == null) {
                boolean integral = value.isIntegralNumber() || value.canConvertToExactIntegral();
                if (integral) {
                    return "argument '" + Text.clip(name, 64) + "' is an integer outside the range a tool can take, "
                            + Long.MIN_VALUE + " to " + Long.MAX_VALUE;
                }
            }
        }
        return null;
    }

    /** The compiled fast path when the schema stays in its subset (one walk, no allocation when valid), networknt otherwise. */
    private static String firstViolation(ToolSpec spec, ObjectNode arguments, long argumentBytes) {
        CompiledSchema compiled = spec.compiledSchema();
        return compiled != null && argumentBytes <= FAST_PATH_MAX_BYTES ? compiled.firstViolation(arguments)
                : NetworkntFallback.firstViolation(spec.validator(), arguments);
    }
}
