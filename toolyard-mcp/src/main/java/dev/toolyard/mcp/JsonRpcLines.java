package dev.toolyard.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns one line a client sent into either a message for the session or the JSON-RPC error that answers
 * it, so that no line, however malformed, ends the session. The codes are JSON-RPC 2.0's: -32700 for a
 * line that is not JSON, -32600 for JSON that is not a request MCP accepts (a batch, which MCP 2025-06-18
 * removed; an id that is neither a string nor an integer, as MCP requires; a message over the size or
 * depth limit that is not a {@code tools/call}). A {@code tools/call} that cannot be read whole (over the
 * size limit, or nested past {@link #MAX_MESSAGE_DEPTH})
 * is handed on as a call with {@link UnreadableCall} params, so it is refused and recorded as a call.
 * Every error text here is fixed wording: no parser's message reaches the client. Thread-safe.
 */
final class JsonRpcLines {
    /** Deepest nesting of a whole message this server parses; deeper lines are scanned for their id only. */
    static final int MAX_MESSAGE_DEPTH = 1000;
    /** Longest tool name or method the scan of an unreadable line keeps. */
    private static final int MAX_SCANNED_TEXT = 4096;

    static final String TOO_DEEP = "the message nests deeper than " + MAX_MESSAGE_DEPTH
            + " levels; its arguments were not read";

    private static final JsonMapper PARSE = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_MESSAGE_DEPTH)
                            .maxStringLength(Integer.MAX_VALUE)
                            .maxNumberLength(1000)
                            .build())
                    .build())
            .build();
    /** For the id and name of a line too long or too deep to parse: values are skipped, never kept. */
    private static final JsonMapper SCAN = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(100_000)
                            .maxStringLength(1 << 20)
                            .maxNumberLength(1000)
                            .build())
                    .build())
            .build();

    /** What one line becomes. */
    sealed interface Outcome permits Deliver, Answer {}

    /** A message for the session. */
    record Deliver(JSONRPCMessage message) implements Outcome {}

    /**
     * An error the transport writes at once; the session never sees the line. Its own JSON, not the SDK's
     * {@code JSONRPCResponse}: that one refuses the {@code "id": null} JSON-RPC requires when the id could
     * not be read, and an id MCP forbids.
     */
    record Answer(ObjectNode response) implements Outcome {
        /** @return the line to write, without its newline */
        String line() {
            return PARSE.writeValueAsString(response);
        }
    }

    private JsonRpcLines() {}

    /**
     * @param line the bytes of one line, without its terminator
     * @param length how many of them are the line
     * @return what to do with it; never {@code null}
     */
    static Outcome read(byte[] line, int length) {
        if (isBlank(line, length)) {
            return error(null, McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: an empty line is not a JSON-RPC message");
        }
        JsonNode tree;
        try {
            tree = PARSE.readTree(line, 0, length);
        } catch (StreamConstraintsException e) {
            return scanned(new java.io.ByteArrayInputStream(line, 0, length), TOO_DEEP, TOO_DEEP);
        } catch (JacksonException e) {
            return error(null, McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: the line is not valid JSON");
        }
        if (tree == null || tree.isMissingNode()) {
            return error(null, McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: the line is not valid JSON");
        }
        if (tree.isArray()) {
            return error(null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "Invalid Request: JSON-RPC batches are not accepted (MCP removed them in 2025-06-18); send one message per line");
        }
        if (!tree.isObject()) {
            return error(null, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
        }
        JsonNode id = tree.get("id");
        JsonNode method = tree.get("method");
        if (!"2.0".equals(textOrNull(tree.get("jsonrpc")))) {
            return error(echo(id), McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
        }
        if (method != null) {
            if (!method.isString()) {
                return error(echo(id), McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: \"method\" must be a string");
            }
            if (id == null) {
                return new Deliver(new JSONRPCNotification(McpSchema.JSONRPC_VERSION, method.asString(),
                        plain(tree.get("params"))));
            }
            Object requestId = requestId(id);
            if (requestId == null) {
                return error(echo(id), McpSchema.ErrorCodes.INVALID_REQUEST,
                        "Invalid Request: an MCP request id must be a string or an integer");
            }
            JsonNode params = tree.get("params");
            return new Deliver(new JSONRPCRequest(McpSchema.JSONRPC_VERSION, method.asString(), requestId, plain(params)));
        }
        if (tree.has("result") || tree.has("error")) {
            return new Deliver(response(tree, id));
        }
        return error(echo(id), McpSchema.ErrorCodes.INVALID_REQUEST,
                "Invalid Request: a message needs a \"method\", or a \"result\" or \"error\"");
    }

    /**
     * A line over the size limit: its id and tool name are found by a scan that keeps no value, the rest
     * of the line is read and dropped.
     *
     * @param rest the line from its first byte to its end
     * @param maxBytes the limit it broke
     */
    static Outcome oversized(InputStream rest, int maxBytes) {
        String why = "the message is over this server's limit of " + maxBytes + " bytes; its arguments were not read";
        return scanned(rest, why, "Invalid Request: the message is over this server's limit of " + maxBytes + " bytes");
    }

    private static Outcome scanned(InputStream in, String callWhy, String requestWhy) {
        Scan scan = scan(in);
        Object id = scan.id == null ? null : requestId(scan.id);
        if (id != null && McpSchema.METHOD_TOOLS_CALL.equals(scan.method)) {
            return new Deliver(new JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_TOOLS_CALL, id,
                    new UnreadableCall(scan.name, callWhy)));
        }
        String message = requestWhy.startsWith("Invalid Request") ? requestWhy : "Invalid Request: " + requestWhy;
        return error(id == null ? echo(scan.id) : id, McpSchema.ErrorCodes.INVALID_REQUEST, message);
    }

    /** The id, method and {@code params.name} of a line, found without keeping any other value. */
    private static final class Scan {
        JsonNode id;
        String method;
        String name;
    }

    private static Scan scan(InputStream in) {
        Scan scan = new Scan();
        try (in; JsonParser p = SCAN.createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return scan;
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if ("id".equals(field) && value.isScalarValue()) {
                    scan.id = value == JsonToken.VALUE_STRING ? JsonNodeFactory.instance.stringNode(bounded(p))
                            : value.isNumeric() ? p.readValueAsTree() : JsonNodeFactory.instance.nullNode();
                } else if ("method".equals(field) && value == JsonToken.VALUE_STRING) {
                    scan.method = bounded(p);
                } else if ("params".equals(field) && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                        String inner = p.currentName();
                        JsonToken v = p.nextToken();
                        if ("name".equals(inner) && v == JsonToken.VALUE_STRING) {
                            scan.name = bounded(p);
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (JacksonException | IOException e) {
            // what was found before the line stopped making sense is all there is
        }
        return scan;
    }

    private static String bounded(JsonParser p) {
        StringBuilder kept = new StringBuilder();
        p.getString(new Writer() {
            @Override
            public void write(char[] chars, int off, int len) {
                kept.append(chars, off, Math.max(0, Math.min(len, MAX_SCANNED_TEXT - kept.length())));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        return kept.toString();
    }

    /** @return the id as the SDK takes it (a string, an Integer or a Long), or {@code null} if MCP forbids it */
    private static Object requestId(JsonNode id) {
        if (id.isString()) {
            return id.asString();
        }
        if (id.isIntegralNumber() && id.canConvertToInt()) {
            return id.intValue();
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return id.longValue();
        }
        return null;
    }

    /** @return the id to echo in an error: a legal JSON-RPC id (string, number) as sent, otherwise null */
    private static Object echo(JsonNode id) {
        return id != null && (id.isString() || id.isNumber()) ? (id.isString() ? id.asString() : id) : null;
    }

    private static JSONRPCResponse response(JsonNode tree, JsonNode id) {
        Object responseId = id == null ? null : id.isString() ? id.asString() : requestId(id);
        JSONRPCError error = null;
        JsonNode e = tree.get("error");
        if (e != null && e.isObject()) {
            error = new JSONRPCError(e.path("code").isInt() ? e.get("code").intValue() : McpSchema.ErrorCodes.INTERNAL_ERROR,
                    textOrNull(e.get("message")) == null ? "" : e.get("message").asString(),
                    plain(e.get("data")));
        }
        Object result = plain(tree.get("result"));
        return new JSONRPCResponse(McpSchema.JSONRPC_VERSION, responseId, error == null && result == null ? Map.of() : result,
                error);
    }

    /** @return the value as plain maps, lists and scalars, as the SDK's own parser would give it; {@code null} stays */
    private static Object plain(JsonNode value) {
        return value == null ? null : PARSE.convertValue(value, Object.class);
    }

    /** @return the error answer; {@code id} a string, a number node, an Integer or Long, or {@code null} */
    static Answer error(Object id, int code, String message) {
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        if (id instanceof JsonNode node) {
            answer.set("id", node);
        } else if (id instanceof String text) {
            answer.put("id", text);
        } else if (id instanceof Number number) {
            answer.put("id", number.longValue());
        } else {
            answer.putNull("id");
        }
        answer.putObject("error").put("code", code).put("message", message);
        return new Answer(answer);
    }

    private static String textOrNull(JsonNode n) {
        return n != null && n.isString() ? n.asString() : null;
    }

    private static boolean isBlank(byte[] line, int length) {
        for (int i = 0; i < length; i++) {
            byte b = line[i];
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}
