package dev.toolyard.cli;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.Json;
import dev.toolyard.store.jdbc.ExportCursor;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code toolyard records export --since WHEN [--until WHEN] [--cursor FILE]}: JSON Lines for an
 * audit pipeline, one record a line, in start-then-call-id order, with a cursor file so a nightly
 * job ships each record once.
 */
@Command(name = "export", description = {"Write the calls started in [--since, --until) as JSON Lines (UTF-8, one "
        + "record a line, each with \"exportVersion\":" + RecordsExportCommand.EXPORT_VERSION + "), ordered by start "
        + "time, then call id.",
        "With --cursor FILE, start after the record FILE names (if it exists) and rewrite FILE after each page "
                + "written, so the next run ships only what came after. Exits 2 for a bad option, cursor or store."})
final class RecordsExportCommand implements Callable<Integer> {
    /** The version of the line format; every line carries it. */
    static final int EXPORT_VERSION = 1;
    static final int PAGE = 1_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--store", paramLabel = "FILE", description = "The SQLite file a demo or call wrote (default: ${DEFAULT-VALUE}).")
    Path store = RecordsCommand.DEFAULT_STORE;

    @Option(names = "--since", paramLabel = "WHEN", required = true, description = "The earliest start, inclusive: an "
            + "ISO-8601 instant or an age (7d, 24h, PT90M).")
    String since;

    @Option(names = "--until", paramLabel = "WHEN", description = "The latest start, exclusive (default: 1h, an hour "
            + "ago, so that the calls exported have finished; a call still running is exported as interrupted).")
    String until = "1h";

    @Option(names = "--cursor", paramLabel = "FILE", description = "Resume after the record this file names, and "
            + "record the last one written in it.")
    Path cursorFile;

    @Option(names = "--limit", paramLabel = "N", description = "At most N records this run (default: no limit).")
    long limit = Long.MAX_VALUE;

    @Override
    public Integer call() throws IOException {
        Instant now = Instant.now();
        Instant from = parse("--since", since, now);
        Instant to = parse("--until", until, now);
        if (limit <= 0) {
            throw new Main.UserError("--limit must be positive, got " + limit);
        }
        ExportCursor start = cursorFile != null && Files.exists(cursorFile) ? readCursor(cursorFile) : null;
        PrintWriter out = spec.commandLine().getOut();
        long[] written = {0};
        RecordsCommand.read(store, s -> {
            export(s, from, to, start, out, written);
            return null;
        });
        spec.commandLine().getErr().println("exported " + written[0] + " record(s)" + (cursorFile == null ? ""
                : "; cursor in " + cursorFile));
        return 0;
    }

    private void export(JdbcToolCallStore s, Instant from, Instant to, ExportCursor start, PrintWriter out,
            long[] written) {
        ExportCursor cursor = start;
        while (written[0] < limit) {
            int page = (int) Math.min(PAGE, limit - written[0]);
            List<ToolCallRecord> records = s.exportAfter(from, to, cursor, page);
            for (ToolCallRecord r : records) {
                out.println(line(r));
            }
            out.flush();
            if (out.checkError()) {
                throw new Main.UserError("could not write the export (the output closed?); the cursor was not moved");
            }
            written[0] += records.size();
            if (records.isEmpty()) {
                break;
            }
            ToolCallRecord last = records.get(records.size() - 1);
            cursor = new ExportCursor(last.startedAt(), last.callId());
            if (cursorFile != null) {
                writeCursor(cursorFile, cursor);
            }
            if (records.size() < page) {
                break;
            }
        }
    }

    /** @return one line: the record's every field and the export version, with no line break inside */
    static String line(ToolCallRecord r) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("exportVersion", EXPORT_VERSION);
        o.setAll(RecordFields.json(r));
        return Json.MAPPER.writeValueAsString(o);
    }

    private static Instant parse(String option, String text, Instant now) {
        try {
            return Since.parse(text, now);
        } catch (Main.UserError e) {
            throw new Main.UserError(option + " takes an instant such as 2026-12-01T00:00:00Z or an age such as 24h,"
                    + " 7d or PT90M; got '" + text + "'");
        }
    }

    static ExportCursor readCursor(Path file) {
        try {
            JsonNode n = Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8));
            if (n.path("exportVersion").asInt(-1) != EXPORT_VERSION || !n.path("startedAt").isString()
                    || !n.path("callId").isString()) {
                throw new Main.UserError("the cursor file " + file + " is not a cursor this export wrote");
            }
            return new ExportCursor(Instant.parse(n.get("startedAt").asString()), n.get("callId").asString());
        } catch (IOException | JacksonException | DateTimeParseException e) {
            throw new Main.UserError("cannot read the cursor file " + file + ": " + e.getMessage());
        }
    }

    /** Written to a sibling file and moved over the old one, so a crash leaves the old cursor or the new. */
    static void writeCursor(Path file, ExportCursor cursor) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("exportVersion", EXPORT_VERSION);
        o.put("startedAt", cursor.startedAt().toString());
        o.put("callId", cursor.callId());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, Json.MAPPER.writeValueAsString(o) + "\n", StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new Main.UserError("cannot write the cursor file " + file + ": " + e.getMessage());
        }
    }
}
