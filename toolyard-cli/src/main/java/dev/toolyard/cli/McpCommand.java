package dev.toolyard.cli;

import dev.toolyard.EgressClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.mcp.ElicitationApprovalGate;
import dev.toolyard.mcp.ToolYardMcpServer;
import dev.toolyard.mcp.ToolYardStdioTransportProvider;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolyard mcp}: the built-in tools served over MCP on stdin/stdout, every call through the
 * executor and recorded in SQLite. Standard output carries the protocol and nothing else: everything
 * else this process prints goes to standard error. {@code http_fetch} is served only when
 * {@code --allow-host} names hosts. {@code write_file} and {@code run_command} need approval, the same
 * rule as {@code toolyard call}: {@code --approve} gives it, otherwise the client is asked through MCP
 * elicitation when it declared that capability, and otherwise the call is denied. When the client closes
 * stdin (or dies), every call still running is cancelled (a command's process tree is killed) and
 * recorded, and the sandbox is closed before the process exits.
 */
@Command(name = "mcp", description = "Serve the built-in tools to an MCP client over stdin/stdout (JSON-RPC lines, "
        + "nothing else on stdout); every call is checked, contained and recorded. write_file and run_command need "
        + "approval: --approve gives it, otherwise the client is asked (MCP elicitation) if it can be, and otherwise "
        + "the call is denied. Runs until the client closes stdin; calls still running then are cancelled.")
final class McpCommand implements Callable<Integer> {
    /** How long, after the session, cancelled calls and their commands have to end before the process exits anyway. */
    static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(30);

    @Spec
    CommandSpec spec;

    @Option(names = "--workspace", required = true, description = "The write root: an existing directory.")
    Path workspace;

    @Option(names = "--store", description = "SQLite file for the records, outside the workspace "
            + "(default: <workspace>.toolyard.db beside the workspace, in its parent directory).")
    Path store;

    @Option(names = "--allow-host", description = "A host http_fetch may reach; repeatable. None: no http_fetch tool "
            + "at all. Loopback (localhost, 127.0.0.0/8, ::1) is reached only when named here itself.")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = Toolbox.COMMAND_HOST_OPTION, description = Toolbox.COMMAND_HOST_HELP)
    List<String> commandHosts = new ArrayList<>();

    @Option(names = "--timeout", description = "Seconds each call may run (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds = 30;

    @Option(names = "--invocation", description = "The invocation id every record of this session is filed under "
            + "(default: mcp-<start time in ms>).")
    String invocation = "mcp-" + System.currentTimeMillis();

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = HostMachine.DEFAULT_IMAGE;

    @Option(names = "--approve", description = "Approve every write_file and run_command call without asking.")
    boolean approve;

    @Mixin
    TierOption tier;

    @Override
    public Integer call() throws Exception {
        tier.lowest(); // a wrong --tier or --lowest-tier is a user mistake, said before serving
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(workspace)) {
            throw new Main.UserError("workspace " + workspace + " is not an existing directory");
        }
        if (timeoutSeconds <= 0) {
            throw new Main.UserError("--timeout must be positive, got " + timeoutSeconds);
        }
        Optional<CommandNetwork> commandNetwork = Toolbox.commandNetwork(commandHosts, Resolver.system());
        Path root = workspace.toRealPath();
        if (root.getParent() == null) {
            throw new Main.UserError("workspace " + root + " has no parent directory for the records; give --store");
        }
        Path records = store != null ? store.toAbsolutePath() : root.resolveSibling(root.getFileName() + ".toolyard.db");
        if (resolvedThroughExistingAncestor(records.getParent()).startsWith(root)) {
            // write_file could then overwrite the record of the very calls that wrote it
            throw new Main.UserError("--store " + records + " is inside the workspace; put it outside");
        }
        Files.createDirectories(records.getParent());
        ToolContext context = ToolContext.builder(invocation, SandboxPaths.of(root))
                .timeout(Duration.ofSeconds(timeoutSeconds))
                .egressCeiling(EgressClass.ALLOWLISTED)
                .build();

        // From here on standard output is the protocol's alone; anything that prints goes to stderr.
        PrintStream protocol = System.out;
        System.setOut(System.err);
        try (TieredSandbox tiered = HostMachine.sandbox(image, tier, false);
                JdbcToolCallStore recordStore = JdbcToolCallStore.sqlite(records)) {
            RunningCommands sandbox = new RunningCommands(tiered);
            ToolRegistry registry;
            try {
                registry = Toolbox.mcpRegistry(sandbox, allowHosts, Resolver.system(), commandNetwork);
            } catch (IllegalArgumentException e) {
                throw new Main.UserError("--allow-host: " + e.getMessage());
            }
            ApprovalGate fallback = approve ? new CliApprovalGate(true, null, System.getProperty("user.name", "unknown"))
                    : request -> CompletableFuture.completedFuture(ApprovalDecision.deny("toolyard mcp",
                            "the client cannot be asked (it did not declare MCP elicitation) and --approve was not given"));
            ToolExecutor executor = Toolbox.executor(registry, sandbox, recordStore,
                    approve ? fallback : ElicitationApprovalGate.orElse(fallback));
            err.println("toolyard mcp: serving " + registry.names() + " on stdin/stdout; workspace " + root
                    + "; isolation tier " + tiered.isolationTier().wireName());
            err.println("toolyard mcp: write_file and run_command " + (approve ? "are approved (--approve)"
                    : "are asked about through the client (MCP elicitation), or denied if it cannot be asked"));
            if (allowHosts.isEmpty()) {
                err.println("toolyard mcp: no http_fetch: no --allow-host was given");
            }
            err.println("toolyard mcp: run_command " + (commandNetwork.isPresent() ? "reaches " + commandHosts.size()
                    + " allowed host entries through the proxy (" + Toolbox.COMMAND_HOST_OPTION + ")"
                    : "has no network (no " + Toolbox.COMMAND_HOST_OPTION + " was given)"));
            err.println("toolyard mcp: every call is recorded in " + records + " under invocation " + invocation
                    + " (./toolyard records --store " + records + ")");
            ToolYardStdioTransportProvider stdio = new ToolYardStdioTransportProvider(McpJsonDefaults.getMapper(),
                    System.in, protocol);
            ToolYardMcpServer.Running server = ToolYardMcpServer.builder(executor, registry)
                    .serverInfo("toolyard", "0.1.0")
                    .contextFor(session -> context)
                    .start(stdio);
            while (!stdio.awaitInputEnd(1, TimeUnit.HOURS)) {
                // serving until the client closes stdin or dies
            }
            server.cancelCalls(); // the session did this already; said again so the order here is plain
            boolean callsEnded = server.awaitCallsEnded(SHUTDOWN_WAIT);
            boolean commandsGone = sandbox.awaitNone(SHUTDOWN_WAIT);
            if (!callsEnded || !commandsGone) {
                err.println("toolyard mcp: calls or commands were still running " + SHUTDOWN_WAIT.toSeconds()
                        + " s after the session ended; exiting anyway");
            }
            server.server().closeGracefully();
            executor.close();
        }
        err.println("toolyard mcp: the client closed the session; calls still running were cancelled");
        return 0;
    }

    /** Links resolved in the part that exists, so a link into the workspace cannot hide the store there. */
    private static Path resolvedThroughExistingAncestor(Path dir) throws java.io.IOException {
        Path existing = dir;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing == null ? dir.normalize() : existing.toRealPath().resolve(existing.relativize(dir)).normalize();
    }
}
