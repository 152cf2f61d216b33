package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import org.junit.jupiter.api.Test;

class FetchProblemTest {
    @Test
    void aRefusalBecomesARefusedOutput() {
        ToolOutput out = new FetchProblem(Reason.LINK_LOCAL_ADDRESS, "detail").toOutput();
        assertThat(out.reason()).contains(Reason.LINK_LOCAL_ADDRESS);
        assertThat(out.reasonDetail()).isEqualTo("detail");
    }

    @Test
    void aFailureBecomesAFailedOutput() {
        ToolOutput out = new FetchProblem(Reason.HTTP_STATUS, "HTTP 404").toOutput();
        assertThat(out.reason()).contains(Reason.HTTP_STATUS);
    }

    @Test
    void itCarriesNoStackTrace() {
        assertThat(new FetchProblem(Reason.TOO_LARGE, "x").getStackTrace()).isEmpty();
    }

    @Test
    void aTimeoutIsNotAFetchProblem() {
        assertThatThrownBy(() -> new FetchProblem(Reason.TIMEOUT, "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
