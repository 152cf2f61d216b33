package dev.toolyard.cli;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.cli.internal.Table;
import dev.toolyard.internal.Json;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;

/** {@code toolyard records}: what a store holds. */
@Command(name = "records", description = "List the calls a store recorded, oldest first.")
final class RecordsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--store", required = true, description = "The SQLite file a demo or call wrote.")
    Path store;

    @Option(names = "--invocation", description = "Only this invocation's calls.")
    String invocation;

    @Option(names = "--limit", description = "At most this many of the most recent calls (default: ${DEFAULT-VALUE}).")
    int limit = 100;

    @Option(names = "--json", description = "Print the records as JSON.")
    boolean json;

    @Override
    public Integer call() {
        if (!Files.isRegularFile(store)) {
            throw new Main.UserError("no store at " + store + " (run ./toolyard demo, or give the file a call wrote)");
        }
        if (limit <= 0) {
            throw new Main.UserError("--limit must be positive, got " + limit);
        }
        List<ToolCallRecord> records;
        try (JdbcToolCallStore s = JdbcToolCallStore.sqlite(store)) {
            records = invocation != null ? s.byInvocation(invocation) : s.recent(limit);
        } catch (RuntimeException e) {
            throw new Main.UserError("cannot read " + store + " as a ToolYard store: " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ArrayNode array = Json.MAPPER.createArrayNode();
            for (ToolCallRecord r : records) {
                array.addObject()
                        .put("callId", r.callId())
                        .put("invocationId", r.invocationId())
                        .put("tool", r.toolName())
                        .put("status", r.status().wireName())
                        .put("reason", r.reason() == null ? null : r.reason().wireName())
                        .put("reasonDetail", r.reasonDetail())
                        .put("arguments", r.arguments())
                        .put("argumentsSha256", r.argumentsSha256())
                        .put("argumentsRedacted", r.argumentsRedacted())
                        .put("summary", r.summary())
                        .put("startedAt", r.startedAt().toString())
                        .put("durationNanos", r.duration().toNanos())
                        .put("approver", r.approver());
            }
            out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(array));
            return 0;
        }
        Table table = new Table("started (UTC)", "invocation", "tool", "status", "reason", "ms", "call id");
        for (ToolCallRecord r : records) {
            table.row(r.startedAt().toString(), r.invocationId(), r.toolName(), r.status().wireName(),
                    r.reason() == null ? "" : r.reason().wireName(),
                    String.format("%.1f", r.duration().toNanos() / 1e6), r.callId());
        }
        table.print(out);
        out.println(records.size() + " record(s) in " + store);
        return 0;
    }
}
