package dev.toolyard.policy;

import dev.toolyard.PathAccess;
import dev.toolyard.ToolSpec;
import dev.toolyard.policy.internal.Constraint;
import dev.toolyard.policy.internal.Inference;
import dev.toolyard.policy.internal.Jsons;
import dev.toolyard.policy.internal.Rule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Learns a {@link Policy} from observed calls: for each agent, a rule for each tool it was seen calling,
 * with each argument's constraint inferred from the values seen at the chosen {@link Strictness}. Only
 * calls the executor admitted are learned from (a refused call is not behaviour to allow). A tool none
 * of whose calls had their arguments captured gets a rule that allows any arguments, and
 * {@link Policy#uncapturedRules()} lists it: such a policy is a tool-name allowlist only.
 *
 * <p>Which string arguments are paths comes from the tools' specs ({@link #pathArguments}); with none
 * given, an argument named {@code path}, {@code file}, {@code dir} or ending in {@code _path},
 * {@code _file} or {@code _dir} is taken as one. Deterministic: the same calls in any order give the
 * same policy, byte for byte. Immutable; thread-safe.
 */
public final class PolicySynthesizer {
    private final Strictness strictness;
    private final Map<String, Set<String>> pathArgs;

    private PolicySynthesizer(Strictness strictness, Map<String, Set<String>> pathArgs) {
        this.strictness = strictness;
        this.pathArgs = pathArgs;
    }

    /**
     * @param strictness how far to generalise; never {@code null}
     * @return a synthesizer with no declared path arguments (the name rule applies)
     */
    public static PolicySynthesizer of(Strictness strictness) {
        return new PolicySynthesizer(Objects.requireNonNull(strictness, "strictness"), Map.of());
    }

    /**
     * @param specs the specs of the tools the calls used; their {@code pathArgs} name the path arguments
     * @return a synthesizer that takes path arguments from these specs (the name rule still applies to
     *     tools not among them)
     */
    public PolicySynthesizer pathArguments(List<ToolSpec> specs) {
        Map<String, Set<String>> m = new HashMap<>(pathArgs);
        for (ToolSpec s : specs) {
            Set<String> names = new TreeSet<>();
            for (Map.Entry<String, PathAccess> e : s.pathArgs().entrySet()) {
                names.add(e.getKey());
            }
            m.put(s.name(), Set.copyOf(names));
        }
        return new PolicySynthesizer(strictness, Map.copyOf(m));
    }

    /**
     * @param strictness another preset; never {@code null}
     * @return this synthesizer with that preset
     */
    public PolicySynthesizer withStrictness(Strictness strictness) {
        return new PolicySynthesizer(Objects.requireNonNull(strictness, "strictness"), pathArgs);
    }

    /** @return the preset; never {@code null} */
    public Strictness strictness() {
        return strictness;
    }

    /**
     * @param calls the observed calls; never {@code null}
     * @param sourceKind what they were read from ({@code records}, {@code traces}), kept in the document
     * @return the policy
     */
    public Policy synthesize(List<ObservedCall> calls, String sourceKind) {
        Objects.requireNonNull(calls, "calls");
        Map<String, Map<String, List<ObservedCall>>> byAgentTool = new TreeMap<>();
        int admitted = 0;
        int captured = 0;
        for (ObservedCall c : calls) {
            if (!c.admitted()) {
                continue;
            }
            admitted++;
            if (c.arguments() != null) {
                captured++;
            }
            byAgentTool.computeIfAbsent(c.agent(), a -> new TreeMap<>()).computeIfAbsent(c.tool(), t -> new ArrayList<>())
                    .add(c);
        }
        Map<String, Map<String, Rule>> agents = new TreeMap<>();
        byAgentTool.forEach((agent, tools) -> {
            Map<String, Rule> rules = new TreeMap<>();
            tools.forEach((tool, seen) -> rules.put(tool, rule(tool, seen)));
            agents.put(agent, rules);
        });
        ObjectNode learned = Jsons.NODES.objectNode().put("kind", sourceKind).put("calls", calls.size())
                .put("admittedCalls", admitted).put("admittedCallsWithArguments", captured);
        return new Policy(strictness, agents, learned);
    }

    private Rule rule(String tool, List<ObservedCall> seen) {
        Map<String, List<JsonNode>> values = new TreeMap<>();
        boolean anyCaptured = false;
        for (ObservedCall c : seen) {
            if (c.arguments() == null) {
                continue;
            }
            anyCaptured = true;
            for (Map.Entry<String, JsonNode> e : c.arguments().properties()) {
                values.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
            }
        }
        if (!anyCaptured) {
            return new Rule(false, seen.size(), Map.of());
        }
        Map<String, Constraint> args = new TreeMap<>();
        values.forEach((arg, vs) -> args.put(arg, Inference.infer(vs, strictness, isPath(tool, arg))));
        return new Rule(true, seen.size(), args);
    }

    private boolean isPath(String tool, String arg) {
        Set<String> declared = pathArgs.get(tool);
        if (declared != null) {
            return declared.contains(arg);
        }
        String a = arg.toLowerCase(Locale.ROOT);
        return a.equals("path") || a.equals("file") || a.equals("dir") || a.endsWith("_path") || a.endsWith("_file")
                || a.endsWith("_dir");
    }
}
