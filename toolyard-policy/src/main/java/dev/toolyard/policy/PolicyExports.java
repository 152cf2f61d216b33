package dev.toolyard.policy;

import dev.toolyard.policy.internal.Constraint;
import dev.toolyard.policy.internal.Jsons;
import dev.toolyard.policy.internal.PathValues;
import dev.toolyard.policy.internal.Rule;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A policy in other engines' languages: Cedar, Rego, and an MCP tool allowlist. A format that cannot
 * express a constraint gets no rule for that agent and tool at all, so the export is strictly stricter
 * than the policy (deny by default then denies those calls); never a looser rule with the constraint
 * dropped. Every omission is listed in the text's header and in {@link Export#omissions()}.
 *
 * <p>Cedar and Rego see a call as ToolYard's own request shape ({@link #cedarRequest}, {@link #regoInput}):
 * path arguments normalised workspace-relative as the gate makes them, and every argument name listed, so
 * that an argument the policy never saw is refused there too. Stateless; thread-safe.
 */
public final class PolicyExports {
    /** Cedar entity type of agents. */
    public static final String CEDAR_AGENT = "ToolYard::Agent";
    /** Cedar entity type of tools. */
    public static final String CEDAR_TOOL = "ToolYard::Tool";
    /** Cedar entity type of actions; the one action is {@value #CEDAR_CALL}. */
    public static final String CEDAR_ACTION = "ToolYard::Action";
    /** The Cedar action id of a tool call. */
    public static final String CEDAR_CALL = "call_tool";

    private PolicyExports() {}

    /**
     * An export's text and what it had to leave out.
     *
     * @param text the text, ending with a newline
     * @param omissions one line per rule left out, naming the rule, the argument and the family
     */
    public record Export(String text, List<String> omissions) {
        /**
         * Copies.
         *
         * @param text the text
         * @param omissions the rules left out
         */
        public Export {
            Objects.requireNonNull(text, "text");
            omissions = List.copyOf(omissions);
        }
    }

    // --- Cedar ---------------------------------------------------------------------------------

    /**
     * @param policy the policy; never {@code null}
     * @return Cedar policies: one {@code permit} per rule Cedar can express
     */
    public static Export cedar(Policy policy) {
        List<String> omissions = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        policy.rules().forEach((agent, tools) -> tools.forEach((tool, rule) -> {
            String why = cedarGap(rule);
            if (why != null) {
                omissions.add(omission(agent, tool, why, "Cedar"));
                return;
            }
            body.append("permit (\n  principal == ").append(CEDAR_AGENT).append("::").append(cedarString(agent))
                    .append(",\n  action == ").append(CEDAR_ACTION).append("::").append(cedarString(CEDAR_CALL))
                    .append(",\n  resource == ").append(CEDAR_TOOL).append("::").append(cedarString(tool))
                    .append("\n)");
            if (rule.argumentsCaptured()) {
                List<String> conditions = new ArrayList<>();
                if (rule.arguments().isEmpty()) {
                    conditions.add("context.argNames == []");
                } else {
                    StringBuilder names = new StringBuilder("[");
                    for (String arg : rule.arguments().keySet()) {
                        names.append(names.length() > 1 ? ", " : "").append(cedarString(arg));
                    }
                    conditions.add(names.append("].containsAll(context.argNames)").toString());
                }
                rule.arguments().forEach((arg, c) -> {
                    String cond = cedarCondition("context.args[" + cedarString(arg) + "]", c);
                    if (cond != null) {
                        conditions.add("(!(context.args has " + cedarString(arg) + ") || " + cond + ")");
                    }
                });
                body.append("\nwhen {\n  ").append(String.join(" &&\n  ", conditions)).append("\n}");
            }
            body.append(";\n\n");
        }));
        StringBuilder text = new StringBuilder();
        text.append("// ToolYard policy, exported to Cedar from a ").append(policy.strictness().wireName())
                .append(" policy (").append(Policy.FORMAT).append(" v").append(Policy.VERSION).append(").\n");
        text.append("// Deny by default: a call no permit matches is denied. Requests: principal ").append(CEDAR_AGENT)
                .append("::\"<agent>\", action ").append(CEDAR_ACTION).append("::\"").append(CEDAR_CALL)
                .append("\", resource ").append(CEDAR_TOOL).append("::\"<tool>\",\n")
                .append("// context { args: <arguments, paths normalised>, argNames: [<every argument name>] }"
                        + " (see docs/policies.md).\n");
        for (String o : omissions) {
            text.append("// ").append(o).append('\n');
        }
        text.append('\n').append(body);
        return new Export(text.toString().stripTrailing() + "\n", omissions);
    }

