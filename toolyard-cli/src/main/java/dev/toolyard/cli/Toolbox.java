package dev.toolyard.cli;

import dev.toolyard.HandlerMode;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.Resolver;
import java.util.List;
import java.util.Set;

/** The five built-in tools, registered and allowlisted, behind one executor. */
final class Toolbox {
    static final Set<String> BUILTINS = Set.of("read_file", "write_file", "list_dir", "run_command", "http_fetch");

    private Toolbox() {}

    static ToolExecutor executor(Sandbox sandbox, ToolCallStore store, List<String> allowedHosts, Resolver resolver) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(BuiltinTools.runCommand(sandbox));
        registry.register(BuiltinTools.httpFetch(allowedHosts, resolver));
        return ToolExecutor.builder(registry, sandbox)
                .allowlist(BUILTINS)
                .store(store)
                .handlerMode(HandlerMode.HANDOFF)
                .build();
    }
}
