package dev.toolyard.policy;

import dev.toolyard.policy.internal.Constraint;
import dev.toolyard.policy.internal.Jsons;
import dev.toolyard.policy.internal.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A least-privilege tool-call policy: deny by default, one rule set per agent, one rule per tool, one
 * constraint per argument. Its document form is versioned JSON ({@value #FORMAT}, version
 * {@value #VERSION}) whose text is the same bytes for the same policy, so it can be reviewed, diffed and
 * pinned by golden files. {@link #decide} is deterministic, takes no lock and compiles nothing per call.
 * Immutable. Thread-safe.
 */
public final class Policy {
    /** The document's {@code format} field. */
    public static final String FORMAT = "toolyard-policy";
    /** The document version this code reads and writes. */
    public static final int VERSION = 1;

    private final Strictness strictness;
    private final Map<String, Map<String, Rule>> agents;
    private final ObjectNode learnedFrom;

    Policy(Strictness strictness, Map<String, Map<String, Rule>> agents, ObjectNode learnedFrom) {
        this.strictness = strictness;
        Map<String, Map<String, Rule>> copy = new TreeMap<>();
        agents.forEach((agent, tools) -> copy.put(agent, Collections.unmodifiableMap(new TreeMap<>(tools))));
        this.agents = Collections.unmodifiableMap(copy);
        this.learnedFrom = learnedFrom.deepCopy();
    }

    /** @return the preset it was synthesised with; never {@code null} */
    public Strictness strictness() {
        return strictness;
    }

    /** @return the agents that have a rule set ({@code ""} is calls whose context named no agent), sorted */
    public Set<String> agents() {
        return agents.keySet();
    }

    /**
     * @param agent an agent name, {@code ""} for none; never {@code null}
     * @return the tools that agent may call, sorted; empty when it has no rule set
     */
    public Set<String> tools(String agent) {
        return agents.getOrDefault(agent, Map.of()).keySet();
    }

    /**
     * @return the tools whose rule allows any arguments because no call they were learned from had its
     *     arguments captured, as {@code agent/tool}; a policy with such rules is partly a tool-name
     *     allowlist only
     */
    public List<String> uncapturedRules() {
        List<String> out = new ArrayList<>();
        agents.forEach((agent, tools) -> tools.forEach((tool, rule) -> {
            if (!rule.argumentsCaptured()) {
                out.add(ruleName(agent, tool));
            }
        }));
        return out;
    }

    Map<String, Map<String, Rule>> rules() {
        return agents;
    }

    ObjectNode learnedFrom() {
        return learnedFrom;
    }

    /**
     * Decides one call. An agent with no rule set, a tool with no rule, an argument with no constraint
     * and a value outside its constraint are each refused, and the detail says which without naming any
     * allowed value. Arguments that were not captured ({@code null}) are refused unless the rule allows
     * any arguments.
     *
     * @param agent the agent name, {@code ""} for none; never {@code null}
     * @param tool the tool name; never {@code null}
     * @param arguments the arguments object, path arguments workspace-relative; {@code null} if unknown
     * @return the decision; never {@code null}
     */
    public RuleDecision decide(String agent, String tool, JsonNode arguments) {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(tool, "tool");
        Map<String, Rule> tools = agents.get(agent);
        Rule rule = tools == null ? null : tools.get(tool);
        if (rule == null) {
            return new RuleDecision(false, Optional.empty(), Optional.empty(), "no policy rule allows tool '"
                    + clip(tool) + "' for agent '" + agentLabel(agent) + "'");
        }
        String name = ruleName(agent, tool);
        if (!rule.argumentsCaptured()) {
            return new RuleDecision(true, Optional.of(name), Optional.empty(), "");
        }
        if (arguments == null || !arguments.isObject()) {
            return new RuleDecision(false, Optional.of(name), Optional.empty(), "policy rule '" + name
                    + "': the arguments are not available to check");
        }
        for (Map.Entry<String, JsonNode> e : arguments.properties()) {
            Constraint c = rule.arguments().get(e.getKey());
            String why = c == null ? "was never seen for this tool" : c.check(e.getValue());
            if (why != null) {
                return new RuleDecision(false, Optional.of(name), Optional.of(e.getKey()), "policy rule '" + name
                        + "': argument '" + clip(e.getKey()) + "' " + why);
            }
        }
        return new RuleDecision(true, Optional.of(name), Optional.empty(), "");
    }

    static String ruleName(String agent, String tool) {
        return agentLabel(agent) + "/" + tool;
    }

    static String agentLabel(String agent) {
        return agent.isEmpty() ? "(none)" : agent;
    }

    private static String clip(String s) {
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (int i = 0; i < s.length() && n < 64; i++, n++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? '?' : c);
        }
        return n < s.length() ? b.append('…').toString() : b.toString();
    }

    /** @return the policy document, pretty-printed, {@code \n} line ends, the same bytes for the same policy */
    public String toJson() {
        ObjectNode doc = Jsons.NODES.objectNode();
        doc.put("format", FORMAT);
        doc.put("version", VERSION);
        doc.put("strictness", strictness.wireName());
        doc.put("default", "deny");
        doc.set("learnedFrom", learnedFrom);
        ArrayNode list = doc.putArray("agents");
        agents.forEach((agent, tools) -> {
            ObjectNode a = list.addObject().put("agent", agent);
            ArrayNode ts = a.putArray("tools");
            tools.forEach((tool, rule) -> {
                ObjectNode t = ts.addObject().put("tool", tool).put("observedCalls", rule.observedCalls())
                        .put("argumentsCaptured", rule.argumentsCaptured());
                if (rule.argumentsCaptured()) {
                    ObjectNode args = t.putObject("arguments");
                    rule.arguments().forEach((arg, c) -> args.set(arg, c.toJson()));
                }
            });
        });
        return Jsons.pretty(doc);
    }

    /**
     * @param json a policy document
     * @return the policy
     * @throws IllegalArgumentException naming the place if the text is not a policy document of this
     *     version
     */
    public static Policy parse(String json) {
        Objects.requireNonNull(json, "json");
        JsonNode doc;
        try {
            doc = Jsons.MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not a policy document: not valid JSON: " + e.getOriginalMessage());
        }
        if (doc == null || !doc.isObject() || !FORMAT.equals(doc.path("format").asString(null))) {
            throw new IllegalArgumentException("not a policy document: \"format\" must be \"" + FORMAT + "\"");
        }
        if (!doc.path("version").isIntegralNumber() || doc.get("version").intValue() != VERSION) {
            throw new IllegalArgumentException("policy document version " + doc.path("version") + " is not "
                    + VERSION + ", the version this library reads");
        }
        if (!"deny".equals(doc.path("default").asString(null))) {
            throw new IllegalArgumentException("policy document: \"default\" must be \"deny\"");
        }
        Strictness strictness = Strictness.fromWireName(doc.path("strictness").asString(""));
        Map<String, Map<String, Rule>> agents = new TreeMap<>();
        JsonNode list = doc.get("agents");
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("policy document: \"agents\" must be an array");
        }
        for (JsonNode a : list.values()) {
            String agent = a.path("agent").asString(null);
            if (agent == null || agents.containsKey(agent)) {
                throw new IllegalArgumentException("policy document: each agent entry needs a distinct string \"agent\"");
            }
            Map<String, Rule> tools = new TreeMap<>();
            for (JsonNode t : a.path("tools").values()) {
                String tool = t.path("tool").asString(null);
                String where = "agents[" + agentLabel(agent) + "].tools[" + tool + "]";
                if (tool == null || tools.containsKey(tool)) {
                    throw new IllegalArgumentException("policy document: " + where + " needs a distinct string \"tool\"");
                }
                boolean captured = t.path("argumentsCaptured").asBoolean(true);
                Map<String, Constraint> args = new TreeMap<>();
                if (captured) {
                    JsonNode as = t.get("arguments");
                    if (as == null || !as.isObject()) {
                        throw new IllegalArgumentException("policy document: " + where + ".arguments must be an object");
                    }
                    for (Map.Entry<String, JsonNode> e : as.properties()) {
                        args.put(e.getKey(), Constraint.fromJson(e.getValue(), where + ".arguments." + e.getKey()));
                    }
                }
                tools.put(tool, new Rule(captured, t.path("observedCalls").asInt(0), args));
            }
            agents.put(agent, tools);
        }
        JsonNode learned = doc.get("learnedFrom");
        return new Policy(strictness, agents, learned != null && learned.isObject() ? (ObjectNode) learned
                : Jsons.NODES.objectNode());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Policy p && p.toJson().equals(toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return "Policy[" + strictness.wireName() + ", agents=" + agents.keySet() + "]";
    }
}