    private static String cedarGap(Rule rule) {
        for (Map.Entry<String, Constraint> e : rule.arguments().entrySet()) {
            String arg = e.getKey();
            if (arg.startsWith("__")) {
                return "argument '" + arg + "': a name Cedar's JSON reserves";
            }
            Constraint c = e.getValue();
            if (c instanceof Constraint.Length) {
                return "argument '" + arg + "': a length constraint, which Cedar cannot express";
            }
            if (c instanceof Constraint.CharClass) {
                return "argument '" + arg + "': a character-class pattern, which Cedar cannot express";
            }
            if (c instanceof Constraint.Url) {
                return "argument '" + arg + "': a URL constraint, which Cedar cannot express";
            }
            if (c instanceof Constraint.Range r && (!r.whole() || !isLong(r.min()) || !isLong(r.max()))) {
                return "argument '" + arg + "': a range of fractional numbers (Cedar has whole numbers only)";
            }
            if (c instanceof Constraint.OneOf o) {
                for (String v : o.values()) {
                    if (cedarValue(Jsons.MAPPER.readTree(v)) == null) {
                        return "argument '" + arg + "': an enumerated value (" + (v.length() > 40 ? v.substring(0, 40)
                                + "…" : v) + ") Cedar cannot compare as ToolYard does";
                    }
                }
            }
        }
        return null;
    }

    private static String cedarCondition(String ref, Constraint c) {
        if (c instanceof Constraint.Any) {
            return null;
        }
        if (c instanceof Constraint.OneOf o) {
            StringBuilder b = new StringBuilder("[");
            for (String v : o.values()) {
                b.append(b.length() > 1 ? ", " : "").append(cedarValue(Jsons.MAPPER.readTree(v)));
            }
            return b.append("].contains(").append(ref).append(')').toString();
        }
        if (c instanceof Constraint.Range r) {
            return "(" + ref + " >= " + Jsons.number(r.min()) + " && " + ref + " <= " + Jsons.number(r.max()) + ")";
        }
        if (c instanceof Constraint.PathUnder p) {
            List<String> alts = new ArrayList<>();
            for (String prefix : p.prefixes()) {
                if (prefix.equals(PathValues.WHOLE_WORKSPACE)) {
                    alts.add("(" + ref + " like \"*\" && !(" + ref + " like \"/*\"))");
                } else if (prefix.equals("/")) {
                    alts.add(ref + " like \"/*\"");
                } else {
                    alts.add(ref + " == " + cedarString(prefix));
                    alts.add(ref + " like " + cedarLike(prefix + "/") + "*\"");
                }
            }
            return "(" + String.join(" || ", alts) + ")";
        }
        throw new IllegalStateException("no Cedar form for " + c.kind());
    }

