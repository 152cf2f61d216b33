package dev.toolyard.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns one JMH run ({@code -rf json}, with {@code -prof gc}) into {@code latest.md} and
 * {@code latest.json}: every row of {@link SuiteRows} with its figure, error, baseline, ratio and
 * verdict per target, a date and machine line, and every raw result.
 *
 * <p>Usage: {@code ResultsReport JMH_JSON OUT_DIR [--started EPOCH_SECONDS] [--load-before "L1 L5 L15"]
 * [--label TEXT] [--command TEXT] [--notes MARKDOWN_FILE]}. The notes file (the one current note of
 * open items: what limits each missed target and what would fix it) is linked from the report, never
 * copied into it. Each result keeps its own JMH settings (forks, warm-up, measurement), and the header
 * states them per benchmark class. Exits 1 if the JMH file holds no results.
 *
 * <p>{@code ResultsReport --rerender LATEST_JSON OUT_DIR [--correction TEXT]} renders
 * {@code latest.md} again from an existing {@code latest.json}, numbers untouched, with each missed
 * row's "limited by" text taken from {@link SuiteRows} as it is now and the dated correction added to
 * the report's list of corrections: for a fix to the report's text without a new run.
 */
public final class ResultsReport {
    private static final String PACKAGE = "dev.toolyard.benchmarks.";
    private static final String ALLOCATION = "gc.alloc.rate.norm";
    private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private ResultsReport() {}

    public static void main(String[] argv) throws IOException {
        if (argv.length >= 3 && argv[0].equals("--rerender")) {
            rerender(Path.of(argv[1]), Path.of(argv[2]), argv.length >= 5 && argv[3].equals("--correction") ? argv[4] : null);
            return;
        }
        if (argv.length < 2) {
            System.err.println("usage: ResultsReport JMH_JSON OUT_DIR [--started EPOCH] [--load-before TEXT]"
                    + " [--label TEXT] [--command TEXT] [--notes FILE]");
            System.exit(2);
        }
        Path jmh = Path.of(argv[0]);
        Path out = Path.of(argv[1]);
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 2; i + 1 < argv.length; i += 2) {
            options.put(argv[i], argv[i + 1]);
        }
        JsonNode results = MAPPER.readTree(Files.readString(jmh, StandardCharsets.UTF_8));
        if (!results.isArray() || results.isEmpty()) {
            System.err.println(jmh + " holds no JMH results");
            System.exit(1);
        }
        Map<String, JsonNode> byKey = new LinkedHashMap<>();
        for (JsonNode r : results) {
            byKey.put(key(r), r);
        }

        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        ObjectNode report = MAPPER.createObjectNode();
        report.put("date", now.toString());
        if (options.containsKey("--started")) {
            report.put("durationSeconds", now.getEpochSecond() - Long.parseLong(options.get("--started")));
        }
        if (options.containsKey("--label")) {
            report.put("label", options.get("--label"));
        }
        report.put("command", options.getOrDefault("--command", "benchmarks/run.sh"));
        report.set("machine", machine(results.get(0), options.get("--load-before")));
        report.set("jmh", settings(results));
        ArrayNode rows = report.putArray("rows");
        for (Row row : SuiteRows.ROWS) {
            rows.add(judge(row, byKey));
        }
        ArrayNode raw = report.putArray("results");
        for (Map.Entry<String, JsonNode> e : byKey.entrySet()) {
            raw.add(rawResult(e.getKey(), e.getValue()));
        }

        if (options.containsKey("--notes")) {
            Path notes = Path.of(options.get("--notes")).toAbsolutePath();
            report.put("openItems", out.toAbsolutePath().relativize(notes).toString());
        }

