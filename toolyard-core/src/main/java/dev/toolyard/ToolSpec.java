package dev.toolyard;

import com.networknt.schema.Schema;
import dev.toolyard.internal.ArgumentsTree;
import dev.toolyard.internal.CompiledSchema;
import dev.toolyard.spi.Json;
import dev.toolyard.internal.SchemaRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a tool is: its name, description, argument schema (JSON Schema 2020-12), risk and egress
 * classes, path arguments, and whether it requires isolation or has its arguments redacted in
 * records. Every rule is checked by {@link Builder#build()}:
 *
 * <ul>
 *   <li>the name matches {@code ^[a-z][a-z0-9_]{1,63}$};
 *   <li>the schema is an object schema, closed ({@code "additionalProperties": false}) at every object
 *       subschema that has {@code properties};
 *   <li>the {@code $ref} family and the dialect keywords ({@code $ref}, {@code $dynamicRef}, {@code $id},
 *       {@code $anchor}, {@code $dynamicAnchor}, {@code $defs}, {@code definitions},
 *       {@code $recursiveRef}, {@code $recursiveAnchor}, {@code $schema}, {@code $vocabulary}) are
 *       refused;
 *   <li>{@code format} is accepted but never asserted;
 *   <li>a path argument names a top-level property typed {@code string}.
 * </ul>
 *
 * Immutable. Thread-safe. Equal specs have equal wire definitions.
 */
public final class ToolSpec {
    private static final Pattern NAME = Pattern.compile("^[a-z][a-z0-9_]{1,63}$");
    private static final int MAX_DESCRIPTION = 4096;

    private final String name;
    private final String description;
    private final ObjectNode argsSchema;
    private final String argsSchemaJson;
    private final RiskClass riskClass;
    private final EgressClass egress;
    private final Map<String, PathAccess> pathArgs;
    private final boolean requiresIsolation;
    private final boolean redactArgs;
    private final boolean cooperative;
    private final boolean requiresApproval;
    private final Set<Reason> reasons;
    private final Schema validator;
    private final CompiledSchema compiled;
    private final List<String> integerArgs;
    private final String[] argumentNames;

    private ToolSpec(Builder b, ObjectNode schema, Schema validator) {
        this.name = b.name;
        this.description = b.description;
        this.argsSchema = schema;
        this.argsSchemaJson = Json.MAPPER.writeValueAsString(schema);
        this.riskClass = b.riskClass;
        this.egress = b.egress;
        this.pathArgs = Collections.unmodifiableMap(new LinkedHashMap<>(b.pathArgs));
        this.requiresIsolation = b.requiresIsolation;
        this.redactArgs = b.redactArgs;
        this.cooperative = b.cooperative;
        this.requiresApproval = b.requiresApproval;
        this.reasons = Collections.unmodifiableSet(new LinkedHashSet<>(b.reasons));
        this.validator = validator;
        this.compiled = CompiledSchema.compile(schema).orElse(null);
        this.integerArgs = integerArgs(schema);
        JsonNode properties = schema.get("properties");
        this.argumentNames = ArgumentsTree.plainNames(properties instanceof ObjectNode props
                ? props.propertyNames() : List.of());
    }

    /** The top-level properties whose {@code type} is, or names, {@code integer}: what {@link ToolArgs#integer} reads. */
    private static List<String> integerArgs(ObjectNode schema) {
        List<String> names = new ArrayList<>();
        JsonNode properties = schema.get("properties");
        if (properties instanceof ObjectNode props) {
            for (Map.Entry<String, JsonNode> p : props.properties()) {
                JsonNode type = p.getValue().get("type");
                boolean integer = type != null && (type.isString() && "integer".equals(type.stringValue())
                        || type.isArray() && type.valueStream().anyMatch(t -> "integer".equals(t.asString(""))));
                if (integer) {
                    names.add(p.getKey());
                }
            }
        }
        return List.copyOf(names);
    }

    /**
     * @param name the tool's name; checked at {@link Builder#build()}
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** @return the name; never {@code null} */
    public String name() {
        return name;
    }

    /** @return the description the model reads; never {@code null} */
    public String description() {
        return description;
    }

    /** @return the argument schema as compact JSON, keys in the order written; never {@code null} */
    public String argsSchema() {
        return argsSchemaJson;
    }

    /** @return a copy of the argument schema; never {@code null} */
    public ObjectNode argsSchemaNode() {
        return argsSchema.deepCopy();
    }

    /** @return the risk class; never {@code null} */
    public RiskClass riskClass() {
        return riskClass;
    }

    /** @return the egress class; never {@code null} */
    public EgressClass egress() {
        return egress;
    }

    /**
     * @return the tool's own reasons (made with {@link Reason#declare}) its handler may end a call with, in
     *     declaration order; empty by default; unmodifiable. Not part of the wire definition.
     */
    public Set<Reason> reasons() {
        return reasons;
    }

    /** @return the path arguments and how each is contained, in declaration order; unmodifiable */
    public Map<String, PathAccess> pathArgs() {
        return pathArgs;
    }

    /** @return whether the tool runs a subprocess and must be refused on a host with no isolation tier */
    public boolean requiresIsolation() {
        return requiresIsolation;
    }

    /** @return whether records keep only the SHA-256 of the arguments, never the plaintext */
    public boolean redactArgs() {
        return redactArgs;
    }

    /**
     * @return whether the handler is cooperative: it blocks only in interruptible calls and honours the
     *     deadline, so by default the executor runs it on the caller's thread (see {@link HandlerMode#BY_TOOL})
     */
    public boolean cooperative() {
        return cooperative;
    }

    /**
     * @return whether every call of this tool must be approved by the executor's
     *     {@link dev.toolyard.spi.ApprovalGate} before it runs; not part of the wire definition
     */
    public boolean requiresApproval() {
        return requiresApproval;
    }

    /** @return the one-walk validator for the closed subset, or {@code null} when networknt must judge */
    CompiledSchema compiledSchema() {
        return compiled;
    }

    /** @return the top-level properties typed {@code integer}, which must fit a long to reach a handler */
    List<String> integerArgs() {
        return integerArgs;
    }

    /**
     * @return the schema's own top-level property names, for {@link ArgumentsTree#read(String, String[])} to
     *     key the arguments by (no new {@code String} per name, and the schema's lookups then hit by identity);
     *     not to be modified
     */
    String[] argumentNames() {
        return argumentNames;
    }

    Schema validator() {
        return validator;
    }

    ObjectNode schemaNode() {
        return argsSchema;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolSpec s && name.equals(s.name) && description.equals(s.description)
                && argsSchemaJson.equals(s.argsSchemaJson) && riskClass == s.riskClass && egress == s.egress
                && pathArgs.equals(s.pathArgs) && requiresIsolation == s.requiresIsolation
                && redactArgs == s.redactArgs && cooperative == s.cooperative
                && requiresApproval == s.requiresApproval && reasons.equals(s.reasons);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, description, argsSchemaJson, riskClass, egress, pathArgs, requiresIsolation, redactArgs,
                cooperative, requiresApproval);
    }

    @Override
    public String toString() {
        return "ToolSpec[" + name + ", " + riskClass + ", egress " + egress + "]";
    }

    /**
     * Builds a {@link ToolSpec}. Description, schema, risk class and egress class are required: a
     * security setting has no silent default. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private String description;
        private String schemaText;
        private RiskClass riskClass;
        private EgressClass egress;
        private final Map<String, PathAccess> pathArgs = new LinkedHashMap<>();
        private boolean requiresIsolation;
        private boolean redactArgs;
        private boolean cooperative;
        private boolean requiresApproval;
        private final Set<Reason> reasons = new LinkedHashSet<>();

        private Builder(String name) {
            this.name = name;
        }

        /**
         * @param description what the tool does, for the model; 1–4,096 characters
         * @return this builder
         */
        public Builder description(String description) {
            this.description = description;
            return this;
        }

        /**
         * @param schemaJson the argument schema as JSON text
         * @return this builder
         */
        public Builder argsSchema(String schemaJson) {
            this.schemaText = schemaJson;
            return this;
        }

        /**
         * @param riskClass the risk class
         * @return this builder
         */
        public Builder riskClass(RiskClass riskClass) {
            this.riskClass = riskClass;
            return this;
        }

        /**
         * @param egress the egress class
         * @return this builder
         */
        public Builder egress(EgressClass egress) {
            this.egress = egress;
            return this;
        }

        /**
         * Declares a path argument: the executor resolves and contains it before the handler runs.
         *
         * @param property a top-level string property of the schema
         * @param access how to contain it
         * @return this builder
         */
        public Builder pathArg(String property, PathAccess access) {
            Objects.requireNonNull(property, "property");
            Objects.requireNonNull(access, "access");
            pathArgs.put(property, access);
            return this;
        }

        /**
         * @param requiresIsolation whether the tool runs a subprocess; default {@code false}
         * @return this builder
         */
        public Builder requiresIsolation(boolean requiresIsolation) {
            this.requiresIsolation = requiresIsolation;
            return this;
        }

        /**
         * @param redactArgs whether records keep only the digest of the arguments; default {@code false}
         * @return this builder
         */
        public Builder redactArgs(boolean redactArgs) {
            this.redactArgs = redactArgs;
            return this;
        }

        /**
         * Declares the handler cooperative: it blocks only in interruptible calls (or for bounded time) and
         * honours the context's deadline. By default ({@link HandlerMode#BY_TOOL}) the executor then runs it
         * on the caller's thread, which saves the handoff to a worker; if it overruns anyway it still ends
         * {@code TIMEOUT}, but it holds the caller until it returns. Not part of the wire definition.
         *
         * @param cooperative whether the handler is cooperative; default {@code false} (handed off)
         * @return this builder
         */
        public Builder cooperative(boolean cooperative) {
            this.cooperative = cooperative;
            return this;
        }

        /**
         * Declares that every call of this tool needs approval: after every other check passed, the
         * executor asks its {@link dev.toolyard.spi.ApprovalGate} and runs the call only on an approval
         * (an executor with such a tool on its allowlist and no gate cannot be built). Not part of the wire
         * definition.
         *
         * @param requiresApproval whether calls need approval; default {@code false}
         * @return this builder
         */
        public Builder requiresApproval(boolean requiresApproval) {
            this.requiresApproval = requiresApproval;
            return this;
        }

        /**
         * Declares reasons of the tool's own (made with {@link Reason#declare}) that its handler may end a
         * call with. A declared reason is a value, not an entry in a process-wide table: the
         * {@link ToolRegistry} the tool joins checks that no other tool, and no stage of an executor built
         * on it, gives the same wire name another status, and refuses the registration naming both. A core
         * reason needs no declaring and is refused here. Repeatable; adds to the reasons already given.
         *
         * @param reasons the tool's own reasons; never {@code null}
         * @return this builder
         */
        public Builder reasons(Reason... reasons) {
            for (Reason r : reasons) {
                this.reasons.add(Objects.requireNonNull(r, "reason"));
            }
            return this;
        }

        /**
         * @return the spec
         * @throws InvalidToolSpecException naming the JSON path of the first rule broken
         */
        public ToolSpec build() {
            Map<String, Reason> own = new LinkedHashMap<>();
            for (Reason r : reasons) {
                if (r.isCore()) {
                    throw new InvalidToolSpecException("$.reasons", "'" + r.wireName()
                            + "' is a core reason; only a tool's own reasons are declared");
                }
                Reason other = own.putIfAbsent(r.wireName(), r);
                if (other != null && other.status() != r.status()) {
                    throw new InvalidToolSpecException("$.reasons", "'" + r.wireName() + "' is declared with "
                            + other.status() + " and with " + r.status() + "; one wire name has one status");
                }
            }
            if (name == null || !NAME.matcher(name).matches()) {
                throw new InvalidToolSpecException("$.name", "must match ^[a-z][a-z0-9_]{1,63}$, got "
                        + (name == null ? "null" : "'" + name + "'"));
            }
            if (description == null || description.isBlank() || description.length() > MAX_DESCRIPTION) {
                throw new InvalidToolSpecException("$.description", "must be 1-" + MAX_DESCRIPTION
                        + " characters and not blank");
            }
            if (riskClass == null) {
                throw new InvalidToolSpecException("$.riskClass", "is required");
            }
            if (egress == null) {
                throw new InvalidToolSpecException("$.egress", "is required");
            }
            if (schemaText == null) {
                throw new InvalidToolSpecException("$.parameters", "the argument schema is required");
            }
            JsonNode parsed;
            try {
                parsed = Json.MAPPER.readTree(schemaText);
            } catch (JacksonException e) {
                throw new InvalidToolSpecException("$.parameters", "not valid JSON: " + e.getOriginalMessage());
            }
            try {
                Schema validator = SchemaRules.check(parsed);
                ObjectNode schema = (ObjectNode) parsed;
                for (String property : pathArgs.keySet()) {
                    SchemaRules.checkPathArg(schema, property);
                }
                return new ToolSpec(this, schema, validator);
            } catch (SchemaRules.Violation v) {
                throw new InvalidToolSpecException(v.path(), v.getMessage());
            }
        }
    }
}
