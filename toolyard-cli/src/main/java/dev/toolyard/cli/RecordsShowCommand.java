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
            String value = printable(RecordFields.text(f.getValue()));
            String indent = "\n" + " ".repeat(width);
            out.println(String.format("%-" + width + "s", f.getKey() + ":") + value.replace("\n", indent));
        }
        out.println(String.format("%-" + width + "s", "endedAt:") + printable(endedAt(r)));
        out.flush();
        return 0;
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
