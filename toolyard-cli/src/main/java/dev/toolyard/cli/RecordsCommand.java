package dev.toolyard.cli;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.cli.internal.Table;
import dev.toolyard.spi.Json;
import dev.toolyard.store.jdbc.CallQuery;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code toolyard records}: what a store holds, filtered in the store's own query. */
@Command(name = "records", subcommands = {RecordsShowCommand.class, RecordsPruneCommand.class, RecordsExportCommand.class},
        description = {"List the calls a store recorded: the newest --limit calls matching every filter given, "
                + "oldest first: who approved each (approver), the framework's id of the call (request id, "
                + "clipped at 32 characters) and ToolYard's (call id, whole).",
                "Use 'records show CALL_ID' for one whole record."})
final class RecordsCommand implements Callable<Integer> {
    /** Where {@code call} writes and {@code records} reads when no {@code --store} is given. */
    static final Path DEFAULT_STORE = Path.of(System.getProperty("user.home"), ".toolyard", "records.db");

    /**
     * The table's widest approver: a reviewer's name is capped at 128 characters in the record, which would
     * push the call id off a terminal line; {@code records show} and {@code --json} print it whole.
     */
    static final int MAX_APPROVER = 24;
    /**
     * The table's widest framework call id: wide enough for the ids providers hand out (OpenAI's
     * {@code call_} and Anthropic's {@code toolu_} ids are about 30 characters) but not for any id a model
     * or client sends; {@code records show} and {@code --json} print it whole.
     */
    static final int MAX_REQUEST_ID = 32;

    @Spec
    CommandSpec spec;

    @Option(names = "--store", paramLabel = "FILE", description = "The SQLite file a demo or call wrote (default: ${DEFAULT-VALUE}).")
    Path store = DEFAULT_STORE;

    @Option(names = "--invocation", paramLabel = "ID", description = "Only this invocation's calls.")
    String invocation;

    @Option(names = "--tool", paramLabel = "NAME", description = "Only calls asking for this tool name.")
    String tool;

    @Option(names = "--status", paramLabel = "STATUS",
            description = "Only calls that ended so: ok, refused, failed, timeout or interrupted.")
    String status;

    @Option(names = "--since", paramLabel = "WHEN", description = "Only calls started at or after WHEN: an ISO-8601 "
            + "instant (2026-12-01T07:00:00Z) or an age counted back from now (90s, 15m, 2h, 7d, PT15M).")
    String since;

    @Option(names = "--limit", paramLabel = "N",
            description = "At most the N newest matching calls (default: ${DEFAULT-VALUE}).")
    int limit = 100;

    @Option(names = "--json", description = "Print one JSON object per line (JSON Lines): every field of each record.")
    boolean json;

    @Override
    public Integer call() {
        if (limit <= 0) {
            throw new Main.UserError("--limit must be positive, got " + limit);
        }
        CallQuery query = CallQuery.newest(limit);
        if (invocation != null) {
            query = query.invocationId(invocation);
        }
        if (tool != null) {
            query = query.toolName(tool);
        }
        if (status != null) {
            query = query.status(status(status));
        }
        if (since != null) {
            query = query.startedAtOrAfter(Since.parse(since, Instant.now()));
        }
        CallQuery q = query;
        List<ToolCallRecord> records = read(store, s -> s.find(q));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            for (ToolCallRecord r : records) {
                out.println(Json.MAPPER.writeValueAsString(RecordFields.json(r)));
            }
            out.flush();
            return 0;
        }
        Table table = new Table("started (UTC)", "invocation", "tool", "status", "reason", "ms", "approver",
                "request id", "call id");
        for (ToolCallRecord r : records) {
            table.row(r.startedAt().toString(), r.invocationId(), r.toolName(), r.status().wireName(),
                    r.reason().map(x -> x.wireName()).orElse(""),
                    String.format("%.1f", r.duration().toNanos() / 1e6), clip(r.approver(), MAX_APPROVER),
                    clip(r.requestCallId(), MAX_REQUEST_ID), r.callId());
        }
        table.print(out);
        out.println(records.size() + " record(s) in " + store
                + (records.size() == limit ? " (the newest " + limit + " that match; older ones may exist: raise --limit)"
                        : ""));
        return 0;
    }

    /** @return {@code text} whole when it fits {@code max} characters, else its start and an ellipsis */
    static String clip(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(max - 2)) ? max - 2 : max - 1; // never half a pair
        return text.substring(0, end) + "…";
    }

    private static ToolStatus status(String wireName) {
        try {
            return ToolStatus.fromWireName(wireName);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError("--status must be one of " + Arrays.stream(ToolStatus.values())
                    .map(ToolStatus::wireName).collect(Collectors.joining(", ")) + "; got '" + wireName + "'");
        }
    }

    /**
     * Opens an existing store, reads it and closes it; any failure to open or read is the user's to fix
     * (a wrong file), so it is one line and exit 2.
     */
    static <T> T read(Path store, Function<JdbcToolCallStore, T> reading) {
        if (!Files.isRegularFile(store)) {
            throw new Main.UserError("no store at " + store + " (run ./toolyard demo, or give the file a call wrote)");
        }
        try (JdbcToolCallStore s = JdbcToolCallStore.sqlite(store)) {
            return reading.apply(s);
        } catch (RuntimeException e) {
            throw new Main.UserError("cannot read " + store + " as a ToolYard store: " + e.getMessage());
        }
    }
}
