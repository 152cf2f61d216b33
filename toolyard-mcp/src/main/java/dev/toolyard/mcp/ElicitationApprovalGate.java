package dev.toolyard.mcp;

import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.ApprovalRequest;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An {@link ApprovalGate} that asks the person at the MCP client, with MCP elicitation (spec 2025-06-18,
 * {@code elicitation/create}, form mode), whether a call may run: when the call came through a
 * {@link ToolYardMcpServer} as a listed tool and the client declared the {@code elicitation}
 * capability in {@code initialize}. Everything else goes to the fallback gate the application chose
 * (deny, for a server nobody can ask). Give it to the executor that the server serves.
 *
 * <p>The form holds one boolean, {@code approve}. The call runs only when the client answers
 * {@code accept} with {@code approve: true}; {@code accept} without it, {@code decline} and
 * {@code cancel} deny it, and a failed request fails the review (which ToolYard records as
 * {@code approval_denied}). The question shows the tool, its risk class, ToolYard's call id and the
 * arguments as the record keeps them, control characters escaped. The executor's approval timeout
 * bounds the wait. The reviewer recorded is {@code mcp-elicitation (<client name>)}.
 *
 * <p>Immutable. Thread-safe.
 */
public final class ElicitationApprovalGate implements ApprovalGate {
    /** The form's one field. */
    static final String FIELD = "approve";
    private static final int MAX_SHOWN_ARGUMENT_CHARS = 2000;
    private static final ExecutorService ASKING = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "toolyard-mcp-elicitation");
        t.setDaemon(true);
        return t;
    });

    private final ApprovalGate fallback;

    private ElicitationApprovalGate(ApprovalGate fallback) {
        this.fallback = fallback;
    }

    /**
     * @param fallback reviews every call the client cannot be asked about; never {@code null}
     * @return the gate
     */
    public static ElicitationApprovalGate orElse(ApprovalGate fallback) {
        return new ElicitationApprovalGate(Objects.requireNonNull(fallback, "fallback"));
    }

    @Override
    public CompletionStage<ApprovalDecision> review(ApprovalRequest request) {
        McpSyncServerExchange exchange = ToolCalls.currentExchange();
        if (exchange == null || exchange.getClientCapabilities() == null
                || exchange.getClientCapabilities().elicitation() == null) {
            return fallback.review(request);
        }
        McpSchema.ElicitRequest ask = McpSchema.ElicitRequest.builder(question(request), schema()).build();
        String reviewer = "mcp-elicitation (" + clientName(exchange) + ")";
        // The SDK's sync exchange blocks; off the caller's thread, so the executor's approval timeout holds.
        return CompletableFuture.supplyAsync(() -> decide(exchange.createElicitation(ask), reviewer), ASKING);
    }

    static ApprovalDecision decide(ElicitResult answer, String reviewer) {
        if (answer == null || answer.action() == null) {
            return ApprovalDecision.deny(reviewer, "the client gave no answer");
        }
        return switch (answer.action()) {
            case ACCEPT -> answer.content() != null && Boolean.TRUE.equals(answer.content().get(FIELD))
                    ? ApprovalDecision.approve(reviewer)
                    : ApprovalDecision.deny(reviewer, "the user submitted the form without approving");
            case DECLINE -> ApprovalDecision.deny(reviewer, "the user declined");
            case CANCEL -> ApprovalDecision.deny(reviewer, "the user dismissed the request");
        };
    }

    private static Map<String, Object> schema() {
        Map<String, Object> approve = new LinkedHashMap<>();
        approve.put("type", "boolean");
        approve.put("title", "Run this call?");
        approve.put("description", "Approve to let the tool run once with these arguments.");
        approve.put("default", false);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of(FIELD, approve));
        schema.put("required", List.of(FIELD));
        return schema;
    }

    static String question(ApprovalRequest request) {
        String args = printable(request.argumentsJson());
        if (args.length() > MAX_SHOWN_ARGUMENT_CHARS) {
            args = args.substring(0, MAX_SHOWN_ARGUMENT_CHARS) + "... (" + request.argumentsJson().length() + " chars)";
        }
        return "ToolYard: the model asks to run " + printable(request.toolName()) + " (" + request.riskClass()
                + "), which needs your approval.\narguments: " + args + "\ncall " + request.callId();
    }

    private static String clientName(McpSyncServerExchange exchange) {
        McpSchema.Implementation info = exchange.getClientInfo();
        String name = info == null || info.name() == null ? "unnamed client" : printable(info.name());
        return name.length() > 64 ? name.substring(0, 64) : name;
    }

    /** @return the text with control characters (C0, DEL, C1) and line/paragraph separators as escapes */
    static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
