package dev.toolyard.cli;

import dev.toolyard.HandlerMode;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.spi.ToolCallStore;
import java.util.List;
import java.util.Set;

/**
 * The five built-in tools, registered and allowlisted, behind one executor; with a gate, every tool that
 * writes or runs ({@code write_file}, {@code run_command}) needs its approval.
 */
final class Toolbox {
    static final Set<String> BUILTINS = Set.of("read_file", "write_file", "list_dir", "run_command", "http_fetch");

    private Toolbox() {}

    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver) {
        return executor(sandbox, store, allowedHosts, resolver, null);
    }

    /** @param gate asked before a tool of risk class WRITE or above runs; {@code null} for no approval at all */
    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver,
            ApprovalGate gate) {
        return executor(registry(sandbox, allowedHosts, resolver), sandbox, store, gate);
    }

    /** The built-ins on a registry of their own, for a command that needs the registry too ({@code mcp} lists it). */
    static ToolRegistry registry(Sandbox sandbox, List<String> allowedHosts, Resolver resolver) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(BuiltinTools.runCommand(sandbox));
        registry.register(BuiltinTools.httpFetch(allowedHosts, resolver));
        return registry;
    }

    /**
     * The tools {@code toolyard mcp} serves: the built-ins, and {@code http_fetch} only when hosts were
     * allowlisted, so a server started with no {@code --allow-host} offers no fetch at all.
     */
    static ToolRegistry mcpRegistry(Sandbox sandbox, List<String> allowedHosts, Resolver resolver) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(BuiltinTools.runCommand(sandbox));
        if (!allowedHosts.isEmpty()) {
            registry.register(BuiltinTools.httpFetch(allowedHosts, resolver));
        }
        return registry;
    }

    static ToolExecutor executor(ToolRegistry registry, Sandbox sandbox, ToolCallStore store) {
        return executor(registry, sandbox, store, null);
    }

    /** Every tool of the registry allowlisted; with a gate, those that write or run need its approval. */
    static ToolExecutor executor(ToolRegistry registry, Sandbox sandbox, ToolCallStore store, ApprovalGate gate) {
        ToolExecutor.Builder b = ToolExecutor.builder(registry, sandbox)
                .allowlist(Set.copyOf(registry.names()))
                .store(store)
                .handlerMode(HandlerMode.HANDOFF);
        if (gate != null) {
            b.requireApprovalFrom(RiskClass.WRITE).approvalGate(gate);
        }
        return b.build();
    }
}
