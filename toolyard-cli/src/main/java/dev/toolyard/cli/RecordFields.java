package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.Json;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every field of a {@link ToolCallRecord}, read from the record's own components, so that a field the
 * record gains later is printed without a change here. Stateless; thread-safe.
 */
final class RecordFields {
    private RecordFields() {}

    /**
     * @param r a record
     * @return its fields in declaration order, each as the text a person reads; a {@code null} value
     *     (the reason of an OK call) as {@code null}
     */
    static Map<String, Object> of(ToolCallRecord r) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (RecordComponent c : ToolCallRecord.class.getRecordComponents()) {
            Object value;
            try {
                value = c.getAccessor().invoke(r);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + c.getName() + " of a record", e);
            }
            if (value instanceof Optional<?> present) {
                value = present.orElse(null); // the reason: absent prints as before, as null
            }
            fields.put(c.getName(), value);
        }
        return fields;
    }

    /**
     * @param r a record
     * @return one JSON object with every field: enums by their wire name, instants in ISO-8601, a
     *     duration in ISO-8601 plus {@code <name>Nanos} (null when it does not fit a long)
     */
    static ObjectNode json(ToolCallRecord r) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        for (Map.Entry<String, Object> f : of(r).entrySet()) {
            String name = f.getKey();
            Object v = f.getValue();
            if (v == null) {
                o.putNull(name);
            } else if (v instanceof Boolean b) {
                o.put(name, b);
            } else if (v instanceof Number n) {
                o.put(name, n.longValue());
            } else if (v instanceof Duration d) {
                o.put(name, d.toString());
                Long nanos = nanos(d);
                if (nanos == null) {
                    o.putNull(name + "Nanos");
                } else {
                    o.put(name + "Nanos", nanos);
                }
            } else {
                o.put(name, text(v));
            }
        }
        return o;
    }

    /** @return the value as one would print it: enums by wire name, everything else by its string form */
    static String text(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof ToolStatus s) {
            return s.wireName();
        }
        if (v instanceof Reason x) {
            return x.wireName();
        }
        if (v instanceof IsolationTier t) {
            return t.wireName();
        }
        if (v instanceof Instant i) {
            return i.toString();
        }
        if (v instanceof Duration d) {
            Long nanos = nanos(d);
            return nanos == null ? d.toString() : String.format("%.3f ms", nanos / 1e6);
        }
        return String.valueOf(v);
    }

    private static Long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return null;
        }
    }
}
