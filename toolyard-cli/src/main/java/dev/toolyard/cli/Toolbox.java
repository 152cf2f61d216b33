package dev.toolyard.cli;

import dev.toolyard.HandlerMode;
import dev.toolyard.RiskClass;
import dev.toolyard.Tool;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.spi.ToolCallStore;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The five built-in tools, registered and allowlisted, behind one executor; with a gate, every tool that
 * writes or runs ({@code write_file}, {@code run_command}) needs its approval. {@code run_command} has
 * network only when {@link #COMMAND_HOST_OPTION} named hosts.
 */
final class Toolbox {
    static final Set<String> BUILTINS = Set.of("read_file", "write_file", "list_dir", "run_command", "http_fetch");

    private Toolbox() {}

    /** The option that gives {@code run_command} network, in {@code call} and {@code mcp}. */
    static final String COMMAND_HOST_OPTION = "--allow-command-host";
    /** What {@link #COMMAND_HOST_OPTION} says in each command's help. */
    static final String COMMAND_HOST_HELP = "A host run_command's commands may reach, through ToolYard's allowlisting "
            + "proxy (HTTP and HTTPS, for curl, pip, npm, git...); repeatable: a name, *.suffix, or an IP literal, each "
            + "optionally :port (else 80 and 443). Names are resolved by this machine's resolver; a private or loopback "
            + "address is reached only when it is named here itself. None: run_command has no network.";

    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver) {
        return executor(sandbox, store, allowedHosts, resolver, null);
    }

    /** @param gate asked before a tool of risk class WRITE or above runs; {@code null} for no approval at all */
    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver,
            ApprovalGate gate) {
        return executor(sandbox, store, allowedHosts, resolver, gate, Optional.empty());
    }

    /** @param commandNetwork {@code run_command}'s network; empty for none */
    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver,
            ApprovalGate gate, Optional<CommandNetwork> commandNetwork) {
        return executor(registry(sandbox, allowedHosts, resolver, commandNetwork), sandbox, store, gate);
    }

    /** The built-ins on a registry of their own, for a command that needs the registry too ({@code mcp} lists it). */
    static ToolRegistry registry(Sandbox sandbox, List<String> allowedHosts, Resolver resolver) {
        return registry(sandbox, allowedHosts, resolver, Optional.empty());
    }

    static ToolRegistry registry(Sandbox sandbox, List<String> allowedHosts, Resolver resolver,
            Optional<CommandNetwork> commandNetwork) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(runCommand(sandbox, commandNetwork));
        registry.register(BuiltinTools.httpFetch(allowedHosts, resolver));
        return registry;
    }

    private static Tool runCommand(Sandbox sandbox, Optional<CommandNetwork> commandNetwork) {
        return commandNetwork.map(net -> BuiltinTools.runCommand(sandbox, net)).orElseGet(() -> BuiltinTools.runCommand(sandbox));
    }

    /**
     * Checks the values of {@code --allow-host} before anything is opened or runs.
     *
     * @param hosts the values, as given
     * @throws Main.UserError naming the option and what is wrong with the first bad value
     */
    static void checkAllowHosts(List<String> hosts) {
        try {
            BuiltinTools.httpFetch(hosts, Resolver.system());
        } catch (IllegalArgumentException e) {
            throw new Main.UserError("--allow-host: " + e.getMessage());
        }
    }

    /**
     * @param hosts the values of {@link #COMMAND_HOST_OPTION}, as given
     * @param resolver resolves the names the commands ask for
     * @return {@code run_command}'s network; empty when no host was given
     * @throws Main.UserError naming the option and the first bad value
     */
    static Optional<CommandNetwork> commandNetwork(List<String> hosts, Resolver resolver) {
        if (hosts.isEmpty()) {
            return Optional.empty();
        }
        for (String host : hosts) {
            try {
                CommandNetwork.allowHosts(List.of(host), resolver);
            } catch (IllegalArgumentException e) {
                // "hosts[0] 'x' is ..." becomes "--allow-command-host 'x' is ...": the option, then the value.
                throw new Main.UserError(COMMAND_HOST_OPTION + " " + e.getMessage().replaceFirst("^hosts\\[0\\] ", ""));
            }
        }
        return Optional.of(CommandNetwork.allowHosts(hosts, resolver));
    }

    /**
     * The tools {@code toolyard mcp} serves: the built-ins, and {@code http_fetch} only when hosts were
     * allowlisted, so a server started with no {@code --allow-host} offers no fetch at all.
     */
    static ToolRegistry mcpRegistry(Sandbox sandbox, List<String> allowedHosts, Resolver resolver,
            Optional<CommandNetwork> commandNetwork) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(runCommand(sandbox, commandNetwork));
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
