package dev.toolyard.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A policy held against observed calls: {@link #validate} (a CI gate: which admitted calls it denies),
 * {@link #drift} (what a newer run does that the policy does not cover) and {@link #evaluate} (how a
 * policy learned from half the invocations does on the other half). Stateless; thread-safe.
 */
public final class PolicyChecks {
    private PolicyChecks() {}

    /**
     * One admitted call a policy denies.
     *
     * @param index the call's position in the list checked, from 0
     * @param call the call
     * @param decision the denial
     */
    public record Denial(int index, ObservedCall call, RuleDecision decision) {}

    /**
     * @param policy the policy; never {@code null}
     * @param calls the calls; never {@code null}; refused calls are skipped (the executor refused them already),
     *     and so are calls whose arguments were not captured when the policy has a rule for their tool
     *     (there is nothing to check; {@link #drift} counts them)
     * @return the admitted calls the policy denies, in order
     */
    public static List<Denial> validate(Policy policy, List<ObservedCall> calls) {
        Objects.requireNonNull(policy, "policy");
        List<Denial> out = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            ObservedCall c = calls.get(i);
            if (!c.admitted()) {
                continue;
            }
            RuleDecision d = policy.decide(c.agent(), c.tool(), c.arguments());
            if (!d.allowed() && c.arguments() == null && d.rule().isPresent()) {
                continue; // arguments not captured: nothing to check them against, counted by drift instead
            }
            if (!d.allowed()) {
                out.add(new Denial(i, c, d));
            }
        }
        return out;
    }

    /**
     * What a run did that the policy does not cover, grouped by what would be denied.
     *
     * @param checked how many admitted calls were checked
     * @param denied how many of them the policy denies
     * @param groups per {@code rule: argument} (or {@code agent/tool: no rule}), how many calls, sorted
     * @param uncapturedCalls admitted calls whose arguments were not captured
     */
    public record Drift(int checked, int denied, Map<String, Integer> groups, int uncapturedCalls) {}

    /**
     * @param policy the policy; never {@code null}
     * @param calls a newer run's calls; never {@code null}
     * @return the drift
     */
    public static Drift drift(Policy policy, List<ObservedCall> calls) {
        List<Denial> denials = validate(policy, calls);
        Map<String, Integer> groups = new TreeMap<>();
        for (Denial d : denials) {
            String key = d.decision().rule().isEmpty()
                    ? Policy.ruleName(d.call().agent(), d.call().tool()) + ": no rule (new tool or agent)"
                    : d.decision().rule().get() + ": " + d.decision().argument().map(a -> "argument '" + a + "'")
                            .orElse("arguments");
            groups.merge(key, 1, Integer::sum);
        }
        int checked = 0;
        int uncaptured = 0;
        for (ObservedCall c : calls) {
            if (c.admitted()) {
                checked++;
                if (c.arguments() == null) {
                    uncaptured++;
                }
            }
        }
        return new Drift(checked, denials.size(), groups, uncaptured);
    }

    /**
     * One strictness preset's row of an evaluation.
     *
     * @param strictness the preset
     * @param trainingCalls admitted calls learned from (those with captured arguments: the ones a policy can be
     *     checked on)
     * @param trainingDenied of them, how many the learned policy denies (must be 0)
     * @param heldOutCalls admitted calls of the held-out invocations
     * @param heldOutDenied of them, how many the learned policy denies: false denies
     * @param foreignCalls held-out calls of other agents, replayed as each agent in turn
     * @param foreignAllowed of them, how many the learned policy allows
     */
    public record Row(Strictness strictness, int trainingCalls, int trainingDenied, int heldOutCalls,
            int heldOutDenied, int foreignCalls, int foreignAllowed) {
        /** @return held-out false-deny rate, 0..1; 0 when there were no held-out calls */
        public double falseDenyRate() {
            return heldOutCalls == 0 ? 0 : (double) heldOutDenied / heldOutCalls;
        }

        /** @return share of foreign calls allowed, 0..1: a lower bound on permissiveness */
        public double foreignAllowedRate() {
            return foreignCalls == 0 ? 0 : (double) foreignAllowed / foreignCalls;
        }
    }

    /**
     * An evaluation: the split and one row per preset.
     *
     * @param trainingInvocations invocations learned from
     * @param heldOutInvocations invocations held out
     * @param agents agents seen
     * @param rows one per preset, from exact to loose
     */
    public record Evaluation(int trainingInvocations, int heldOutInvocations, int agents, List<Row> rows) {}

    /**
     * Splits the calls by invocation, per agent: in the order each agent's invocations first appear, the
     * 1st, 3rd, 5th... are training and the 2nd, 4th... are held out. For each preset it learns a policy
     * from the training half and counts how many held-out calls it denies (false denies, since every
     * held-out call is the same agents doing their ordinary work) and how many of the other agents'
     * held-out calls it allows when they are made in this agent's name (the foreign sample: a lower
     * bound on how permissive the policy is, never proof that it is tight).
     *
     * @param calls the calls; never {@code null}
     * @param synthesizer how path arguments are known (its own strictness is ignored); never {@code null}
     * @return the evaluation
     */
    public static Evaluation evaluate(List<ObservedCall> calls, PolicySynthesizer synthesizer) {
        Split split = split(calls);
        List<ObservedCall> train = split.training();
        List<ObservedCall> held = split.heldOut();
        Set<String> agentNames = new TreeSet<>();
        calls.forEach(c -> agentNames.add(c.agent()));
        List<Row> rows = new ArrayList<>();
        for (Strictness s : Strictness.values()) {
            Policy p = synthesizer.withStrictness(s).synthesize(train, "records");
            int trainingCalls = count(train);
            int heldCalls = count(held);
            int trainingDenied = validate(p, train).size();
            int heldDenied = validate(p, held).size();
            int foreign = 0;
            int foreignAllowed = 0;
            for (String agent : agentNames) {
                for (ObservedCall c : held) {
                    if (c.admitted() && c.arguments() != null && !c.agent().equals(agent)) {
                        foreign++;
                        if (p.decide(agent, c.tool(), c.arguments()).allowed()) {
                            foreignAllowed++;
                        }
                    }
                }
            }
            rows.add(new Row(s, trainingCalls, trainingDenied, heldCalls, heldDenied, foreign, foreignAllowed));
        }
        return new Evaluation(split.trainingInvocations(), split.heldOutInvocations(), agentNames.size(), List.copyOf(rows));
    }

    /** @return admitted calls with captured arguments: the ones a policy can be checked on */
    /**
     * The two halves of a run, split by invocation per agent as {@link #evaluate} splits them.
     *
     * @param training the calls of the training invocations, in order
     * @param heldOut the calls of the held-out invocations, in order
     * @param trainingInvocations how many invocations are training
     * @param heldOutInvocations how many are held out
     */
    public record Split(List<ObservedCall> training, List<ObservedCall> heldOut, int trainingInvocations,
            int heldOutInvocations) {}

    /**
     * In the order each agent's invocations first appear, its 1st, 3rd, 5th... invocations are training
     * and its 2nd, 4th... are held out.
     *
     * @param calls the calls; never {@code null}
     * @return the halves
     */
    public static Split split(List<ObservedCall> calls) {
        Map<String, List<String>> invocationsByAgent = new TreeMap<>();
        Set<String> seen = new java.util.HashSet<>();
        for (ObservedCall c : calls) {
            String key = c.agent() + "\u0000" + c.invocationId();
            if (seen.add(key)) {
                invocationsByAgent.computeIfAbsent(c.agent(), a -> new ArrayList<>()).add(key);
            }
        }
        Set<String> heldOut = new java.util.HashSet<>();
        int training = 0;
        for (List<String> keys : invocationsByAgent.values()) {
            for (int i = 0; i < keys.size(); i++) {
                if (i % 2 == 1) {
                    heldOut.add(keys.get(i));
                } else {
                    training++;
                }
            }
        }
        List<ObservedCall> train = new ArrayList<>();
        List<ObservedCall> held = new ArrayList<>();
        for (ObservedCall c : calls) {
            (heldOut.contains(c.agent() + "\u0000" + c.invocationId()) ? held : train).add(c);
        }
        return new Split(List.copyOf(train), List.copyOf(held), training, heldOut.size());
    }

    private static int count(List<ObservedCall> calls) {
        int n = 0;
        for (ObservedCall c : calls) {
            if (c.admitted() && c.arguments() != null) {
                n++;
            }
        }
        return n;
    }
}
