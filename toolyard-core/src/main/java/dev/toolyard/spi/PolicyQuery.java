package dev.toolyard.spi;

import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * What a {@link PolicyGate} is asked about: one call that passed registry, allowlist, schema, egress and
 * containment. Immutable as far as this class goes; {@link #arguments()} is the executor's own tree,
 * which a gate must read and never change. Not meant to be built by applications except in tests of a
 * gate.
 *
 * <p>Stability: stable; members may be added.
 */
public final class PolicyQuery {
    private final String agent;
    private final String invocationId;
    private final ToolSpec spec;
    private final JsonNode arguments;
    private final Map<String, Path> paths;
    private final SandboxPaths workspace;

    private PolicyQuery(String agent, String invocationId, ToolSpec spec, JsonNode arguments, Map<String, Path> paths,
            SandboxPaths workspace) {
        this.agent = agent;
        this.invocationId = invocationId;
        this.spec = spec;
        this.arguments = arguments;
        this.paths = paths;
        this.workspace = workspace;
    }

    /**
     * @param agent the context's agent name, {@code ""} for none; never {@code null}
     * @param invocationId the invocation's id; never {@code null}
     * @param spec the tool's spec; never {@code null}
     * @param arguments the validated arguments, path arguments replaced by their resolved paths; never {@code null}
     * @param paths the resolved path arguments by name; never {@code null}; not copied
     * @param workspace the invocation's workspace; never {@code null}
     * @return the query
     * @throws NullPointerException if a parameter is {@code null}
     */
    public static PolicyQuery of(String agent, String invocationId, ToolSpec spec, JsonNode arguments,
            Map<String, Path> paths, SandboxPaths workspace) {
        return new PolicyQuery(Objects.requireNonNull(agent, "agent"), Objects.requireNonNull(invocationId, "invocationId"),
                Objects.requireNonNull(spec, "spec"), Objects.requireNonNull(arguments, "arguments"),
                Objects.requireNonNull(paths, "paths"), Objects.requireNonNull(workspace, "workspace"));
    }

    /** @return the agent the context named, {@code ""} when none; never {@code null} */
    public String agent() {
        return agent;
    }

    /** @return the invocation's id; never {@code null} */
    public String invocationId() {
        return invocationId;
    }

    /** @return the tool's spec; its name is the registered tool's name; never {@code null} */
    public ToolSpec spec() {
        return spec;
    }

    /**
     * @return the arguments as the handler will get them: valid for the schema, every path argument
     *     replaced by its resolved absolute path; the executor's tree, to be read only; never {@code null}
     */
    public JsonNode arguments() {
        return arguments;
    }

    /** @return the resolved path arguments by name (symbolic links and {@code ..} resolved); never {@code null} */
    public Map<String, Path> paths() {
        return paths;
    }

    /** @return the invocation's workspace, against which resolved paths can be made relative; never {@code null} */
    public SandboxPaths workspace() {
        return workspace;
    }
}
