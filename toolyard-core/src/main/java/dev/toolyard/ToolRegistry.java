package dev.toolyard;

import dev.toolyard.spi.Json;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools an application registered, in code, at startup. There is no unregister and no loading
 * from configuration, a plugin directory or anything a model emitted. Registering the same spec with
 * the same handler again is a no-op; a different tool under a taken name throws. Lookups are by exact
 * name. Thread-safe; lookups take no lock.
 */
public final class ToolRegistry {
    private final ConcurrentHashMap<String, Tool> tools = new ConcurrentHashMap<>();
    /** Every tool-declared reason of this registry's tools and of the executors built on it, by wire name. */
    private final ConcurrentHashMap<String, Declared> reasons = new ConcurrentHashMap<>();

    /** A tool-declared reason and who declared it first, for the message of a collision. */
    private record Declared(Reason reason, String owner) {}

    /** Creates an empty registry. */
    public ToolRegistry() {}

    /**
     * @param spec the tool's spec; never {@code null}
     * @param handler its handler; never {@code null}
     * @throws DuplicateToolException if a different tool has the name
     */
    public void register(ToolSpec spec, ToolHandler handler) {
        register(new Tool(spec, handler));
    }

    /**
     * @param tool a spec and its handler; never {@code null}
     * @throws DuplicateToolException if a different tool has the name
     * @throws InvalidToolSpecException ({@code $.reasons}) if the tool declares a reason that another tool of
     *     this registry, or an executor built on it, declared with another status; the message names both
     */
    public synchronized void register(Tool tool) {
        Objects.requireNonNull(tool, "tool");
        Tool existing = tools.get(tool.spec().name());
        if (existing != null) {
            if (!(existing.spec().equals(tool.spec()) && existing.handler() == tool.handler())) {
                throw new DuplicateToolException(tool.spec().name());
            }
            return;
        }
        declare("tool '" + tool.spec().name() + "'", tool.spec().reasons());
        tools.put(tool.spec().name(), tool);
    }

    /**
     * Adds reasons of the owner's own to this registry's table, all or none.
     *
     * @param owner who declares them, as a collision's message names it, for example {@code tool 'whois'}
     * @param declared the owner's tool-declared reasons
     * @throws InvalidToolSpecException if one of them is already declared here with another status
     */
    synchronized void declare(String owner, Collection<Reason> declared) {
        for (Reason r : declared) {
            Declared known = reasons.get(r.wireName());
            if (known != null && known.reason().status() != r.status()) {
                throw new InvalidToolSpecException("$.reasons", owner + " declares reason '" + r.wireName()
                        + "' with status " + r.status() + ", but " + known.owner() + " declared it with "
                        + known.reason().status() + "; one wire name has one meaning in a registry");
            }
        }
        for (Reason r : declared) {
            reasons.putIfAbsent(r.wireName(), new Declared(r, owner));
        }
    }

    /**
     * @param reason a reason a handler or gate ended a call with
     * @return who declared its wire name here with another status, or empty when it does not collide
     */
    Optional<String> collision(Reason reason) {
        if (reason.isCore()) {
            return Optional.empty();
        }
        Declared known = reasons.get(reason.wireName());
        return known == null || known.reason().status() == reason.status() ? Optional.empty()
                : Optional.of(known.owner() + " declared '" + reason.wireName() + "' with status "
                        + known.reason().status());
    }

    /**
     * @param name the exact name; may be anything a model sent, {@code null} included
     * @return the tool, or empty
     */
    public Optional<Tool> lookup(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(tools.get(name));
    }

    Tool get(String name) {
        return tools.get(name);
    }

    /** @return the registered names, sorted; unmodifiable */
    public List<String> names() {
        return List.copyOf(new TreeSet<>(tools.keySet()));
    }

    /**
     * The specs a policy admits, sorted by name: risk at most {@code maxRisk}, and egress
     * {@link EgressClass#NONE} unless {@code allowEgress}.
     *
     * @param maxRisk the risk ceiling; never {@code null}
     * @param allowEgress whether tools that reach the network are admitted
     * @return the specs; unmodifiable
     */
    public List<ToolSpec> listForPolicy(RiskClass maxRisk, boolean allowEgress) {
        Objects.requireNonNull(maxRisk, "maxRisk");
        List<ToolSpec> out = new ArrayList<>();
        for (Tool t : tools.values()) {
            ToolSpec s = t.spec();
            if (maxRisk.permits(s.riskClass()) && (allowEgress || s.egress() == EgressClass.NONE)) {
                out.add(s);
            }
        }
        out.sort(Comparator.comparing(ToolSpec::name));
        return List.copyOf(out);
    }

    /**
     * Provider-neutral wire definitions: a compact JSON array of {@code {"name", "description",
     * "parameters"}} objects, sorted by name. Byte-stable for a given set of specs.
     *
     * @param names registered tool names; never {@code null}
     * @return the JSON text; never {@code null}
     * @throws IllegalArgumentException if a name is not registered
     */
    public String wireDefinitions(Collection<String> names) {
        Objects.requireNonNull(names, "names");
        ArrayNode array = Json.MAPPER.createArrayNode();
        for (String name : new TreeSet<>(names)) {
            Tool t = tools.get(name);
            if (t == null) {
                throw new IllegalArgumentException("names contains '" + name + "', which is not registered");
            }
            ObjectNode def = array.addObject();
            def.put("name", t.spec().name());
            def.put("description", t.spec().description());
            def.set("parameters", t.spec().schemaNode());
        }
        return Json.MAPPER.writeValueAsString(array);
    }
}
