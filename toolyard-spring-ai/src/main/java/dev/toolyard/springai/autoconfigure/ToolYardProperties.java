package dev.toolyard.springai.autoconfigure;

import dev.toolyard.EgressClass;
import dev.toolyard.ToolContext;
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
 * {@value #DEFAULT_INVOCATION_ID_KEY}. Mutable, as Spring binds it; not thread-safe.
 */
@ConfigurationProperties(prefix = "toolyard")
public class ToolYardProperties {
    /** The tool-context key whose value is a call's invocation id, unless configured otherwise. */
    public static final String DEFAULT_INVOCATION_ID_KEY = "toolyard.invocation-id";

    private Set<String> allowlist = new LinkedHashSet<>();
    private Path workspace;
    private List<Path> readRoots = new ArrayList<>();
    private Duration timeout = Duration.ofSeconds(ToolContext.DEFAULT_TIMEOUT_SECONDS);
    private EgressClass egressCeiling = EgressClass.NONE;
    private String invocationIdKey = DEFAULT_INVOCATION_ID_KEY;

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
}