        Files.createDirectories(out);
        Files.writeString(out.resolve("latest.json"), MAPPER.writeValueAsString(report) + "\n", StandardCharsets.UTF_8);
        Files.writeString(out.resolve("latest.md"), Markdown.render(report), StandardCharsets.UTF_8);
        System.out.println("wrote " + out.resolve("latest.md") + " and " + out.resolve("latest.json"));
    }

    private static void rerender(Path json, Path out, String correction) throws IOException {
        JsonNode read = MAPPER.readTree(Files.readString(json, StandardCharsets.UTF_8));
        if (!(read instanceof ObjectNode report) || !report.has("rows") || !report.has("results")) {
            System.err.println(json + " is not a latest.json written by ResultsReport");
            System.exit(1);
            return;
        }
        // The text the generator owns (what limits a missed row) is taken from SuiteRows as it is now.
        for (JsonNode row : report.get("rows")) {
            if (row instanceof ObjectNode o && o.has("limitedBy")) {
                for (Row current : SuiteRows.ROWS) {
                    if (current.id().equals(o.path("id").asString()) && current.limitedBy() != null) {
                        o.put("limitedBy", current.limitedBy());
                    }
                }
            }
        }
        if (correction != null) {
            JsonNode list = report.get("corrections");
            ArrayNode corrections = list instanceof ArrayNode a ? a : report.putArray("corrections");
            corrections.add(correction);
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("latest.json"), MAPPER.writeValueAsString(report) + "\n", StandardCharsets.UTF_8);
        Files.writeString(out.resolve("latest.md"), Markdown.render(report), StandardCharsets.UTF_8);
        System.out.println("rendered " + out.resolve("latest.md") + " again from " + json + "; numbers untouched");
    }

    /** {@code Class.method}, then {@code :name=value,...} for a parameterised benchmark. */
    static String key(JsonNode result) {
        String name = result.get("benchmark").asString();
        if (name.startsWith(PACKAGE)) {
            name = name.substring(PACKAGE.length());
        }
        JsonNode params = result.get("params");
        if (params == null || params.isEmpty()) {
            return name;
        }
        StringBuilder key = new StringBuilder(name).append(':');
        Iterator<Map.Entry<String, JsonNode>> it = params.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> p = it.next();
            key.append(p.getKey()).append('=').append(p.getValue().asString());
            if (it.hasNext()) {
                key.append(',');
            }
        }
        return key.toString();
    }

    static Measured measured(String key, JsonNode result, Row.Metric metric) {
        if (result == null) {
            return null;
        }
        JsonNode m = metric == Row.Metric.SCORE ? result.get("primaryMetric") : result.path("secondaryMetrics").get(ALLOCATION);
        if (m == null) {
            return null;
        }
        return new Measured(key, number(m.get("score")), number(m.get("scoreError")), m.get("scoreUnit").asString());
    }

    /** JMH writes "NaN" as a string when it has no error estimate. */
    private static double number(JsonNode n) {
        if (n == null || n.isNull()) {
            return Double.NaN;
        }
        return n.isNumber() ? n.doubleValue() : Double.parseDouble(n.asString());
    }

    private static ObjectNode judge(Row row, Map<String, JsonNode> byKey) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("id", row.id());
        o.put("title", row.title());
        o.put("metric", row.metric() == Row.Metric.SCORE ? "score" : ALLOCATION);
        Measured figure = measured(row.figure(), byKey.get(row.figure()), row.metric());
        Measured baseline = row.baseline() == null ? null
                : measured(row.baseline(), byKey.get(row.baseline()), row.metric());
        o.set("figure", figure == null ? missing(row.figure()) : measuredNode(figure));
        if (row.baseline() != null) {
            o.set("baseline", baseline == null ? missing(row.baseline()) : measuredNode(baseline));
        }
        double[] ratio = Row.ratio(figure, baseline);
        if (ratio != null) {
            o.put("ratio", ratio[0]);
            putNumber(o, "ratioError", ratio[1]);
        }
        ArrayNode targets = o.putArray("targets");
        String verdict;
        if (figure == null || (row.baseline() != null && baseline == null)) {
            verdict = row.pending() != null ? "not measured: " + row.pending() : "not measured: missing from this run";
            for (Target t : row.targets()) {
                targets.addObject().put("target", t.text()).put("verdict", "not measured");
            }
        } else if (row.targets().isEmpty()) {
            verdict = "reported";
        } else {
            boolean allMet = true;
            boolean anyWithin = false;
            for (Target t : row.targets()) {
                Target.Judged j = t.judge(figure, baseline);
                ObjectNode tn = targets.addObject().put("target", t.text());
                if (j == null) {
                    tn.put("verdict", "not judged: units do not convert");
                    allMet = false;
                    continue;
                }
                tn.put("value", j.value());
                putNumber(tn, "error", j.error());
                tn.put("unit", j.unit());
                tn.put("verdict", j.verdict());
                allMet &= j.met();
                anyWithin |= j.withinError();
            }
            verdict = (allMet ? "met" : "missed") + (anyWithin ? " (within error)" : "");
            if (!allMet && row.limitedBy() != null) {
                o.put("limitedBy", row.limitedBy());
            }
        }
        o.put("verdict", verdict);
        return o;
    }

    private static ObjectNode missing(String key) {
        return MAPPER.createObjectNode().put("benchmark", key).putNull("score");
    }

    private static ObjectNode measuredNode(Measured m) {
        ObjectNode n = MAPPER.createObjectNode().put("benchmark", m.benchmark()).put("score", m.score());
        putNumber(n, "error", m.error());
        return n.put("unit", m.unit());
    }

    private static void putNumber(ObjectNode o, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(field);
        } else {
            o.put(field, v);
        }
    }

    private static ObjectNode rawResult(String key, JsonNode r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("benchmark", key);
        o.put("mode", r.path("mode").asString());
        o.put("threads", r.path("threads").asInt());
        o.put("forks", r.path("forks").asInt());
        o.put("warmup", iterations(r, "warmup"));
        o.put("measurement", iterations(r, "measurement"));
        Measured score = measured(key, r, Row.Metric.SCORE);
        o.put("score", score.score());
        putNumber(o, "error", score.error());
        o.put("unit", score.unit());
        Measured alloc = measured(key, r, Row.Metric.ALLOCATION);
        if (alloc != null) {
            o.put("allocBytesPerOp", alloc.score());
            putNumber(o, "allocError", alloc.error());
        }
        return o;
    }

    private static ObjectNode machine(JsonNode first, String loadBefore) {
        ObjectNode m = MAPPER.createObjectNode();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put("memory", memTotal());
        m.put("jdk", first.path("jdkVersion").asString());
        m.put("vm", first.path("vmName").asString() + " " + first.path("vmVersion").asString());
        if (loadBefore != null) {
            m.put("loadAverageBefore", loadBefore.trim());
        }
        m.put("loadAverageAfter", loadAverage());
        return m;
    }

    /** {@code "5 x 1 s"}: a result's own iteration count and time for {@code warmup} or {@code measurement}. */
    private static String iterations(JsonNode result, String phase) {
        return result.path(phase + "Iterations").asInt() + " x " + result.path(phase + "Time").asString();
    }

    /**
     * The JMH version, the JVM arguments of the first result, and one configuration per benchmark
     * class: mode, forks, warm-up and measurement as each class's results ran them (a class whose
     * methods ran differently lists each setting it saw).
     */
    private static ObjectNode settings(JsonNode results) {
        JsonNode first = results.get(0);
        ObjectNode s = MAPPER.createObjectNode();
        s.put("version", first.path("jmhVersion").asString());
        s.set("jvmArgs", first.path("jvmArgs"));
        Map<String, ObjectNode> byClass = new LinkedHashMap<>();
        for (JsonNode r : results) {
            String key = key(r);
            String cls = key.substring(0, key.indexOf('.'));
            ObjectNode c = byClass.computeIfAbsent(cls, k -> MAPPER.createObjectNode().put("class", k));
            addDistinct(c, "mode", r.path("mode").asString());
            addDistinct(c, "forks", Integer.toString(r.path("forks").asInt()));
            addDistinct(c, "warmup", iterations(r, "warmup"));
            addDistinct(c, "measurement", iterations(r, "measurement"));
        }
        ArrayNode configurations = s.putArray("configurations");
        byClass.values().forEach(configurations::add);
        return s;
    }

    private static void addDistinct(ObjectNode c, String field, String value) {
        String seen = c.path(field).asString(null);
        if (seen == null) {
            c.put(field, value);
        } else if (!(", " + seen + ", ").contains(", " + value + ", ")) {
            c.put(field, seen + ", " + value);
        }
    }

    private static String cpuModel() {
        for (String line : lines("/proc/cpuinfo")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown (no /proc/cpuinfo)";
    }

    private static String memTotal() {
        for (String line : lines("/proc/meminfo")) {
            if (line.startsWith("MemTotal:")) {
                long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                return (kb >> 20) + " GiB";
            }
        }
        return "unknown";
    }

    private static String loadAverage() {
        List<String> l = lines("/proc/loadavg");
        if (l.isEmpty()) {
            return "unknown";
        }
        String[] parts = l.get(0).split(" ");
        return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : l.get(0);
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return new ArrayList<>();
        }
    }
}
