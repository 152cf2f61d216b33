package dev.toolyard.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table a person can read at a glance. Not thread-safe. */
public final class Table {
    private static final int MAX_CELL = 60;
    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();

    /** @param headers the column headers */
    public Table(String... headers) {
        this.headers = headers.clone();
    }

    /** @param cells one cell per column; long cells are clipped and line breaks shown as spaces */
    public void row(String... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("expected " + headers.length + " cells, got " + cells.length);
        }
        String[] clean = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i] == null ? "" : cells[i].replaceAll("\\p{Cntrl}", " ");
            clean[i] = c.length() > MAX_CELL ? c.substring(0, MAX_CELL - 1) + "…" : c;
        }
        rows.add(clean);
    }

    /** @param out where to print */
    public void print(PrintWriter out) {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].length();
            for (String[] r : rows) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        line(out, headers, widths);
        StringBuilder rule = new StringBuilder();
        for (int w : widths) {
            rule.append("-".repeat(w)).append("  ");
        }
        out.println(rule.toString().stripTrailing());
        for (String[] r : rows) {
            line(out, r, widths);
        }
        out.flush();
    }

    private static void line(PrintWriter out, String[] cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            b.append(cells[i]).append(" ".repeat(widths[i] - cells[i].length() + 2));
        }
        out.println(b.toString().stripTrailing());
    }
}
