package dev.toolyard.store.jdbc;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.ToolStatus;
import java.time.Duration;
import java.time.Instant;

/** Records for tests, distinct in every field that can differ. */
final class TestRecords {
    static final Instant T0 = Instant.parse("2026-11-29T10:15:30.123456789Z");
    static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private TestRecords() {}

    static ToolCallRecord ok(String callId, String invocationId, String tool) {
        return new ToolCallRecord(callId, invocationId, tool, ToolStatus.OK, null, "", "{\"path\":\"notes.md\"}",
                SHA, false, "read 12 bytes", T0, Duration.ofNanos(1_234_567));
    }

    static ToolCallRecord refused(String callId, String invocationId, String tool, Reason reason) {
        return new ToolCallRecord(callId, invocationId, tool, ToolStatus.REFUSED, reason, "refused: " + reason.wireName(),
                "{}", SHA, false, "Tool '" + tool + "' refused", T0.plusSeconds(1), Duration.ofNanos(42));
    }

    static ToolCallStart start(String callId, String invocationId, String tool) {
        return new ToolCallStart(callId, invocationId, tool, "{\"argv\":[\"sleep\",\"60\"]}", SHA, false, T0);
    }

    static ToolCallRecord withRequestCallId(ToolCallRecord r, String requestCallId) {
        return new ToolCallRecord(r.callId(), r.invocationId(), r.toolName(), r.status(), r.reason().orElse(null), r.reasonDetail(),
                r.arguments(), r.argumentsSha256(), r.argumentsRedacted(), r.summary(), r.startedAt(), r.duration(),
                requestCallId);
    }

    static ToolCallRecord finished(ToolCallStart start, ToolStatus status, Reason reason) {
        return new ToolCallRecord(start.callId(), start.invocationId(), start.toolName(), status, reason,
                reason == null ? "" : "detail of " + reason.wireName(), start.arguments(), start.argumentsSha256(),
                start.argumentsRedacted(), "finished", start.startedAt(), Duration.ofMillis(1500).plusNanos(7));
    }

    static ToolCallRecord withApprover(ToolCallRecord r, String approver) {
        return new ToolCallRecord(r.callId(), r.invocationId(), r.toolName(), r.status(), r.reason().orElse(null), r.reasonDetail(),
                r.arguments(), r.argumentsSha256(), r.argumentsRedacted(), r.summary(), r.startedAt(), r.duration(),
                r.requestCallId(), approver);
    }
}
