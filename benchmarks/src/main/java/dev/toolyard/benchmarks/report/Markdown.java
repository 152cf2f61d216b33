package dev.toolyard.benchmarks.report;

import tools.jackson.databind.JsonNode;

/** Renders the report that {@link ResultsReport} builds as {@code latest.md}, from the same tree as {@code latest.json}. */
final class Markdown {
    private Markdown() {}

    static String render(JsonNode report) {
        StringBuilder md = new StringBuilder();
        md.append("# ToolYard benchmarks: latest run\n\n");
        if (report.has("label")) {
            md.append("> **").append(report.get("label").asString()).append("**\n\n");
        }
        if (report.has("corrections")) {
            for (JsonNode c : report.get("corrections")) {
                md.append("> **Corrected without a new run:** ").append(c.asString()).append("\n");
            }
            md.append('\n');
        }
        JsonNode m = report.get("machine");
        JsonNode jmh = report.get("jmh");
        md.append("- **Date:** ").append(report.get("date").asString());
        if (report.has("durationSeconds")) {
            long s = report.get("durationSeconds").asLong();
            md.append(" (whole run, build included: ").append(s / 60).append(" min ").append(s % 60).append(" s)");
        }
        md.append("\n- **Machine:** ").append(m.get("cores").asInt()).append(" cores, ")
                .append(m.get("cpu").asString()).append(", ").append(m.get("memory").asString())
                .append("; JDK ").append(m.get("jdk").asString()).append(" (").append(m.get("vm").asString())
                .append(")\n- **Load average (1/5/15 min):** before ")
                .append(m.path("loadAverageBefore").asString("unknown")).append(", after ")
                .append(m.get("loadAverageAfter").asString())
                .append("\n- **Command:** `").append(report.get("command").asString()).append("`")
                .append("\n- **JMH ").append(jmh.get("version").asString()).append(",** `-prof gc`, JVM ")
                .append(jvmArgs(jmh)).append("; each class as it ran:\n\n");
        md.append("| class | mode | forks | warm-up | measurement |\n|---|---|---|---|---|\n");
        for (JsonNode c : jmh.get("configurations")) {
            md.append("| `").append(c.get("class").asString()).append("` | ").append(c.get("mode").asString())
                    .append(" | ").append(c.get("forks").asString()).append(" | ").append(c.get("warmup").asString())
                    .append(" | ").append(c.get("measurement").asString()).append(" |\n");
        }
        md.append('\n');
        md.append("Errors are the half-width of JMH's 99.9% confidence interval. Every ratio is figure / baseline")
                .append(" from this same run. A verdict marked *(within error)* has its limit inside the error")
                .append(" and may flip between runs.\n\n");

        md.append("| row | figure | baseline | ratio | target | verdict |\n|---|---|---|---|---|---|\n");
        for (JsonNode row : report.get("rows")) {
            md.append("| ").append(row.get("title").asString()).append(" | ").append(cell(row.get("figure")))
                    .append(" | ").append(row.has("baseline") ? cell(row.get("baseline")) : "—").append(" | ")
                    .append(row.has("ratio") ? "×" + Target.number(row.get("ratio").asDouble())
                            + error(row.get("ratioError")) : "—")
                    .append(" | ").append(targets(row)).append(" | ").append(verdict(row)).append(" |\n");
        }

        StringBuilder missed = new StringBuilder();
        for (JsonNode row : report.get("rows")) {
            if (row.get("verdict").asString().startsWith("missed")) {
                missed.append("- **").append(row.get("title").asString()).append("**: ");
                boolean first = true;
                for (JsonNode t : row.get("targets")) {
                    if (t.get("verdict").asString().startsWith("missed")) {
                        missed.append(first ? "" : "; ").append(t.get("target").asString()).append(" (was ")
                                .append(Target.number(t.get("value").asDouble())).append(' ')
                                .append(Units.display(t.get("unit").asString())).append(')');
                        first = false;
                    }
                }
                missed.append(". Limited by: ").append(row.path("limitedBy").asString("not profiled yet"))
                        .append(".\n");
            }
        }
        if (!missed.isEmpty()) {
            md.append("\n## Targets missed\n\n").append(missed);
        }

        md.append("\n## Every result\n\n| benchmark | mode | threads | score | allocated |\n|---|---|---|---|---|\n");
        for (JsonNode r : report.get("results")) {
            md.append("| `").append(r.get("benchmark").asString()).append("` | ").append(r.get("mode").asString())
                    .append(" | ").append(r.get("threads").asInt()).append(" | ")
                    .append(Target.number(r.get("score").asDouble())).append(error(r.get("error"))).append(' ')
                    .append(Units.display(r.get("unit").asString())).append(" | ")
                    .append(r.has("allocBytesPerOp") ? Target.number(r.get("allocBytesPerOp").asDouble())
                            + error(r.get("allocError")) + " B/op" : "—")
                    .append(" |\n");
        }
        if (report.has("openItems")) {
            md.append("\n## Open items\n\nWhat limits each missed target, what would fix it, and what is still open:"
                    + " [the closing note](").append(report.get("openItems").asString())
                    .append("), kept current in one place and not copied here.\n");
        }
        return md.toString();
    }

    private static String jvmArgs(JsonNode jmh) {
        StringBuilder s = new StringBuilder();
        for (JsonNode a : jmh.path("jvmArgs")) {
            s.append(s.isEmpty() ? "" : " ").append(a.asString());
        }
        return s.isEmpty() ? "defaults" : "`" + s + "`";
    }

    private static String cell(JsonNode measured) {
        if (measured.get("score").isNull()) {
            return "not measured";
        }
        return Target.number(measured.get("score").asDouble()) + error(measured.get("error")) + " "
                + Units.display(measured.get("unit").asString()) + "<br>`" + measured.get("benchmark").asString() + "`";
    }

    private static String error(JsonNode e) {
        return e == null || e.isNull() ? " ± ?" : " ± " + Target.number(e.asDouble());
    }

    private static String targets(JsonNode row) {
        if (row.get("targets").isEmpty()) {
            return "report";
        }
        StringBuilder s = new StringBuilder();
        for (JsonNode t : row.get("targets")) {
            if (!s.isEmpty()) {
                s.append("<br>");
            }
            s.append(t.get("target").asString());
            if (t.has("value")) {
                s.append(" (").append(Target.number(t.get("value").asDouble())).append(error(t.get("error")))
                        .append(' ').append(Units.display(t.get("unit").asString())).append(": ")
                        .append(t.get("verdict").asString()).append(')');
            }
        }
        return s.toString();
    }

    private static String verdict(JsonNode row) {
        String v = row.get("verdict").asString();
        if (v.startsWith("met")) {
            return "**" + v + "**";
        }
        if (v.startsWith("missed")) {
            return "**" + v.toUpperCase(java.util.Locale.ROOT) + "**";
        }
        return v;
    }
}