    private static boolean isLong(BigDecimal d) {
        try {
            d.longValueExact();
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }

    /** @return the Cedar literal of a value ToolYard compares the same way, or {@code null} */
    private static String cedarValue(JsonNode v) {
        if (v.isString()) {
            return cedarString(v.stringValue());
        }
        if (v.isBoolean()) {
            return String.valueOf(v.booleanValue());
        }
        if (v.isNumber() && Jsons.isWhole(v) && isLong(v.decimalValue())) {
            return Jsons.number(v.decimalValue());
        }
        return null; // null, fractions, arrays (Cedar sets are unordered) and records
    }

    static String cedarString(String s) {
        StringBuilder b = new StringBuilder("\"");
        s.codePoints().forEach(cp -> {
            if (cp == '"') {
                b.append("\\\"");
            } else if (cp == '\\') {
                b.append("\\\\");
            } else if (cp == '\n') {
                b.append("\\n");
            } else if (cp == '\r') {
                b.append("\\r");
            } else if (cp == '\t') {
                b.append("\\t");
            } else if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) {
                b.append("\\u{").append(Integer.toHexString(cp)).append('}');
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.append('"').toString();
    }

    /** @return an opening quote and the literal as a {@code like} pattern prefix (stars escaped), unclosed */
    private static String cedarLike(String literal) {
        String quoted = cedarString(literal);
        return quoted.substring(0, quoted.length() - 1).replace("*", "\\*");
    }

    /**
     * The request Cedar is asked about for a call, in the JSON form of the Cedar engines' authorization
     * calls: {@code principal}, {@code action}, {@code resource} and {@code context}.
     *
     * @param policy the policy (its rules say which arguments are paths); never {@code null}
     * @param call the call; never {@code null}; its arguments must have been captured
     * @return the request
     */
    public static ObjectNode cedarRequest(Policy policy, ObservedCall call) {
        ObjectNode req = Jsons.NODES.objectNode();
        req.putObject("principal").put("type", CEDAR_AGENT).put("id", call.agent());
        req.putObject("action").put("type", CEDAR_ACTION).put("id", CEDAR_CALL);
        req.putObject("resource").put("type", CEDAR_TOOL).put("id", call.tool());
        ObjectNode context = req.putObject("context");
        ObjectNode args = context.putObject("args");
        ArrayNode names = context.putArray("argNames");
        Rule rule = policy.rules().getOrDefault(call.agent(), Map.of()).get(call.tool());
        JsonNode arguments = call.arguments() == null ? Jsons.NODES.objectNode() : call.arguments();
        for (Map.Entry<String, JsonNode> e : arguments.properties()) {
            names.add(e.getKey());
            if (e.getKey().startsWith("__")) {
                continue; // Cedar's JSON reserves these; argNames still carries the name
            }
            JsonNode v = normalised(rule, e.getKey(), e.getValue());
            String literal = v == null ? null : cedarValue(v);
            if (literal == null) {
                args.putObject(e.getKey()).put("unrepresentable", v == null ? "invalid path" : Jsons.canonical(v));
            } else {
                args.set(e.getKey(), v);
            }
        }
        return req;
    }

    /** @return the value, a path argument in normal form, or {@code null} for a path with none */
    private static JsonNode normalised(Rule rule, String arg, JsonNode v) {
        if (rule != null && rule.arguments().get(arg) instanceof Constraint.PathUnder && v.isString()) {
            String n = PathValues.normalize(v.stringValue());
            return n == null ? null : Jsons.NODES.stringNode(n);
        }
        return v;
    }

    // --- Rego ----------------------------------------------------------------------------------

    /**
     * @param policy the policy; never {@code null}
     * @return a Rego module, package {@code toolyard.policy}, whose {@code allow} is true for what the
     *     expressible rules allow
     */
    public static Export rego(Policy policy) {
        List<String> omissions = new ArrayList<>();
        StringBuilder rules = new StringBuilder();
        int[] index = {0};
        policy.rules().forEach((agent, tools) -> tools.forEach((tool, rule) -> {
            String why = regoGap(rule);
            if (why != null) {
                omissions.add(omission(agent, tool, why, "Rego"));
                return;
            }
            int n = index[0]++;
            rules.append("# rule ").append(Policy.ruleName(agent, tool)).append('\n');
            rules.append("allow if {\n\tinput.agent == ").append(Jsons.quote(agent)).append("\n\tinput.tool == ")
                    .append(Jsons.quote(tool)).append('\n');
            StringBuilder helpers = new StringBuilder();
            if (rule.argumentsCaptured()) {
                StringBuilder names = new StringBuilder();
                for (String arg : rule.arguments().keySet()) {
                    names.append(names.length() > 0 ? ", " : "").append(Jsons.quote(arg));
                }
                rules.append("\tevery name, _ in input.args { name in {").append(names).append("} }\n");
                int a = 0;
                for (Map.Entry<String, Constraint> e : rule.arguments().entrySet()) {
                    if (e.getValue() instanceof Constraint.Any) {
                        continue;
                    }
                    String helper = "r" + n + "_a" + a++;
                    rules.append('\t').append(helper).append('\n');
                    String key = Jsons.quote(e.getKey());
                    helpers.append(helper).append(" if not ").append(key).append(" in object.keys(input.args)\n\n");
                    helpers.append(helper).append(" if {\n\tv := input.args[").append(key).append("]\n")
                            .append(regoCondition(e.getValue())).append("}\n\n");
                }
            }
            rules.append("}\n\n").append(helpers);
        }));
        StringBuilder text = new StringBuilder();
        text.append("# ToolYard policy, exported to Rego from a ").append(policy.strictness().wireName())
                .append(" policy (").append(Policy.FORMAT).append(" v").append(Policy.VERSION).append(").\n");
        text.append("# NOT ENGINE-CHECKED: no Rego engine was reachable from ToolYard's build machines; the text is\n")
                .append("# pinned by golden files only (docs/policies.md). Input: {\"agent\", \"tool\", \"args\"}, paths"
                        + " normalised.\n");
        for (String o : omissions) {
            text.append("# ").append(o).append('\n');
        }
        text.append("\npackage toolyard.policy\n\nimport rego.v1\n\ndefault allow := false\n\n").append(rules);
        text.append("path_under(v, p) if {\n\tp == \".\"\n\tnot startswith(v, \"/\")\n}\n\n")
                .append("path_under(v, p) if {\n\tp == \"/\"\n\tstartswith(v, \"/\")\n}\n\n")
                .append("path_under(v, p) if v == p\n\n")
                .append("path_under(v, p) if {\n\tnot p in {\".\", \"/\"}\n\tstartswith(v, concat(\"\", [p, \"/\"]))\n}\n");
        return new Export(text.toString(), omissions);
    }

    private static String regoGap(Rule rule) {
        for (Map.Entry<String, Constraint> e : rule.arguments().entrySet()) {
            if (e.getValue() instanceof Constraint.Url) {
                return "argument '" + e.getKey() + "': a URL constraint, which this Rego export does not express";
            }
        }
        return null;
    }

    private static String regoCondition(Constraint c) {
        if (c instanceof Constraint.OneOf o) {
            StringBuilder b = new StringBuilder();
            for (String v : o.values()) {
                b.append(b.length() > 0 ? ", " : "").append(v);
            }
            return "\tv in {" + b + "}\n";
        }
        if (c instanceof Constraint.Range r) {
            return "\tis_number(v)\n\tv >= " + Jsons.number(r.min()) + "\n\tv <= " + Jsons.number(r.max()) + "\n"
                    + (r.whole() ? "\tfloor(v) == v\n" : "");
        }
        if (c instanceof Constraint.Length l) {
            return "\tis_string(v)\n\tcount(v) >= " + l.min() + "\n\tcount(v) <= " + l.max() + "\n";
        }
        if (c instanceof Constraint.CharClass p) {
            StringBuilder cls = new StringBuilder();
            if (p.classes().contains("lower")) {
                cls.append("a-z");
            }
            if (p.classes().contains("upper")) {
                cls.append("A-Z");
            }
            if (p.classes().contains("digit")) {
                cls.append("0-9");
            }
            p.chars().codePoints().forEach(cp -> cls.append("\\x{").append(Integer.toHexString(cp)).append('}'));
            String re = cls.length() == 0 ? "^$" : "^[" + cls + "]*$";
            return "\tis_string(v)\n\tregex.match(`" + re + "`, v)\n\tcount(v) >= " + p.min() + "\n\tcount(v) <= "
                    + p.max() + "\n";
        }
        if (c instanceof Constraint.PathUnder p) {
            StringBuilder b = new StringBuilder();
            for (String prefix : p.prefixes()) {
                b.append(b.length() > 0 ? ", " : "").append(Jsons.quote(prefix));
            }
            return "\tis_string(v)\n\tsome p in {" + b + "}\n\tpath_under(v, p)\n";
        }
        throw new IllegalStateException("no Rego form for " + c.kind());
    }

    /**
     * @param policy the policy (its rules say which arguments are paths); never {@code null}
     * @param call the call; never {@code null}
     * @return the Rego input: {@code agent}, {@code tool}, {@code args} (paths normalised; a path with no
     *     normal form becomes {@code null})
     */
    public static ObjectNode regoInput(Policy policy, ObservedCall call) {
        ObjectNode in = Jsons.NODES.objectNode().put("agent", call.agent()).put("tool", call.tool());
        ObjectNode args = in.putObject("args");
        Rule rule = policy.rules().getOrDefault(call.agent(), Map.of()).get(call.tool());
        if (call.arguments() != null) {
            for (Map.Entry<String, JsonNode> e : call.arguments().properties()) {
                JsonNode v = normalised(rule, e.getKey(), e.getValue());
                args.set(e.getKey(), v == null ? Jsons.NODES.nullNode() : v);
            }
        }
        return in;
    }

    // --- MCP allowlist -------------------------------------------------------------------------

    /**
     * An MCP tool allowlist can only list whole tools, so it lists only the tools whose rule constrains no
     * argument (arguments not captured, or every argument {@code any}); a tool with any constraint is
     * omitted, since allowing it whole would be looser than the policy.
     *
     * @param policy the policy; never {@code null}
     * @return a JSON document {@code {"format", "version", "agents": [{"agent", "allowedTools"}], "omitted"}}
     */
    public static Export mcpAllowlist(Policy policy) {
        List<String> omissions = new ArrayList<>();
        ObjectNode doc = Jsons.NODES.objectNode().put("format", "toolyard-mcp-allowlist").put("version", 1);
        ArrayNode agents = doc.putArray("agents");
        policy.rules().forEach((agent, tools) -> {
            ArrayNode allowed = agents.addObject().put("agent", agent).putArray("allowedTools");
            tools.forEach((tool, rule) -> {
                String constrained = null;
                for (Map.Entry<String, Constraint> e : rule.arguments().entrySet()) {
                    if (!(e.getValue() instanceof Constraint.Any)) {
                        constrained = e.getKey();
                        break;
                    }
                }
                if (constrained == null) {
                    allowed.add(tool);
                } else {
                    omissions.add(omission(agent, tool, "argument '" + constrained + "': a " + rule.arguments()
                            .get(constrained).kind() + " constraint, and a tool allowlist cannot constrain arguments",
                            "the MCP allowlist"));
                }
            });
        });
        ArrayNode omitted = doc.putArray("omitted");
        omissions.forEach(omitted::add);
        return new Export(Jsons.pretty(doc), omissions);
    }

    private static String omission(String agent, String tool, String why, String format) {
        return "OMITTED: rule " + Policy.ruleName(agent, tool) + ": " + why + "; the whole rule is left out, so "
                + format + " denies these calls";
    }
}
