package dev.toolyard.cli;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.cli.internal.Table;
import dev.toolyard.spi.Json;
import dev.toolyard.policy.CallSources;
import dev.toolyard.policy.ObservedCall;
import dev.toolyard.policy.Policy;
import dev.toolyard.policy.PolicyChecks;
import dev.toolyard.policy.PolicyExports;
import dev.toolyard.policy.PolicySynthesizer;
import dev.toolyard.policy.Strictness;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code toolyard policy}: learn a least-privilege policy from a store or from execute_tool traces,
 * inspect it, check a run against it (drift, a CI gate), export it, and measure it on held-out runs.
 */
@Command(name = "policy", description = "Learn, check and export least-privilege tool-call policies.",
        subcommands = {PolicyCommand.Synthesize.class, PolicyCommand.Inspect.class, PolicyCommand.Diff.class,
                PolicyCommand.Validate.class, PolicyCommand.Export.class, PolicyCommand.Evaluate.class})
final class PolicyCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Where calls come from: a ToolYard store or OTLP/JSON traces. */
    static final class Source {
        @Option(names = "--store", description = "A SQLite file a ToolYard executor recorded into.")
        Path store;

        @Option(names = "--traces", description = "An OTLP/JSON file or a directory of them (.json, .jsonl) with execute_tool spans.")
        Path traces;

        String kind() {
            return store != null ? "records" : "traces";
        }

        List<ObservedCall> calls() {
            if (store != null) {
                return CallSources.fromRecords(records());
            }
            if (!Files.exists(traces)) {
                throw new Main.UserError("no traces at " + traces);
            }
            try {
                return CallSources.fromTraces(traces);
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw new Main.UserError(e.getMessage());
            }
        }

        List<ToolCallRecord> records() {
            if (store == null) {
                return List.of();
            }
            if (!Files.isRegularFile(store)) {
                throw new Main.UserError("no store at " + store);
            }
            try (JdbcToolCallStore s = JdbcToolCallStore.sqlite(store)) {
                return s.recent(Integer.MAX_VALUE);
            } catch (RuntimeException e) {
                throw new Main.UserError("cannot read " + store + " as a ToolYard store: " + e.getMessage());
            }
        }
    }

    static PolicySynthesizer synthesizer(Strictness s) {
        return PolicySynthesizer.of(s).pathArguments(List.of(BuiltinTools.readFile().spec(),
                BuiltinTools.writeFile().spec(), BuiltinTools.listDir().spec()));
    }

    static Policy readPolicy(Path file) {
        try {
            return Policy.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Main.UserError("cannot read policy " + file + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(file + ": " + e.getMessage());
        }
    }

    static Strictness strictness(String name) {
        try {
            return Strictness.fromWireName(name);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(e.getMessage());
        }
    }

    static void print(PrintWriter out, ObjectNode json) {
        out.println(json.toPrettyString());
    }

    static String percent(int part, int whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    /** The loud warning ToolLeash taught us: with no arguments there is nothing to constrain. */
    static List<String> captureWarnings(List<ObservedCall> calls, Policy policy) {
        List<String> w = new ArrayList<>();
        long admitted = calls.stream().filter(ObservedCall::admitted).count();
        long captured = calls.stream().filter(c -> c.admitted() && c.arguments() != null).count();
        if (admitted > 0 && captured == 0) {
            w.add("WARNING: no call carried its arguments (content capture appears OFF): this policy can only be a"
                    + " tool-name allowlist; any arguments are accepted for every tool it names");
        } else if (policy != null && !policy.uncapturedRules().isEmpty()) {
            w.add("WARNING: arguments were not captured for " + policy.uncapturedRules() + ": for these the policy is a"
                    + " tool-name allowlist only");
        }
        return w;
    }

    @Command(name = "synthesize", description = "Learn a deny-by-default policy from what agents did.")
    static final class Synthesize implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        @Option(names = "--out", required = true, description = "Where to write the policy document.")
        Path out;

        @Option(names = "--strictness", description = "exact, tight, balanced or loose (default: ${DEFAULT-VALUE}).")
        String strictness = "balanced";

        @Option(names = "--half", description = "Learn from one half only, split by invocation as evaluate splits:"
                + " training or held-out (default: every call).")
        String half;

        @Option(names = "--json", description = "Print the result as JSON.")
        boolean json;

        @Override
        public Integer call() {
            Strictness s = strictness(strictness);
            List<ObservedCall> calls = source.calls();
            if (half != null) {
                PolicyChecks.Split split = PolicyChecks.split(calls);
                calls = switch (half) {
                    case "training" -> split.training();
                    case "held-out" -> split.heldOut();
                    default -> throw new Main.UserError("--half must be training or held-out, got '" + half + "'");
                };
            }
            Policy p = synthesizer(s).synthesize(calls, source.kind());
            try {
                Files.writeString(out, p.toJson(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new Main.UserError("cannot write " + out + ": " + e.getMessage());
            }
            int rules = 0;
            for (String a : p.agents()) {
                rules += p.tools(a).size();
            }
            List<String> warnings = captureWarnings(calls, p);
            warnings.forEach(spec.commandLine().getErr()::println);
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("out", out.toString()).put("strictness", s.wireName())
                        .put("agents", p.agents().size()).put("rules", rules).put("calls", calls.size());
                ArrayNode u = j.putArray("uncapturedRules");
                p.uncapturedRules().forEach(u::add);
                ArrayNode ws = j.putArray("warnings");
                warnings.forEach(ws::add);
                print(o, j);
            } else {
                o.println("wrote " + out + ": " + p.agents().size() + " agents, " + rules + " rules, " + s.wireName()
                        + ", from " + calls.size() + " calls (" + source.kind() + ")");
            }
            return 0;
        }
    }

    @Command(name = "inspect", description = "What a store or traces hold (agents, tools, calls, argument capture), or what a policy allows.")
    static final class Inspect implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        InspectTarget target;

        static final class InspectTarget {
            @ArgGroup(exclusive = false)
            Source source;

            @Option(names = "--policy", description = "A policy document.")
            Path policy;
        }

        @Option(names = "--json", description = "Print the result as JSON.")
        boolean json;

        @Override
        public Integer call() {
            PrintWriter o = spec.commandLine().getOut();
            if (target.policy != null) {
                Policy p = readPolicy(target.policy);
                Table t = new Table("agent", "tool");
                ObjectNode j = Json.MAPPER.createObjectNode().put("strictness", p.strictness().wireName());
                ObjectNode agents = j.putObject("agents");
                for (String a : p.agents()) {
                    ArrayNode tools = agents.putArray(a);
                    for (String tool : p.tools(a)) {
                        tools.add(tool);
                        t.row(a.isEmpty() ? "(none)" : a, tool);
                    }
                }
                ArrayNode u = j.putArray("uncapturedRules");
                p.uncapturedRules().forEach(u::add);
                if (json) {
                    print(o, j);
                } else {
                    o.println("policy " + target.policy + " (" + p.strictness().wireName() + ", deny by default)");
                    t.print(o);
                    if (!p.uncapturedRules().isEmpty()) {
                        o.println("name-only rules (arguments not captured): " + p.uncapturedRules());
                    }
                }
                return 0;
            }
            if (target.source == null || (target.source.store == null) == (target.source.traces == null)) {
                throw new Main.UserError("give exactly one of --store, --traces or --policy");
            }
            List<ObservedCall> calls = target.source.calls();
            Map<String, int[]> byTool = new TreeMap<>();
            TreeMap<String, Integer> invocations = new TreeMap<>();
            TreeMap<String, Integer> agents = new TreeMap<>();
            for (ObservedCall c : calls) {
                int[] n = byTool.computeIfAbsent(c.tool(), k -> new int[3]);
                n[0]++;
                n[1] += c.admitted() ? 1 : 0;
                n[2] += c.arguments() != null ? 1 : 0;
                invocations.merge(c.invocationId(), 1, Integer::sum);
                agents.merge(c.agent().isEmpty() ? "(none)" : c.agent(), 1, Integer::sum);
            }
            List<ToolCallRecord> shadow = new ArrayList<>();
            for (ToolCallRecord r : target.source.records()) {
                if (!r.shadowDenial().isEmpty()) {
                    shadow.add(r);
                }
            }
            int captured = 0;
            for (int[] n : byTool.values()) {
                captured += n[2];
            }
            List<String> warnings = captureWarnings(calls, null);
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("calls", calls.size())
                        .put("invocations", invocations.size()).put("argumentsCaptured", captured);
                ObjectNode a = j.putObject("agents");
                agents.forEach(a::put);
                ObjectNode tools = j.putObject("tools");
                byTool.forEach((tool, n) -> tools.putObject(tool).put("calls", n[0]).put("admitted", n[1])
                        .put("argumentsCaptured", n[2]));
                ArrayNode sd = j.putArray("shadowDenials");
                shadow.forEach(r -> sd.addObject().put("callId", r.callId()).put("agent", r.agent())
                        .put("tool", r.toolName()).put("shadowDenial", r.shadowDenial()));
                ArrayNode ws = j.putArray("warnings");
                warnings.forEach(ws::add);
                print(o, j);
            } else {
                o.println(calls.size() + " calls in " + invocations.size() + " invocations by " + agents.size()
                        + " agents " + agents + "; arguments captured on " + percent(captured, calls.size()));
                Table t = new Table("tool", "calls", "admitted", "args captured");
                byTool.forEach((tool, n) -> t.row(tool, "" + n[0], "" + n[1], percent(n[2], n[0])));
                t.print(o);
                if (target.source.store != null) {
                    o.println("shadow would-denies recorded: " + shadow.size());
                    shadow.forEach(r -> o.println("  " + r.invocationId() + " " + r.toolName() + ": " + r.shadowDenial()));
                }
            }
            warnings.forEach(spec.commandLine().getErr()::println);
            return 0;
        }
    }

    @Command(name = "diff", description = "Drift: what a run did that the policy does not cover. Always exits 0.")
    static final class Diff implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--policy", required = true, description = "A policy document.")
        Path policy;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        @Option(names = "--json", description = "Print the result as JSON.")
        boolean json;

        @Override
        public Integer call() {
            Policy p = readPolicy(policy);
            PolicyChecks.Drift d = PolicyChecks.drift(p, source.calls());
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("checked", d.checked()).put("denied", d.denied())
                        .put("uncapturedCalls", d.uncapturedCalls());
                ObjectNode g = j.putObject("groups");
                d.groups().forEach(g::put);
                print(o, j);
            } else {
                o.println(d.denied() + " of " + d.checked() + " admitted calls fall outside the policy ("
                        + percent(d.denied(), d.checked()) + ")" + (d.uncapturedCalls() > 0 ? "; " + d.uncapturedCalls()
                        + " could not be checked (arguments not captured)" : ""));
                Table t = new Table("would be denied", "calls");
                d.groups().forEach((k, v) -> t.row(k, "" + v));
                t.print(o);
            }
            return 0;
        }
    }

    @Command(name = "validate", description = "A CI gate: exit 1 if the policy denies any admitted call of the run, listing each.")
    static final class Validate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--policy", required = true, description = "A policy document.")
        Path policy;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        @Option(names = "--json", description = "Print the result as JSON.")
        boolean json;

        @Override
        public Integer call() {
            Policy p = readPolicy(policy);
            List<ObservedCall> calls = source.calls();
            List<PolicyChecks.Denial> denials = PolicyChecks.validate(p, calls);
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("calls", calls.size()).put("denied", denials.size());
                ArrayNode a = j.putArray("denials");
                denials.forEach(d -> a.addObject().put("index", d.index()).put("agent", d.call().agent())
                        .put("invocationId", d.call().invocationId()).put("tool", d.call().tool())
                        .put("detail", d.decision().detail()));
                print(o, j);
            } else {
                for (PolicyChecks.Denial d : denials) {
                    o.println("DENIED #" + d.index() + " " + d.call().invocationId() + " " + d.call().tool() + ": "
                            + d.decision().detail());
                }
                o.println(denials.isEmpty() ? "ok: the policy allows every admitted call (" + calls.size() + " calls)"
                        : denials.size() + " admitted calls denied");
            }
            return denials.isEmpty() ? 0 : 1;
        }
    }

    @Command(name = "export", description = "The policy as Cedar, Rego or an MCP allowlist; omissions on stderr.")
    static final class Export implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--policy", required = true, description = "A policy document.")
        Path policy;

        @Option(names = "--format", required = true, description = "cedar, rego or mcp-allowlist.")
        String format;

        @Option(names = "--out", description = "Write the export here instead of standard output.")
        Path out;

        @Option(names = "--json", description = "Print {format, text, omissions} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            Policy p = readPolicy(policy);
            PolicyExports.Export e = switch (format) {
                case "cedar" -> PolicyExports.cedar(p);
                case "rego" -> PolicyExports.rego(p);
                case "mcp-allowlist" -> PolicyExports.mcpAllowlist(p);
                default -> throw new Main.UserError("--format must be cedar, rego or mcp-allowlist, got '" + format + "'");
            };
            e.omissions().forEach(spec.commandLine().getErr()::println);
            PrintWriter o = spec.commandLine().getOut();
            if (out != null) {
                try {
                    Files.writeString(out, e.text(), StandardCharsets.UTF_8);
                } catch (IOException ex) {
                    throw new Main.UserError("cannot write " + out + ": " + ex.getMessage());
                }
            }
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("format", format).put("text", e.text());
                ArrayNode a = j.putArray("omissions");
                e.omissions().forEach(a::add);
                print(o, j);
            } else if (out == null) {
                o.print(e.text());
                o.flush();
            } else {
                o.println("wrote " + out + " (" + e.omissions().size() + " rules omitted)");
            }
            return 0;
        }
    }

    @Command(name = "evaluate", description = "Learn from half the invocations, measure on the other half, per strictness.")
    static final class Evaluate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        @Option(names = "--json", description = "Print the result as JSON.")
        boolean json;

        static final List<String> CAVEATS = List.of(
                "held-out calls are the same agents' later invocations: every denial there is a false deny",
                "foreign-allowed is a LOWER BOUND on permissiveness: other agents' calls are a thin sample of what an"
                        + " attacker could send; a low figure is 'not yet shown to be permissive', never 'shown to be tight'",
                "the figures are this workload's only; an under-exercised training run raises false denies, an"
                        + " over-broad one raises permissiveness, and nothing here can tell which you have");

        @Override
        public Integer call() {
            List<ObservedCall> calls = source.calls();
            PolicyChecks.Evaluation e = PolicyChecks.evaluate(calls, synthesizer(Strictness.BALANCED));
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                ObjectNode j = Json.MAPPER.createObjectNode().put("agents", e.agents())
                        .put("trainingInvocations", e.trainingInvocations()).put("heldOutInvocations", e.heldOutInvocations());
                ArrayNode rows = j.putArray("rows");
                for (PolicyChecks.Row r : e.rows()) {
                    rows.addObject().put("strictness", r.strictness().wireName()).put("trainingCalls", r.trainingCalls())
                            .put("trainingDenied", r.trainingDenied()).put("heldOutCalls", r.heldOutCalls())
                            .put("heldOutDenied", r.heldOutDenied()).put("falseDenyRate", r.falseDenyRate())
                            .put("foreignCalls", r.foreignCalls()).put("foreignAllowed", r.foreignAllowed())
                            .put("foreignAllowedRate", r.foreignAllowedRate());
                }
                ArrayNode c = j.putArray("caveats");
                CAVEATS.forEach(c::add);
                print(o, j);
                return 0;
            }
            o.println("split by invocation, per agent: " + e.trainingInvocations() + " training, " + e.heldOutInvocations()
                    + " held out, " + e.agents() + " agents");
            Table t = new Table("strictness", "training denied", "held-out false denies", "foreign allowed (LOWER BOUND)");
            for (PolicyChecks.Row r : e.rows()) {
                t.row(r.strictness().wireName(), r.trainingDenied() + "/" + r.trainingCalls(),
                        r.heldOutDenied() + "/" + r.heldOutCalls() + " = " + percent(r.heldOutDenied(), r.heldOutCalls()),
                        r.foreignAllowed() + "/" + r.foreignCalls() + " = " + percent(r.foreignAllowed(), r.foreignCalls()));
            }
            t.print(o);
            CAVEATS.forEach(c -> o.println("caveat: " + c));
            return 0;
        }
    }
}
