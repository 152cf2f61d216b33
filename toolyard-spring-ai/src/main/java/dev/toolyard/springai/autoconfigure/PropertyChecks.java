package dev.toolyard.springai.autoconfigure;

import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The startup checks of every {@code toolyard.*} property, each failing with an
 * {@link InvalidToolYardPropertyException} naming the property and the fix. Stateless.
 */
final class PropertyChecks {
    static final String ALLOWLIST = "toolyard.allowlist";
    static final String WORKSPACE = "toolyard.workspace";
    static final String READ_ROOTS = "toolyard.read-roots";
    static final String TIMEOUT = "toolyard.timeout";
    static final String EGRESS_CEILING = "toolyard.egress-ceiling";
    static final String INVOCATION_ID_KEY = "toolyard.invocation-id-key";
    static final String MAX_CALLS_PER_ROUND = "toolyard.max-calls-per-round";

    private PropertyChecks() {}

    /**
     * @return the workspace of every call, its roots checked
     * @throws InvalidToolYardPropertyException naming {@code toolyard.workspace} or {@code toolyard.read-roots}
     */
    static SandboxPaths workspace(ToolYardProperties properties) {
        Path workspace = properties.getWorkspace();
        if (workspace == null) {
            throw new InvalidToolYardPropertyException(WORKSPACE, "is not set",
                    "Set " + WORKSPACE + " to the absolute path of an existing directory, the write root of every"
                            + " tool call (for example " + WORKSPACE + "=/srv/agent/work), or define a"
                            + " ToolContextResolver bean of your own");
        }
        directory(WORKSPACE, workspace, "the write root of every tool call");
        List<Path> readRoots = properties.getReadRoots() == null ? List.of() : properties.getReadRoots();
        for (Path root : readRoots) {
            if (root == null) {
                throw new InvalidToolYardPropertyException(READ_ROOTS, "has an empty entry",
                        "Remove the empty entry from " + READ_ROOTS);
            }
            directory(READ_ROOTS, root, "a read-only root");
        }
        try {
            return SandboxPaths.of(workspace, readRoots);
        } catch (IllegalArgumentException e) { // the only check left: roots that overlap
            throw new InvalidToolYardPropertyException(READ_ROOTS, "overlaps " + WORKSPACE + " or itself ("
                    + e.getMessage() + ")", "Give " + WORKSPACE + " and each of " + READ_ROOTS
                    + " a directory that neither contains nor equals another");
        }
    }

    private static void directory(String property, Path path, String role) {
        String fix = "Set " + property + " to the absolute path of an existing directory, " + role;
        if (!path.isAbsolute()) {
            throw new InvalidToolYardPropertyException(property, "is the relative path '" + path
                    + "', which would depend on the directory the application starts in", fix);
        }
        if (!Files.exists(path)) {
            throw new InvalidToolYardPropertyException(property, "is '" + path + "', which does not exist",
                    fix + " (create it first)");
        }
        if (!Files.isDirectory(path)) {
            throw new InvalidToolYardPropertyException(property, "is '" + path + "', which is not a directory", fix);
        }
    }

    /** @throws InvalidToolYardPropertyException naming {@code toolyard.timeout} */
    static Duration timeout(ToolYardProperties properties) {
        Duration timeout = properties.getTimeout();
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new InvalidToolYardPropertyException(TIMEOUT, "is " + (timeout == null ? "empty" : timeout)
                    + ", but every tool call needs a positive deadline", "Set " + TIMEOUT
                    + " to a positive duration, such as 30s (the default) or 2m");
        }
        return timeout;
    }

    /** @throws InvalidToolYardPropertyException naming {@code toolyard.egress-ceiling} */
    static void egressCeiling(ToolYardProperties properties) {
        if (properties.getEgressCeiling() == null) {
            throw new InvalidToolYardPropertyException(EGRESS_CEILING, "is empty",
                    "Set " + EGRESS_CEILING + " to NONE (the default), ALLOWLISTED or ANY, or remove it");
        }
    }

    /** @throws InvalidToolYardPropertyException naming {@code toolyard.invocation-id-key} */
    static String invocationIdKey(ToolYardProperties properties) {
        String key = properties.getInvocationIdKey();
        if (key == null || key.isBlank()) {
            throw new InvalidToolYardPropertyException(INVOCATION_ID_KEY, "is empty, so no call would ever get"
                    + " the application's invocation id", "Set " + INVOCATION_ID_KEY
                    + " to the tool-context key holding it, or remove it for the default "
                    + ToolYardProperties.DEFAULT_INVOCATION_ID_KEY);
        }
        return key;
    }

    /** @throws InvalidToolYardPropertyException naming {@code toolyard.max-calls-per-round} */
    static int maxCallsPerRound(ToolYardProperties properties) {
        Integer calls = properties.getMaxCallsPerRound();
        if (calls == null || calls < 1) {
            throw new InvalidToolYardPropertyException(MAX_CALLS_PER_ROUND, "is " + (calls == null ? "empty" : calls)
                    + ", but at least one call of a model turn must be able to run", "Set " + MAX_CALLS_PER_ROUND
                    + " to a positive number, such as 32 (the default)");
        }
        return calls;
    }

    /**
     * @param gated whether the executor gets an approval gate
     * @return the allowlist, every entry registered
     * @throws InvalidToolYardPropertyException naming {@code toolyard.allowlist}
     */
    static Set<String> allowlist(ToolYardProperties properties, ToolRegistry registry, boolean gated) {
        Set<String> allowlist = properties.getAllowlist() == null ? Set.of() : properties.getAllowlist();
        for (String name : allowlist) {
            Optional<Tool> tool = name == null ? Optional.empty() : registry.lookup(name);
            if (tool.isEmpty()) {
                throw new InvalidToolYardPropertyException(ALLOWLIST, "names '" + name
                        + "', which the application's ToolRegistry does not register (it registers "
                        + registry.names() + ")", "Register the tool in your ToolRegistry bean, or remove it from "
                        + ALLOWLIST);
            }
            if (!gated && tool.get().spec().requiresApproval()) {
                throw new InvalidToolYardPropertyException(ALLOWLIST, "names '" + name
                        + "', which requires approval, and the application defines no ApprovalGate bean",
                        "Define an ApprovalGate bean (it decides each call of '" + name + "'), or remove '" + name
                                + "' from " + ALLOWLIST);
            }
        }
        return allowlist;
    }
}
