package dev.toolyard.cli;

import dev.toolyard.EgressClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.spi.Json;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code toolyard call}: one call through the executor with the built-ins, recorded, printed as JSON. A tool
 * that writes or runs needs approval: {@code --approve} gives it, a terminal asks, and with neither the call is
 * denied (fail closed).
 */
@Command(name = "call", description = "Make one tool call through the executor with the built-in tools; the call is "
        + "recorded and its result printed as JSON. A tool that writes or runs (write_file, run_command) needs "
        + "approval: --approve gives it, otherwise a terminal asks, and with neither it is denied. "
        + "Exits 0 when the call ended OK, 1 otherwise.")
final class CallCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--workspace", required = true, description = "The write root: an existing directory.")
    Path workspace;

    @Option(names = "--tool", required = true, description = "The tool name, as a model would send it.")
    String tool;

    @Option(names = "--args", required = true, description = "The arguments as a JSON object.")
    String args;

    @Option(names = "--store", description = "SQLite file for the record (default: ${DEFAULT-VALUE}).")
    Path store = RecordsCommand.DEFAULT_STORE;

    @Option(names = "--allow-host", description = "A host http_fetch may reach; repeatable. None: loopback only.")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = Toolbox.COMMAND_HOST_OPTION, description = Toolbox.COMMAND_HOST_HELP)
    List<String> commandHosts = new ArrayList<>();

    @Option(names = "--timeout", description = "Seconds the call may run (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds = 30;

    @Option(names = "--invocation", description = "The invocation id the record is filed under.")
    String invocation = "cli-" + System.currentTimeMillis();

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = HostMachine.DEFAULT_IMAGE;

    @Mixin
    TierOption tier;

    @Option(names = "--approve", description = "Approve the call if its tool needs approval, without asking.")
    boolean approve;

    @Override
    public Integer call() throws Exception {
        tier.lowest(); // a wrong --tier or --lowest-tier is said before anything runs
        if (!Files.isDirectory(workspace)) {
            throw new Main.UserError("workspace " + workspace + " is not an existing directory");
        }
        try {
            Json.MAPPER.readTree(args);
        } catch (JacksonException e) {
            throw new Main.UserError("--args is not valid JSON: " + e.getOriginalMessage());
        }
        if (timeoutSeconds <= 0) {
            throw new Main.UserError("--timeout must be positive, got " + timeoutSeconds);
        }
        Toolbox.checkAllowHosts(allowHosts);
        Optional<CommandNetwork> commandNetwork = Toolbox.commandNetwork(commandHosts, Resolver.system());
        Path parent = store.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ToolContext context = ToolContext.builder(invocation, SandboxPaths.of(workspace.toAbsolutePath()))
                .timeout(Duration.ofSeconds(timeoutSeconds))
                .egressCeiling(EgressClass.ALLOWLISTED)
                .build();
        try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(store)) {
            ToolExecutor executor = Toolbox.executor(HostMachine.sandbox(image, tier, false), records,
                    allowHosts, Resolver.system(), CliApprovalGate.forThisProcess(approve), commandNetwork);
            ToolResult result = executor.execute(ToolCallRequest.of(tool, args), context);
            spec.commandLine().getOut().println(Json.MAPPER.writerWithDefaultPrettyPrinter()
                    .writeValueAsString(toJson(result)));
            return result.status() == ToolStatus.OK ? 0 : 1;
        }
    }

    static ObjectNode toJson(ToolResult r) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("callId", r.callId());
        n.put("tool", r.toolName());
        n.put("status", r.status().wireName());
        n.put("reason", r.reason().map(x -> x.wireName()).orElse(null));
        n.put("reasonDetail", r.reasonDetail());
        n.put("content", r.content());
        n.put("truncated", r.truncated());
        n.put("durationMillis", r.duration().toNanos() / 1e6);
        return n;
    }
}
