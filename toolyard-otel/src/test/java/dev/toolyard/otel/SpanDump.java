package dev.toolyard.otel;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Finished spans as a trace view in a backend shows them: the tree by parent, each span's name, kind,
 * status, duration and sorted attributes. docs/observability.md carries one such dump from a real run;
 * {@link #masked} removes what differs between two runs (ids, durations) so the two can be compared.
 */
final class SpanDump {
    private static final Pattern HEX_ID = Pattern.compile("\\b[0-9a-f]{32}\\b|\\b[0-9a-f]{16}\\b");
    private static final Pattern UUID = Pattern.compile(
            "\\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b");
    private static final Pattern DURATION = Pattern.compile("\\b\\d+\\.\\d{3} ms\\b");

    private SpanDump() {}

    static String render(List<SpanData> spans) {
        StringBuilder out = new StringBuilder();
        List<SpanData> roots = spans.stream().filter(s -> spans.stream()
                .noneMatch(p -> p.getSpanId().equals(s.getParentSpanId()))).sorted(byStart()).toList();
        for (SpanData root : roots) {
            out.append("trace ").append(root.getTraceId()).append('\n');
            render(root, spans, "", out);
        }
        return out.toString();
    }

    private static void render(SpanData span, List<SpanData> all, String indent, StringBuilder out) {
        out.append(indent).append(span.getName()).append("  [").append(span.getKind()).append(", ")
                .append(span.getStatus().getStatusCode()).append(", ")
                .append(String.format(Locale.ROOT, "%.3f ms", (span.getEndEpochNanos() - span.getStartEpochNanos()) / 1e6))
                .append("]  span ").append(span.getSpanId()).append('\n');
        List<Map.Entry<AttributeKey<?>, Object>> attributes = new ArrayList<>(span.getAttributes().asMap().entrySet());
        attributes.sort(Comparator.comparing(e -> e.getKey().getKey()));
        for (Map.Entry<AttributeKey<?>, Object> e : attributes) {
            out.append(indent).append("    ").append(e.getKey().getKey()).append(" = ").append(e.getValue()).append('\n');
        }
        all.stream().filter(c -> c.getParentSpanId().equals(span.getSpanId())).sorted(byStart())
                .forEach(c -> render(c, all, indent + "  ", out));
    }

    private static Comparator<SpanData> byStart() {
        return Comparator.comparingLong(SpanData::getStartEpochNanos).thenComparing(SpanData::getName);
    }

    /** @return the dump with ids and durations replaced by placeholders, and line ends normalised */
    static String masked(String dump) {
        String s = dump.replace("\r\n", "\n").strip();
        s = UUID.matcher(s).replaceAll("<uuid>");
        s = HEX_ID.matcher(s).replaceAll("<id>");
        return DURATION.matcher(s).replaceAll("<ms>");
    }
}
