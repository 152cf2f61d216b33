package dev.toolyard.contracts;

import dev.toolyard.contracts.internal.ArgType;
import dev.toolyard.contracts.internal.ManifestReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Custom argument types from a project's {@code toolclad.toml}: each {@code [types.NAME]} names a
 * built-in {@code base} and adds constraints ({@code allowed}, {@code pattern}, {@code min}/{@code max},
 * {@code min_float}/{@code max_float}, {@code clamp}, {@code schemes}, {@code allow_whitespace},
 * {@code allow_leading_dash}). A custom type cannot carry {@code scope_check} or {@code block_internal}:
 * a network target uses the built-in type so its policy is visible in the manifest. Given explicitly;
 * never discovered by walking directories. Immutable. Thread-safe.
 */
public final class CustomTypes {
    private static final CustomTypes NONE = new CustomTypes(Map.of());
    private static final Set<String> TYPE_KEYS = Set.of("base", "allowed", "pattern", "min", "max", "min_float",
            "max_float", "clamp", "schemes", "allow_whitespace", "allow_leading_dash", "description");

    private final Map<String, ObjectNode> types;

    private CustomTypes(Map<String, ObjectNode> types) {
        this.types = types;
    }

    /** @return no custom types; never {@code null} */
    public static CustomTypes none() {
        return NONE;
    }

    /**
     * @param file a {@code toolclad.toml}
     * @return its types
     * @throws ContractException naming the file and key when invalid
     * @throws UncheckedIOException if it cannot be read
     */
    public static CustomTypes load(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            return parse(file.getFileName().toString(), Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * @param name the file name used in messages
     * @param text the file's text
     * @return its types
     * @throws ContractException naming the key when invalid
     */
    public static CustomTypes parse(String name, String text) {
        ObjectNode root = ManifestReader.parse(name, text);
        Map<String, ObjectNode> out = new LinkedHashMap<>();
        for (String k : root.propertyNames()) {
            if (!k.equals("types")) {
                throw new ContractException(name + ": key '" + k + "' is not a known key (toolclad.toml has [types.*])");
            }
        }
        JsonNode types = root.get("types");
        if (types == null) {
            return new CustomTypes(Map.of());
        }
        for (Map.Entry<String, JsonNode> e : types.properties()) {
            String where = name + ": [types." + e.getKey() + "]";
            if (!e.getKey().matches("[a-z][a-z0-9_]{0,63}") || ArgType.byName(e.getKey()).isPresent()) {
                throw new ContractException(where + " must be a new lower-case name, not a built-in type");
            }
            if (!e.getValue().isObject()) {
                throw new ContractException(where + " must be a table");
            }
            ObjectNode t = (ObjectNode) e.getValue();
            for (String k : t.propertyNames()) {
                if (k.equals("scope_check") || k.equals("block_internal")) {
                    throw new ContractException(where + " key '" + k + "': a custom type cannot carry scope_check or"
                            + " block_internal; use the built-in network type in the manifest");
                }
                if (!TYPE_KEYS.contains(k)) {
                    throw new ContractException(where + " key '" + k + "' is not a known key");
                }
            }
            JsonNode base = t.get("base");
            if (base == null || !base.isString() || ArgType.byName(base.stringValue()).isEmpty()) {
                throw new ContractException(where + " base must name a built-in type");
            }
            ObjectNode copy = t.deepCopy();
            copy.remove("description");
            out.put(e.getKey(), copy);
        }
        return new CustomTypes(Map.copyOf(out));
    }

    Map<String, ObjectNode> types() {
        return types;
    }

    /** @return the names of the types, unordered */
    public Set<String> names() {
        return types.keySet();
    }

    @Override
    public String toString() {
        return "CustomTypes" + new java.util.TreeSet<>(types.keySet());
    }
}
