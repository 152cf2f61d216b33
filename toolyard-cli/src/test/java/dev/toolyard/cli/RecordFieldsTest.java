package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class RecordFieldsTest {
    private static final ToolCallRecord RECORD = new ToolCallRecord("c", "i", "t", ToolStatus.TIMEOUT, Reason.TIMEOUT,
            "ran 2 s", "{}", "ab", false, "s", Instant.parse("2026-12-01T07:00:00Z"), Duration.ofSeconds(2));

    @Test
    void everyComponentOfTheRecordIsAFieldInDeclarationOrder() {
        assertThat(RecordFields.of(RECORD).keySet()).containsExactlyElementsOf(
                Arrays.stream(ToolCallRecord.class.getRecordComponents()).map(RecordComponent::getName).toList());
    }

    @Test
    void enumsPrintByWireNameAndTimesInIso8601() {
        ObjectNode o = RecordFields.json(RECORD);
        assertThat(o.get("status").asString()).isEqualTo("timeout");
        assertThat(o.get("reason").asString()).isEqualTo("timeout");
        assertThat(o.get("startedAt").asString()).isEqualTo("2026-12-01T07:00:00Z");
        assertThat(o.get("duration").asString()).isEqualTo("PT2S");
        assertThat(o.get("durationNanos").asLong()).isEqualTo(2_000_000_000L);
        assertThat(RecordFields.text(Duration.ofMillis(1))).isEqualTo("1.000 ms");
    }

    @Test
    void aDurationTooLongForNanosecondsKeepsItsIsoFormAndANullCount() {
        ToolCallRecord huge = new ToolCallRecord("c", "i", "t", ToolStatus.OK, null, "", "{}", "ab", false, "",
                Instant.EPOCH, Duration.ofSeconds(Long.MAX_VALUE));
        ObjectNode o = RecordFields.json(huge);
        assertThat(o.get("duration").asString()).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE).toString());
        assertThat(o.get("durationNanos").isNull()).isTrue();
        assertThat(o.get("reason").isNull()).isTrue();
    }
}
