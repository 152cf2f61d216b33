package dev.toolyard;

import dev.toolyard.spi.Json;
import dev.toolyard.internal.JsonValues;
import dev.toolyard.spi.Text;
import dev.toolyard.spi.ToolCallEvent;
import java.time.Instant;
import tools.jackson.databind.node.ObjectNode;

/**
 * One call as it arrives, before any check: its ids, its clipped name, its argument text and digest,
 * and, once a check refuses it, the refusal. The first hand-off of the pipeline; every later hand-off
 * carries it. Confined to the thread that called {@code execute}.
 */
final class Call {
    /** Names, framework ids and reason details are clipped to this many characters (and an ellipsis). */
    static final int MAX_NAME_CHARS = 128;

    final ToolCallRequest request;
    final ToolContext context;
    final long startNanos;
    final Instant startedAt;
    final String callId;
    final String displayName;
    final String requestCallId;
    /** The context's agent name, or {@code ""}. */
    final String agent;
    final String argumentsText;
    final long argumentBytes;
    final String digest;
    /** Why map arguments could not become JSON, or {@code null}. */
    final String notJson;
    /** The arguments already as a tree (map requests), or {@code null} for text still to parse. */
    final ObjectNode preParsed;

    /** What a gate in shadow mode would have refused, or {@code ""}; set by the policy check. */
    String shadowDenial = "";

    private Tool tool;
    private Reason refusal;
    private String refusalDetail;
    private ToolCallEvent event;
    private String approver = "";

    Call(ToolCallRequest request, ToolContext context) {
        this.request = request;
        this.context = context;
        this.startNanos = System.nanoTime();
        this.startedAt = context.clock().instant();
        CallText scratch = CallText.local();
        this.callId = scratch.randomId();
        this.displayName = Text.clip(request.name(), MAX_NAME_CHARS);
        this.agent = context.agent().orElse("");
        this.requestCallId = request.callId().isPresent() ? Text.clip(request.callId().get(), MAX_NAME_CHARS) : "";
        String text;
        ObjectNode node = null;
        String problem = null;
        if (request.argumentsJson() != null) {
            text = request.argumentsJson();
        } else {
            try {
                node = JsonValues.toObject(request.argumentsMap());
                text = Json.MAPPER.writeValueAsString(node);
            } catch (JsonValues.NotJson e) {
                problem = e.getMessage();
                text = String.valueOf(request.argumentsMap().keySet());
            }
        }
        this.argumentsText = text;
        this.preParsed = node;
        this.notJson = problem;
        this.digest = scratch.sha256OfUtf8(text);
        this.argumentBytes = scratch.utf8Length();
    }

    /**
     * Ends the walk: the first check to call this names the reason.
     *
     * @return {@code null}, which is what a refusing stage hands on
     */
    <T> T refuse(Reason reason, String detail) {
        this.refusal = reason;
        this.refusalDetail = detail;
        return null;
    }

    Reason refusal() {
        return refusal;
    }

    String refusalDetail() {
        return refusalDetail;
    }

    void resolved(Tool tool) {
        this.tool = tool;
    }

    /** Notes the reviewer who answered the approval gate, clipped like a name. */
    void reviewedBy(String reviewer) {
        this.approver = Text.clip(reviewer, MAX_NAME_CHARS);
    }

    /** @return the reviewer who answered the approval gate; {@code ""} when none did */
    String approver() {
        return approver;
    }

    /** @return the tool, once the registry check found it; {@code null} for an unknown tool */
    Tool tool() {
        return tool;
    }

    boolean redacted() {
        return tool != null && tool.spec().redactArgs();
    }

    /** @return the arguments as a record keeps them: plaintext, or the redaction marker, or size only */
    String recordedArguments() {
        if (redacted()) {
            return "{\"redacted\":true}";
        }
        if (argumentBytes > ToolExecutor.RECORD_ARGUMENT_BYTES) {
            return "{\"omitted\":true,\"bytes\":" + argumentBytes + "}";
        }
        return argumentsText;
    }

    /** @return the event observers see; built on first use, so an unobserved call never builds one */
    ToolCallEvent event(IsolationTier hostTier) {
        if (event == null) {
            ToolSpec spec = tool == null ? null : tool.spec();
            IsolationTier tier = spec != null && spec.requiresIsolation() ? hostTier : IsolationTier.IN_PROCESS;
            event = ToolCallEvent.of(callId, requestCallId, displayName, spec, context.invocationId(), startedAt, tier);
        }
        return event;
    }
}
