package dev.toolyard.cli;

import dev.toolyard.store.jdbc.PruneResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code toolyard records prune --older-than 30d}: retention, by the store's own {@code prune}. */
@Command(name = "prune", description = {"Remove every call that started more than --older-than ago, while other "
        + "processes may keep writing to the store (deletes in batches of 5,000, each its own short transaction).",
        "Exits 2 for a bad age or a file that is not a store."})
final class RecordsPruneCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--store", paramLabel = "FILE", description = "The SQLite file a demo or call wrote (default: ${DEFAULT-VALUE}).")
    Path store = RecordsCommand.DEFAULT_STORE;

    @Option(names = "--older-than", paramLabel = "AGE", required = true, description = "Remove the calls started "
            + "before now minus AGE: a whole number and s, m, h or d (30d, 12h), or ISO-8601 (PT90M). Positive.")
    String olderThan;

    @Override
    public Integer call() {
        Instant now = Instant.now();
        String t = olderThan.strip();
        if (!t.matches("\\d{1,9}[smhd]") && !t.matches("[Pp].*")) {
            throw new Main.UserError("--older-than takes an age such as 30d, 12h, 90m or PT90M; got '" + olderThan + "'");
        }
        Instant cut;
        try {
            cut = Since.parse(t, now);
        } catch (Main.UserError e) {
            throw new Main.UserError("--older-than takes an age such as 30d, 12h, 90m or PT90M; got '" + olderThan + "'");
        }
        if (!cut.isBefore(now)) {
            throw new Main.UserError("--older-than must be a positive age, got '" + olderThan + "'");
        }
        PruneResult r = RecordsCommand.read(store, s -> s.prune(cut));
        PrintWriter out = spec.commandLine().getOut();
        out.println("removed " + r.removed() + " call(s) started before " + cut + " from " + store
                + (r.partitionsDropped().isEmpty() ? "" : " (" + r.partitionsDropped().size() + " partition(s) dropped)"));
        out.flush();
        return 0;
    }
}
