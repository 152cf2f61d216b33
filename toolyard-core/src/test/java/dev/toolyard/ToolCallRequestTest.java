package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolCallRequestTest {
    @Test
    void aRequestCarriesNoFrameworkIdUntilOneIsGiven() {
        ToolCallRequest plain = ToolCallRequest.of("echo", "{}");
        ToolCallRequest withId = plain.withCallId("call_1");

        assertThat(plain.callId()).isEmpty();
        assertThat(withId.callId()).contains("call_1");
        assertThat(withId.name()).isEqualTo("echo");
        assertThat(withId.argumentsJson()).isEqualTo("{}");
    }

    @Test
    void withCallIdKeepsMapArgumentsAndNullOrEmptyMeansNone() {
        ToolCallRequest fromMap = ToolCallRequest.of("echo", Map.of("text", "a")).withCallId("id");

        assertThat(fromMap.argumentsMap()).containsEntry("text", "a");
        assertThat(fromMap.withCallId(null).callId()).isEmpty();
        assertThat(fromMap.withCallId("").callId()).isEmpty();
        assertThat(fromMap.callId()).as("the original is unchanged").contains("id");
    }
}
