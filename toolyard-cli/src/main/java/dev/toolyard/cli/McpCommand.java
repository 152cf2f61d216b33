package dev.toolyard.cli;

import dev.toolyard.EgressClass;
import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.mcp.ToolYardMcpServer;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Mono;

/**
 * {@code toolyard mcp}: the built-in tools served over MCP on stdin/stdout, every call through the
 * executor and recorded in SQLite. Standard output carries the protocol and nothing else: everything
 * else this process prints goes to standard error.
 */
@Command(name = "mcp", description = "Serve the built-in tools to an MCP client over stdin/stdout (JSON-RPC lines, "
        + "nothing else on stdout); every call is checked, contained and recorded. Runs until the client closes stdin.")
final class McpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--workspace", required = true, description = "The write root: an existing directory.")
    Path workspace;

    @Option(names = "--store", description = "SQLite file for the records, outside the workspace "
            + "(default: <workspace>.toolyard.db beside the workspace, in its parent directory).")
    Path store;

    @Option(names = "--allow-host", description = "A host http_fetch may reach; repeatable. None: loopback only.")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--timeout", description = "Seconds each call may run (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds = 30;

    @Option(names = "--invocation", description = "The invocation id every record of this session is filed under "
            + "(default: mcp-<start time in ms>).")
    String invocation = "mcp-" + System.currentTimeMillis();

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = Hosts.DEFAULT_IMAGE;

    @Mixin
    TierOption tier;

    @Override
    public Integer call() throws Exception {
        IsolationTier startAt = tier.startAt(); // a wrong --tier is a user mistake, said before serving
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(workspace)) {
            throw new Main.UserError("workspace " + workspace + " is not an existing directory");
        }
        if (timeoutSeconds <= 0) {
            throw new Main.UserError("--timeout must be positive, got " + timeoutSeconds);
        }
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
        TieredSandbox sandbox = Hosts.sandbox(image, startAt);
        CountDownLatch sessionClosed = new CountDownLatch(1);
        try (JdbcToolCallStore recordStore = JdbcToolCallStore.sqlite(records)) {
            ToolRegistry registry = Toolbox.registry(sandbox, allowHosts, Resolver.system());
            ToolExecutor executor = Toolbox.executor(registry, sandbox, recordStore);
            err.println("toolyard mcp: serving " + registry.names() + " on stdin/stdout; workspace " + root
                    + "; isolation tier " + sandbox.isolationTier().wireName());
            err.println("toolyard mcp: every call is recorded in " + records + " under invocation " + invocation
                    + " (./toolyard records --store " + records + ")");
            McpServerTransportProvider stdio = new ClosingProvider(
                    new StdioServerTransportProvider(McpJsonDefaults.getMapper(), System.in, protocol), sessionClosed);
            McpSyncServer server = ToolYardMcpServer.builder(executor, registry)
                    .serverInfo("toolyard", "0.1.0")
                    .contextFor(session -> context)
                    .build(stdio);
            sessionClosed.await();
            server.closeGracefully();
        }
        err.println("toolyard mcp: the client closed the session");
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

    /** Counts down when the session's transport closes: end of input, or a line the SDK could not read. */
    private record ClosingProvider(McpServerTransportProvider delegate, CountDownLatch closed)
            implements McpServerTransportProvider {
        @Override
        public void setSessionFactory(McpServerSession.Factory sessionFactory) {
            delegate.setSessionFactory(transport -> sessionFactory.create(new ClosingTransport(transport, closed)));
        }

        @Override
        public Mono<Void> notifyClients(String method, Object params) {
            return delegate.notifyClients(method, params);
        }

        @Override
        public Mono<Void> notifyClient(String sessionId, String method, Object params) {
            return delegate.notifyClient(sessionId, method, params);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return delegate.closeGracefully();
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public List<String> protocolVersions() {
            return delegate.protocolVersions();
        }
    }

    private record ClosingTransport(McpServerTransport delegate, CountDownLatch closed) implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return delegate.sendMessage(message);
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return delegate.unmarshalFrom(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return delegate.closeGracefully().doFinally(signal -> closed.countDown());
        }

        @Override
        public void close() {
            delegate.close();
            closed.countDown();
        }

        @Override
        public List<String> protocolVersions() {
            return delegate.protocolVersions();
        }
    }
}
