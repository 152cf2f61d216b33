package dev.toolyard.policy;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.policy.internal.Jsons;
import dev.toolyard.spi.ToolCallReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Reads observed calls from ToolYard's records (any {@link ToolCallReader}: SQLite, PostgreSQL, in memory)
 * or from OTLP/JSON trace files holding GenAI {@code execute_tool} spans from any agent. Arguments that a
 * record withheld (redacted, or over the record's size cap) or a span did not capture come back as
 * {@code null}: nothing can be learned from them. Stateless; thread-safe.
 */
public final class CallSources {
    private static final Pattern OMITTED = Pattern.compile("^\\{\"omitted\":true,\"bytes\":(\\d+)}$");
    private static final Set<String> POLICY_REFUSALS = Set.of("policy_denied", "policy_error");

    private CallSources() {}

    /**
     * @param reader a store's read side; never {@code null}
     * @return every call it holds, in append order
     */
    public static List<ObservedCall> fromStore(ToolCallReader reader) {
        return fromRecords(reader.recent(Integer.MAX_VALUE));
    }

    /**
     * @param records records; never {@code null}
     * @return one observed call per record, in the same order
     */
    public static List<ObservedCall> fromRecords(List<ToolCallRecord> records) {
        List<ObservedCall> out = new ArrayList<>(records.size());
        for (ToolCallRecord r : records) {
            out.add(new ObservedCall(r.agent(), r.invocationId(), r.toolName(), arguments(r),
                    r.status() != ToolStatus.REFUSED));
        }
        return out;
    }

    /** @return the record's arguments as an object, or {@code null} when it withheld them or they are not an object */
    static JsonNode arguments(ToolCallRecord r) {
        if (r.argumentsRedacted()) {
            return null;
        }
        String text = r.arguments();
        if (OMITTED.matcher(text).matches() && !sha256(text).equals(r.argumentsSha256())) {
            return null; // the executor's size marker, not what the model sent
        }
        try {
            JsonNode n = Jsons.MAPPER.readTree(text);
            return n != null && n.isObject() ? n : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads {@code execute_tool} spans from OTLP/JSON: a file holding one export request, a {@code .jsonl}
     * file holding one per line (as the collector's file exporter writes), or a directory of such files
     * (read in name order). The agent is the span's (or else the resource's) {@code gen_ai.agent.name};
     * the invocation is {@code gen_ai.conversation.id} when present, otherwise the trace id; a span whose
     * {@code error.type} is one of ToolYard's refusal reasons was refused and is not learned from.
     *
     * @param path a file or a directory; never {@code null}
     * @return the calls, ordered by start time, trace id and span id
     * @throws IllegalArgumentException naming the file if one is not OTLP/JSON
     * @throws UncheckedIOException if a file cannot be read
     */
    public static List<ObservedCall> fromTraces(Path path) {
        List<Path> files = new ArrayList<>();
        try {
            if (Files.isDirectory(path)) {
                try (Stream<Path> s = Files.list(path)) {
                    s.filter(p -> p.toString().endsWith(".json") || p.toString().endsWith(".jsonl")).sorted()
                            .forEach(files::add);
                }
            } else {
                files.add(path);
            }
            List<Span> spans = new ArrayList<>();
            for (Path f : files) {
                String text = Files.readString(f, StandardCharsets.UTF_8);
                List<String> docs = f.toString().endsWith(".jsonl") ? text.lines().filter(l -> !l.isBlank()).toList()
                        : List.of(text);
                for (String d : docs) {
                    JsonNode root;
                    try {
                        root = Jsons.MAPPER.readTree(d);
                    } catch (JacksonException e) {
                        throw new IllegalArgumentException(f + " is not OTLP/JSON: " + e.getOriginalMessage());
                    }
                    if (root == null || !root.path("resourceSpans").isArray()) {
                        throw new IllegalArgumentException(f + " is not OTLP/JSON: no \"resourceSpans\" array");
                    }
                    readRequest(root, spans);
                }
            }
            spans.sort(Comparator.comparing(Span::start).thenComparing(Span::traceId).thenComparing(Span::spanId));
            List<ObservedCall> out = new ArrayList<>(spans.size());
            spans.forEach(s -> out.add(s.call()));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Span(BigInteger start, String traceId, String spanId, ObservedCall call) {}

    private static void readRequest(JsonNode root, List<Span> out) {
        for (JsonNode rs : root.get("resourceSpans").values()) {
            Map<String, JsonNode> resource = attributes(rs.path("resource").path("attributes"));
            for (JsonNode ss : rs.path("scopeSpans").values()) {
                for (JsonNode span : ss.path("spans").values()) {
                    Map<String, JsonNode> attrs = attributes(span.path("attributes"));
                    String op = text(attrs.get("gen_ai.operation.name"));
                    String tool = text(attrs.get("gen_ai.tool.name"));
                    if (tool == null || !("execute_tool".equals(op) || span.path("name").asString("").startsWith("execute_tool"))) {
                        continue;
                    }
                    String agent = text(attrs.get("gen_ai.agent.name"));
                    if (agent == null) {
                        agent = text(resource.get("gen_ai.agent.name"));
                    }
                    String traceId = span.path("traceId").asString("");
                    String conversation = text(attrs.get("gen_ai.conversation.id"));
                    JsonNode args = null;
                    String argText = text(attrs.get("gen_ai.tool.call.arguments"));
                    if (argText != null) {
                        try {
                            JsonNode parsed = Jsons.MAPPER.readTree(argText);
                            args = parsed != null && parsed.isObject() ? parsed : null;
                        } catch (JacksonException e) {
                            args = null;
                        }
                    }
                    String error = text(attrs.get("error.type"));
                    boolean admitted = error == null || !refusal(error);
                    BigInteger start;
                    try {
                        start = new BigInteger(span.path("startTimeUnixNano").asString("0"));
                    } catch (NumberFormatException e) {
                        start = BigInteger.ZERO;
                    }
                    out.add(new Span(start, traceId, span.path("spanId").asString(""), new ObservedCall(
                            agent == null ? "" : agent, conversation != null ? conversation : traceId, tool, args, admitted)));
                }
            }
        }
    }

    private static boolean refusal(String errorType) {
        if (POLICY_REFUSALS.contains(errorType)) {
            return true;
        }
        for (Reason r : Reason.values()) {
            if (r.wireName().equals(errorType)) {
                return r.status() == ToolStatus.REFUSED;
            }
        }
        return false;
    }

    private static Map<String, JsonNode> attributes(JsonNode list) {
        Map<String, JsonNode> m = new TreeMap<>();
        for (JsonNode kv : list.values()) {
            if (kv.path("key").isString()) {
                m.put(kv.get("key").stringValue(), kv.path("value"));
            }
        }
        return m;
    }

    private static String text(JsonNode anyValue) {
        if (anyValue == null) {
            return null;
        }
        JsonNode s = anyValue.get("stringValue");
        return s != null && s.isString() ? s.stringValue() : null;
    }
}
