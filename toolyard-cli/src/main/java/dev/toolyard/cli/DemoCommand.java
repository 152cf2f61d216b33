package dev.toolyard.cli;

import com.sun.net.httpserver.HttpServer;
import dev.toolyard.EgressClass;
import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.cli.internal.Table;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolyard demo}: a scripted agent trajectory, every step a real call through {@link ToolExecutor}
 * with the built-in tools, {@link TieredSandbox} and the SQLite store.
 */
@Command(name = "demo", description = "Run a scripted agent trajectory through the real executor: reads, an escape, "
        + "a write, a sandboxed command, fetches allowed and refused, a runaway command; then show the records.")
final class DemoCommand implements Callable<Integer> {
    /** The name the demo's loopback docs server is reached by; the demo's resolver maps it to 127.0.0.1. */
    static final String DOCS_HOST = "docs.example";

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", description = "Where to put the workspace and the records (default: a new temp directory).")
    Path dir;

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = HostMachine.DEFAULT_IMAGE;

    @Mixin
    TierOption tier;

    @Option(names = "--warm", description = "Run the commands in a warm sandbox of the workspace (TieredSandbox warm mode).")
    boolean warm;

    @Override
    public Integer call() throws Exception {
        IsolationTier startAt = tier.startAt();
        tier.lowest(); // a wrong --lowest-tier is said before anything runs
        PrintWriter out = spec.commandLine().getOut();
        Path base = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("toolyard-demo-");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Files.createDirectories(workspace.resolve("notes"));
        Files.writeString(workspace.resolve("notes/today.md"), "# Today\n- review the sandbox report\n- ship 0.1.0\n");
        Path storeFile = base.resolve("records.db");

        try (TieredSandbox sandbox = HostMachine.sandbox(image, tier, warm)) {
            return run(out, sandbox, startAt, workspace, storeFile);
        }
    }

    private int run(PrintWriter out, TieredSandbox sandbox, IsolationTier startAt, Path workspace, Path storeFile)
            throws Exception {
        IsolationReport report = sandbox.report();
        HttpServer docs = startDocsServer();
        int port = docs.getAddress().getPort();
        Resolver resolver = host -> {
            if (host.equals(DOCS_HOST)) {
                return List.of(InetAddress.getByAddress(DOCS_HOST, new byte[] {127, 0, 0, 1}));
            }
            throw new UnknownHostException(host + " (the demo resolves only " + DOCS_HOST + ")");
        };
        String invocation = "demo-" + System.currentTimeMillis();
        ToolContext context = ToolContext.builder(invocation, SandboxPaths.of(workspace))
                .egressCeiling(EgressClass.ALLOWLISTED).timeout(Duration.ofSeconds(20)).build();
        ToolContext impatient = ToolContext.builder(invocation, SandboxPaths.of(workspace))
                .egressCeiling(EgressClass.ALLOWLISTED).timeout(Duration.ofSeconds(2)).build();

        List<Step> steps = List.of(
                new Step("read a note", "read_file", "{\"path\":\"notes/today.md\"}", context),
                new Step("escape with ../", "read_file", "{\"path\":\"../../../etc/passwd\"}", context),
                new Step("write a report", "write_file",
                        "{\"path\":\"out/report.md\",\"content\":\"All checks passed.\\n\"}", context),
                new Step("run python in the sandbox", "run_command",
                        "{\"argv\":[\"python3\",\"-c\",\"import os; print('hello from', os.getcwd())\"]}", context),
                new Step("fetch the allowlisted docs", "http_fetch",
                        "{\"url\":\"http://" + DOCS_HOST + ":" + port + "/guide.txt\"}", context),
                new Step("fetch cloud metadata", "http_fetch",
                        "{\"url\":\"http://169.254.169.254/latest/meta-data/\"}", context),
                new Step("fetch an unlisted host", "http_fetch", "{\"url\":\"http://evil.example/steal\"}", context),
                new Step("call a tool that does not exist", "delete_everything", "{\"path\":\"/\"}", context),
                new Step("arguments that fail the schema", "read_file", "{\"path\":42,\"mode\":\"rw\"}", context),
                new Step("a command past its timeout", "run_command", "{\"argv\":[\"sleep\",\"30\"]}", impatient));

        out.println("ToolYard demo: " + steps.size() + " tool calls a model might make, each run for real.");
        out.println("isolation tier: " + report.tier().wireName()
                + (startAt == IsolationTier.BWRAP ? " (the ladder started at bubblewrap: --tier bwrap)"
                        : startAt == IsolationTier.GVISOR ? " (the ladder started at gvisor: --tier gvisor)" : "")
                + (report.tier() == IsolationTier.UNAVAILABLE ? " (run_command will be refused; see ./toolyard doctor)" : ""));
        out.println("warm mode: " + report.warmMode());
        out.println("workspace: " + workspace);
        out.println();
        List<ToolResult> results = new ArrayList<>();
        Table table = new Table("#", "what the model tried", "tool", "status", "reason", "ms");
        try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(storeFile)) {
            // A name that resolves to loopback is fetched only if that address is allowlisted too (anti-rebinding).
            ToolExecutor executor = Toolbox.executor(sandbox, store, List.of(DOCS_HOST, "127.0.0.1"), resolver);
            int n = 1;
            for (Step step : steps) {
                ToolResult r = executor.execute(ToolCallRequest.of(step.tool, step.args), step.context);
                results.add(r);
                table.row(String.valueOf(n++), step.what, step.tool, r.status().wireName(),
                        r.reason().map(x -> x.wireName()).orElse("-"),
                        String.format("%.1f", r.duration().toNanos() / 1e6));
            }
        } finally {
            docs.stop(0);
        }
        table.print(out);
        out.println();
        out.println("What the model saw for the sandboxed command:");
        for (String line : results.get(3).content().split("\n", 8)) {
            out.println("  | " + line);
        }
        out.println();
        out.println("Every call above is recorded, refusals included, in " + storeFile);
        out.println("List them with:  ./toolyard records --store " + storeFile);
        return 0;
    }

    private static HttpServer startDocsServer() throws java.io.IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/guide.txt", exchange -> {
            byte[] body = "ToolYard guide: every tool call is checked, contained and recorded.\n"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
            }
        });
        server.start();
        return server;
    }

    private record Step(String what, String tool, String args, ToolContext context) {}
}
