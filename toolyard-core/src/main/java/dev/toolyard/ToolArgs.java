package dev.toolyard;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The validated arguments a handler receives. Path arguments declared in the spec hold the resolved,
 * contained absolute path (also as their string value); read them with {@link #path(String)}.
 * Accessors throw {@link NoSuchElementException} or {@link IllegalArgumentException} for a name that is
 * absent or of another type: since the schema was already checked, that is a bug in the handler.
 * Not thread-safe to mutate through {@link #json()}; otherwise immutable.
 */
public final class ToolArgs {
    private final ObjectNode json;
    private final Map<String, Path> paths;

    /**
     * For tests of handlers and for the executor. Applications do not construct this.
     *
     * @param json the validated arguments; never {@code null}
     * @param paths resolved path arguments by name; never {@code null}
     */
    public ToolArgs(ObjectNode json, Map<String, Path> paths) {
        this.json = json;
        this.paths = Map.copyOf(paths);
    }

    /**
     * @param name a path argument declared in the spec
     * @return its resolved, contained absolute path
     * @throws NoSuchElementException if the argument is absent or not a declared path argument
     */
    public Path path(String name) {
        Path p = paths.get(name);
        if (p == null) {
            throw new NoSuchElementException("no resolved path argument '" + name + "'");
        }
        return p;
    }

    /**
     * @param name a path argument declared in the spec
     * @return its resolved path, or empty when the model left the optional argument out
     */
    public Optional<Path> optionalPath(String name) {
        return Optional.ofNullable(paths.get(name));
    }

    /**
     * @param name an argument name
     * @return whether the argument is present (and not JSON {@code null})
     */
    public boolean has(String name) {
        JsonNode n = json.get(name);
        return n != null && !n.isNull();
    }

    /**
     * @param name a string argument
     * @return its value
     * @throws NoSuchElementException if absent; IllegalArgumentException if not a string
     */
    public String string(String name) {
        JsonNode n = require(name);
        if (!n.isString()) {
            throw new IllegalArgumentException("argument '" + name + "' is not a string");
        }
        return n.stringValue();
    }

    /**
     * @param name a string argument
     * @return its value, or empty when absent
     */
    public Optional<String> optionalString(String name) {
        return has(name) ? Optional.of(string(name)) : Optional.empty();
    }

    /**
     * Reads an integer argument in any of the spellings JSON Schema counts as an integer: {@code 5},
     * and also {@code 5.0}, {@code 1e1}, {@code 1E0}, {@code 10.000} or {@code 0e400}, which a model may
     * send and the schema admits. A spelling with a fraction or exponent is read as the executor parses
     * it, a double, so the handler gets the very number the schema judged. A top-level
     * {@code integer}-typed argument outside {@code long}'s range never reaches a handler: the executor
     * refuses it {@code args_invalid}.
     *
     * @param name an integer argument
     * @return its value
     * @throws NoSuchElementException if absent; IllegalArgumentException if not a number with an
     *     integral value that fits a long
     */
    public long integer(String name) {
        JsonNode n = require(name);
        Long value = exactLong(n);
        if (value == null) {
            throw new IllegalArgumentException("argument '" + name + "' is not an integer that fits a long");
        }
        return value;
    }

    /**
     * @param n any node; never {@code null}
     * @return the long a number node with an integral value holds ({@code 5}, {@code 5.0}, {@code 1e1}),
     *     or {@code null} for anything else: not a number, a fraction, not finite, outside long's range
     */
    static Long exactLong(JsonNode n) {
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? n.longValue() : null;
        }
        if (!n.isFloatingPointNumber()) {
            return null;
        }
        if (n.isBigDecimal()) {
            try {
                return n.decimalValue().longValueExact();
            } catch (ArithmeticException e) {
                return null; // a fraction, or outside long's range
            }
        }
        double d = n.doubleValue();
        // -2^63 is a long; 2^63 is not. Every double at or above 2^52 in magnitude is integral.
        if (!Double.isFinite(d) || d != Math.rint(d) || d < -0x1p63 || d >= 0x1p63) {
            return null;
        }
        return (long) d;
    }

    /**
     * @param name a boolean argument
     * @return its value
     * @throws NoSuchElementException if absent; IllegalArgumentException if not a boolean
     */
    public boolean bool(String name) {
        JsonNode n = require(name);
        if (!n.isBoolean()) {
            throw new IllegalArgumentException("argument '" + name + "' is not a boolean");
        }
        return n.booleanValue();
    }

    /**
     * @param name an array-of-strings argument
     * @return its items, unmodifiable
     * @throws NoSuchElementException if absent; IllegalArgumentException if not an array of strings
     */
    public List<String> strings(String name) {
        JsonNode n = require(name);
        if (!n.isArray()) {
            throw new IllegalArgumentException("argument '" + name + "' is not an array");
        }
        List<String> out = new ArrayList<>(n.size());
        for (JsonNode item : n) {
            if (!item.isString()) {
                throw new IllegalArgumentException("argument '" + name + "' has an item that is not a string");
            }
            out.add(item.stringValue());
        }
        return Collections.unmodifiableList(out);
    }

    /** @return the arguments as a JSON object, path arguments replaced by their resolved paths; never {@code null} */
    public ObjectNode json() {
        return json;
    }

    private JsonNode require(String name) {
        JsonNode n = json.get(name);
        if (n == null || n.isNull()) {
            throw new NoSuchElementException("argument '" + name + "' is absent");
        }
        return n;
    }

    @Override
    public String toString() {
        return "ToolArgs" + json.propertyNames();
    }
}
