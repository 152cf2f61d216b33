package dev.toolyard;

import dev.toolyard.spi.Text;

/**
 * Caps what leaves the executor: the content a model sees, the summary a record keeps, and reason
 * details. A cut cuts on a character boundary and the content then ends with a label stating both byte
 * counts. Immutable; thread-safe.
 */
final class OutputCap {
    static final int MAX_DETAIL_CHARS = 1024;

    private final int maxContentBytes;
    private final int maxSummaryBytes;

    OutputCap(int maxContentBytes, int maxSummaryBytes) {
        this.maxContentBytes = maxContentBytes;
        this.maxSummaryBytes = maxSummaryBytes;
    }

    /** How a call ended, capped, as both the result and the record need it. */
    record Ending(ToolStatus status, Reason reason, String detail, String content, boolean truncated, String summary) {}

    /** @return a refusal, failure or timeout: the problem text is both content and summary */
    Ending problem(String toolName, Reason reason, String detail) {
        String clipped = Text.clip(detail, MAX_DETAIL_CHARS);
        // ASCII keeps the text Latin-1: half the bytes
        String text = "Tool '" + toolName + "' - " + reason.wireName() + ": " + clipped;
        String content = Text.cap(text, maxContentBytes).text();
        return new Ending(reason.status(), reason, clipped, content, false, Text.cap(content, maxSummaryBytes).text());
    }

    /**
     * @return a failure whose handler kept its raw output for the record: the problem text for the model,
     *     the output, capped as a success's content is, as the record's summary
     */
    Ending problemWithRecordedOutput(String toolName, Reason reason, String detail, String recordedOutput) {
        Ending problem = problem(toolName, reason, detail);
        return new Ending(problem.status(), reason, problem.detail(), problem.content(), false,
                Text.cap(recordedOutput, maxContentBytes).text());
    }

    /** @return a success: the handler's content capped, its summary (or the content) capped for the record */
    Ending success(ToolOutput output) {
        String raw = output.content();
        Text.Capped capped = Text.cap(raw, maxContentBytes);
        String own = output.summary().orElse(null);
        // The summary is usually the content itself: reuse its byte count rather than count a large text twice.
        String summary = own != null ? Text.cap(own, maxSummaryBytes).text()
                : capped.totalBytes() >= 0 ? Text.cap(raw, capped.totalBytes(), maxSummaryBytes).text()
                : Text.cap(raw, maxSummaryBytes).text();
        return new Ending(ToolStatus.OK, null, "", capped.text(), capped.truncated(), summary);
    }
}
