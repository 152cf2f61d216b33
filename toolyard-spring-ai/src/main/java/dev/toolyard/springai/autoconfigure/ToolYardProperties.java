package dev.toolyard.springai.autoconfigure;

import dev.toolyard.EgressClass;
import dev.toolyard.ToolExecutor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code toolyard.*} properties of the auto-configuration. Defaults: an empty allowlist (every
 * tool refused), no workspace (required unless the application defines its own
 * {@link dev.toolyard.springai.ToolContextResolver}), no read roots, a 30 s timeout, egress ceiling
 * {@link EgressClass#NONE}, and the invocation id read from the tool-context key
 * {@value #DEFAULT_INVOCATION_ID_KEY}, 32 calls per round. Every value is checked when the context
 * starts, and a bad one stops it with an {@link InvalidToolYardPropertyException} naming the property; an
 * unknown {@code toolyard.*} property (a typo) stops it too. Mutable, as Spring binds it; not thread-safe.
 */
@ConfigurationProperties(prefix = "toolyard", ignoreUnknownFields = false)
public class ToolYardProperties {
    /** The tool-context key whose value is a call's invocation id, unless configured otherwise. */
    public static final String DEFAULT_INVOCATION_ID_KEY = "toolyard.invocation-id";

    /** Tools the executor may run, each registered in the application's ToolRegistry; empty refuses every tool. */
    private Set<String> allowlist = new LinkedHashSet<>();
    /** Absolute path of an existing directory: the write root of every tool call. Required unless the application defines a ToolContextResolver. */
    private Path workspace;
    /** Absolute paths of existing directories every tool call may read but not write; none may contain another root. */
    private List<Path> readRoots = new ArrayList<>();
    /** Deadline of each tool call's handler; positive. */
    private Duration timeout = Duration.ofSeconds(30); // ToolContext's default (ToolYardPropertiesDefaultsTest)
    /** Highest egress class a tool may have: NONE, ALLOWLISTED or ANY. */
    private EgressClass egressCeiling = EgressClass.NONE;
    /** Tool-context key whose value (1-256 characters) is a call's invocation id; without it each call gets a fresh id. */
    private String invocationIdKey = DEFAULT_INVOCATION_ID_KEY;
    /** Most ToolYard calls of one model turn that run; the rest are refused round_limit. At least 1; used by the auto-configured executor. */
    private Integer maxCallsPerRound = 32; // the executor's default, ToolExecutor.limits().maxCallsPerRound()

    /** Creates the defaults. */
    public ToolYardProperties() {}

    /** @return the tools the executor may run; each must be registered */
    public Set<String> getAllowlist() {
        return allowlist;
    }

    /** @param allowlist the tools the executor may run */
    public void setAllowlist(Set<String> allowlist) {
        this.allowlist = allowlist;
    }

    /** @return the write root of every call, or {@code null} when not set */
    public Path getWorkspace() {
        return workspace;
    }

    /** @param workspace the write root of every call; absolute */
    public void setWorkspace(Path workspace) {
        this.workspace = workspace;
    }

    /** @return extra read-only roots */
    public List<Path> getReadRoots() {
        return readRoots;
    }

    /** @param readRoots extra read-only roots; absolute */
    public void setReadRoots(List<Path> readRoots) {
        this.readRoots = readRoots;
    }

    /** @return the deadline of each call */
    public Duration getTimeout() {
        return timeout;
    }

    /** @param timeout the deadline of each call; positive */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /** @return the highest egress class a tool may have */
    public EgressClass getEgressCeiling() {
        return egressCeiling;
    }

    /** @param egressCeiling the highest egress class a tool may have */
    public void setEgressCeiling(EgressClass egressCeiling) {
        this.egressCeiling = egressCeiling;
    }

    /** @return the tool-context key holding the invocation id */
    public String getInvocationIdKey() {
        return invocationIdKey;
    }

    /** @param invocationIdKey the tool-context key holding the invocation id */
    public void setInvocationIdKey(String invocationIdKey) {
        this.invocationIdKey = invocationIdKey;
    }

    /** @return most ToolYard calls of one model turn that run */
    public Integer getMaxCallsPerRound() {
        return maxCallsPerRound;
    }

    /** @param maxCallsPerRound most ToolYard calls of one model turn that run; at least 1 */
    public void setMaxCallsPerRound(Integer maxCallsPerRound) {
        this.maxCallsPerRound = maxCallsPerRound;
    }
}
