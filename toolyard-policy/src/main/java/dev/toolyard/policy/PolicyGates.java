package dev.toolyard.policy;

import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.PolicyQuery;
import dev.toolyard.spi.PolicyDecision;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link Policy} as the executor's {@link PolicyGate}, the stage after containment:
 *
 * <pre>{@code
 * ToolExecutor.builder(registry, sandbox).allowlist(...).store(store)
 *         .policyGate(PolicyGates.shadow(policy))   // first: run, and record what would be denied
 *         .build();
 * }</pre>
 *
 * In {@link Mode#ENFORCE} a call the policy denies is refused with {@link #POLICY_DENIED}, the detail
 * naming the rule and argument; in {@link Mode#SHADOW} it runs and its record's {@code shadowDenial}
 * says what would have been refused ({@code ToolCallRecord.shadowDenialOptional()}). The gate checks path
 * arguments as containment resolved them (symbolic links and {@code ..} resolved), made relative to the
 * workspace's write root; a path under a read root is checked in its absolute form. Stateless;
 * thread-safe.
 */
public final class PolicyGates {
    /** The refusal of a call the policy does not allow. */
    public static final Reason POLICY_DENIED = Reason.declare("policy_denied", ToolStatus.REFUSED);

    /** What the gate does with a call the policy denies. */
    public enum Mode {
        /** Refuse it: {@code policy_denied}. */
        ENFORCE,
        /** Run it, and record what would have been refused. */
        SHADOW
    }

    private PolicyGates() {}

    /**
     * @param policy the policy; never {@code null}
     * @return a gate that refuses what the policy denies
     */
    public static PolicyGate enforce(Policy policy) {
        return of(policy, Mode.ENFORCE);
    }

    /**
     * @param policy the policy; never {@code null}
     * @return a gate that lets every call run and records what the policy would deny
     */
    public static PolicyGate shadow(Policy policy) {
        return of(policy, Mode.SHADOW);
    }

    /**
     * @param policy the policy; never {@code null}
     * @param mode enforce or shadow; never {@code null}
     * @return the gate
     */
    public static PolicyGate of(Policy policy, Mode mode) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(mode, "mode");
        return new PolicyGate() {
            @Override
            public PolicyDecision decide(PolicyQuery query) {
                RuleDecision d = PolicyGates.decide(policy, query);
                if (d.allowed()) {
                    return PolicyDecision.allow();
                }
                return mode == Mode.ENFORCE ? PolicyDecision.refuse(POLICY_DENIED, d.detail())
                        : PolicyDecision.allowAndRecord("would deny: " + d.detail());
            }

            @Override
            public Set<Reason> reasons() {
                return Set.of(POLICY_DENIED);
            }
        };
    }

    /**
     * @param policy the policy
     * @param query the executor's question
     * @return the policy's decision on it, path arguments made workspace-relative
     */
    static RuleDecision decide(Policy policy, PolicyQuery query) {
        JsonNode args = query.arguments();
        if (!query.paths().isEmpty() && args.isObject()) {
            ObjectNode copy = ((ObjectNode) args).deepCopy();
            for (Map.Entry<String, Path> e : query.paths().entrySet()) {
                copy.put(e.getKey(), relative(e.getValue(), query.workspace()));
            }
            args = copy;
        }
        return policy.decide(query.agent(), query.spec().name(), args);
    }

    /** @return the path relative to the write root, {@code /}-separated, or its absolute form elsewhere */
    static String relative(Path resolved, SandboxPaths workspace) {
        for (Path root : new Path[] {workspace.realWriteRoot(), workspace.writeRoot()}) {
            if (resolved.startsWith(root)) {
                Path rel = root.relativize(resolved);
                String s = rel.toString().replace(rel.getFileSystem().getSeparator(), "/");
                return s.isEmpty() ? "." : s;
            }
        }
        return resolved.toString().replace(resolved.getFileSystem().getSeparator(), "/");
    }
}
