package dev.toolyard.cli;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.Json;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code toolyard records show CALL_ID}: one whole record. */
@Command(name = "show", description = "Print one whole record: every field, the arguments as kept (or, when "
        + "redacted, only their SHA-256), the reason and its detail, the summary, and the timings. "
        + "Exits 2 when the store holds no call with that id.")
final class RecordsShowCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CALL_ID", description = "The call id, as 'records' or a result shows it.")
    String callId;

    @Option(names = "--store", paramLabel = "FILE", description = "The SQLite file a demo or call wrote (default: ${DEFAULT-VALUE}).")
    Path store = RecordsCommand.DEFAULT_STORE;

    @Option(names = "--json", description = "Print the record as one JSON object.")
    boolean json;

    @Override
    public Integer call() {
        Optional<ToolCallRecord> found = RecordsCommand.read(store, s -> s.byCallId(callId));
        if (found.isEmpty()) {
            throw new Main.UserError("no call with id '" + printable(callId) + "' in " + store
                    + " (./toolyard records --store " + store + " lists the call ids)");
        }
        ToolCallRecord r = found.get();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.MAPPER.writeValueAsString(RecordFields.json(r)));
            out.flush();
            return 0;
        }
        Map<String, Object> fields = RecordFields.of(r);
        int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
        for (Map.Entry<String, Object> f : fields.entrySet()) {
            String value = printable(f.getKey().equals("network") ? network(r.network()) : RecordFields.text(f.getValue()));
            String indent = "\n" + " ".repeat(width);
            out.println(String.format("%-" + width + "s", f.getKey() + ":") + value.replace("\n", indent));
        }
        out.println(String.format("%-" + width + "s", "endedAt:") + printable(endedAt(r)));
        out.flush();
        return 0;
    }

    /**
     * The network record of a command with network, one line per destination: its totals, then
     * {@code reached pypi.test:443 127.0.0.1 x2 up 512 B down 4096 B}; the JSON as it is if it does not
     * read as one.
     */
    static String network(String json) {
        if (json.isEmpty()) {
            return "";
        }
        try {
            tools.jackson.databind.JsonNode n = Json.MAPPER.readTree(json);
            StringBuilder b = new StringBuilder();
            b.append(n.path("connections").asLong()).append(" connections, ").append(n.path("refused").asLong())
                    .append(" refused, up ").append(n.path("bytes_up").asLong()).append(" B, down ")
                    .append(n.path("bytes_down").asLong()).append(" B");
            for (tools.jackson.databind.JsonNode d : n.path("destinations")) {
                b.append('\n').append(d.path("outcome").asString()).append(' ').append(d.path("host").asString())
                        .append(':').append(d.path("port").asInt())
                        .append(d.path("address").asString().isEmpty() ? "" : " " + d.path("address").asString())
                        .append(" x").append(d.path("connections").asLong()).append(" up ")
                        .append(d.path("bytes_up").asLong()).append(" B down ").append(d.path("bytes_down").asLong())
                        .append(" B");
            }
            if (n.has("more_connections")) {
                b.append("\n... ").append(n.path("more_connections").asLong()).append(" more connections, up ")
                        .append(n.path("more_bytes_up").asLong()).append(" B down ")
                        .append(n.path("more_bytes_down").asLong()).append(" B");
            }
            return b.toString();
        } catch (RuntimeException e) {
            return json;
        }
    }

    private static String endedAt(ToolCallRecord r) {
        try {
            return r.startedAt().plus(r.duration()).toString();
        } catch (RuntimeException e) {
            return "(out of range)";
        }
    }

    /**
     * A record holds what a model and a handler chose; control characters other than a line break are
     * shown escaped, so that printing a record cannot drive the terminal.
     */
    static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (cp != '\n' && (Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT)) {
                b.append(String.format("\\u%04x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }
}
