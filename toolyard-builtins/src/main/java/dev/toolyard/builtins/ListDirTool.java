package dev.toolyard.builtins;

import dev.toolyard.EgressClass;
import dev.toolyard.PathAccess;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.Tool;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.internal.ContainedDirectory;
import dev.toolyard.builtins.internal.FileProblem;
import dev.toolyard.builtins.internal.PrintableName;
import dev.toolyard.builtins.internal.RootedPath;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * {@code list_dir}: the entries of one directory in a read root or the write root, one line each,
 * sorted by name (Unicode code point order), marked {@code file} (with its size), {@code dir},
 * {@code link} or {@code other} (FIFO, socket, device). Links are examined, never followed, and their
 * targets are not shown (a target may name a place outside the workspace). At most the cap of entries
 * is shown, the first ones in sorted order; a last line counts the rest. Names are escaped so that no
 * name can forge a line. Memory stays in proportion to the cap, not to the directory. Immutable.
 * Thread-safe.
 */
final class ListDirTool implements ToolHandler {
    static final String NAME = "list_dir";
    static final int DEFAULT_MAX_ENTRIES = 1000;
    private static final String PATH = "path";
    private static final Comparator<String> BY_CODE_POINT = ListDirTool::compareCodePoints;

    private final int maxEntries;

    private ListDirTool(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /** @param maxEntries a cap already checked by {@link BuiltinTools} */
    static Tool create(int maxEntries) {
        return new Tool(spec(maxEntries), new ListDirTool(maxEntries));
    }

    static ToolSpec spec(int maxEntries) {
        return ToolSpec.builder(NAME)
                .description("List a directory in the workspace: one line per entry, sorted by name, marked file"
                        + " (with its size in bytes), dir, link or other. At most " + maxEntries + " entries are"
                        + " shown; a last line says how many more were omitted. Symbolic links are listed, never"
                        + " followed. Relative paths start at the workspace root; \".\" is the root itself.")
                .argsSchema("{\"type\":\"object\","
                        + "\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
                        + "\"description\":\"The directory to list, relative to the workspace root.\"}},"
                        + "\"required\":[\"path\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .pathArg(PATH, PathAccess.READ)
                .cooperative(true) // bounded by its entry cap
                .build();
    }

    @Override
    public ToolOutput handle(ToolArgs args, ToolContext context) throws IOException {
        try {
            return list(RootedPath.forReading(args.path(PATH), context.workspace()));
        } catch (FileProblem p) {
            return p.toOutput();
        }
    }

    private ToolOutput list(RootedPath target) throws FileProblem, IOException {
        String shown = target.display();
        try (ContainedDirectory root = ContainedDirectory.openRoot(target.root());
                ContainedDirectory parent = root.walk(target.parentNames());
                ContainedDirectory dir = target.isRoot() ? parent.walk(List.of()) : open(parent, target.fileName())) {
            // The first maxEntries names in sorted order, kept in a heap whose head is the largest kept.
            PriorityQueue<String> kept = new PriorityQueue<>(Math.min(maxEntries, 1024) + 1, BY_CODE_POINT.reversed());
            long[] total = {0};
            dir.forEachName(name -> {
                if (++total[0] % 4096 == 0 && Thread.currentThread().isInterrupted()) {
                    throw new StopListing();
                }
                if (kept.size() < maxEntries) {
                    kept.add(name);
                } else if (compareCodePoints(name, kept.peek()) < 0) {
                    kept.poll();
                    kept.add(name);
                }
            });
            List<String> names = new ArrayList<>(kept);
            Collections.sort(names, BY_CODE_POINT);
            StringBuilder out = new StringBuilder();
            int shownEntries = 0;
            for (String name : names) {
                Optional<BasicFileAttributes> a = dir.attributes(name);
                if (a.isPresent()) { // else removed since it was read: gone, not omitted
                    line(out, name, a.get());
                    shownEntries++;
                }
            }
            long omitted = total[0] - names.size();
            if (total[0] == 0) {
                out.append("(empty directory)\n");
            } else if (omitted > 0) {
                out.append("[omitted: ").append(omitted).append(omitted == 1 ? " more entry" : " more entries")
                        .append(", ").append(total[0]).append(" in total]\n");
            }
            String summary = "listed " + shownEntries + " of " + total[0] + " entries in " + shown;
            return ToolOutput.of(out.toString(), summary);
        } catch (StopListing e) {
            throw new InterruptedIOException("interrupted while listing");
        }
    }

    private static ContainedDirectory open(ContainedDirectory parent, String name) throws FileProblem, IOException {
        Optional<BasicFileAttributes> a = parent.attributes(name);
        if (a.isPresent() && a.get().isSymbolicLink()) {
            throw ContainedDirectory.linkRefused(parent.display(name));
        }
        if (a.isPresent() && !a.get().isDirectory()) {
            // The closed set of reasons has no "not a directory"; the detail says which kind it is.
            throw new FileProblem(Reason.NOT_A_REGULAR_FILE, parent.display(name) + " is not a directory but "
                    + (a.get().isRegularFile() ? "a regular file" : ReadFileTool.kind(a.get())));
        }
        return parent.openDirectory(name);
    }

    private static void line(StringBuilder out, String name, BasicFileAttributes a) {
        String printable = PrintableName.of(name);
        if (a.isSymbolicLink()) {
            out.append("link\t").append(printable);
        } else if (a.isDirectory()) {
            out.append("dir\t").append(printable).append('/');
        } else if (a.isRegularFile()) {
            out.append("file\t").append(printable).append('\t').append(a.size())
                    .append(a.size() == 1 ? " byte" : " bytes");
        } else {
            out.append("other\t").append(printable);
        }
        out.append('\n');
    }

    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /** Unwinds out of the listing callback when the executor's deadline has passed. */
    private static final class StopListing extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StopListing() {
            super(null, null, false, false);
        }
    }
}
