package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReasonTest {
    @Test
    void theCoreSetKeepsItsWireNamesAndStatuses() {
        assertThat(Reason.values()).extracting(Reason::wireName).startsWith("unknown_tool", "not_allowlisted",
                "not_approved", "args_invalid", "egress_not_permitted", "isolation_unavailable", "path_escape",
                "tool_saturated").contains("too_large", "handler_error", "not_utf8", "timeout");
        assertThat(Reason.PATH_ESCAPE.wireName()).isEqualTo("path_escape");
        assertThat(Reason.TOOL_SATURATED.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(Reason.fromWireName("path_escape")).isSameAs(Reason.PATH_ESCAPE);
        assertThat(Reason.values()).allMatch(Reason::isCore);
    }

    @Test
    void aToolDeclaresAReasonOfItsOwnWithoutCoreChanging() {
        Reason declared = Reason.declare("not_a_directory_yet", ToolStatus.FAILED);

        assertThat(declared.wireName()).isEqualTo("not_a_directory_yet");
        assertThat(declared.isCore()).isFalse();
        assertThat(Reason.declare("not_a_directory_yet", ToolStatus.FAILED)).isEqualTo(declared);
        // a value, not a registration: nothing process-wide learns the name
        assertThatThrownBy(() -> Reason.fromWireName("not_a_directory_yet")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Reason.fromRecord("not_a_directory_yet", ToolStatus.FAILED)).isEqualTo(declared);
        assertThat(Reason.values()).doesNotContain(declared);
        ToolOutput failed = ToolOutput.failed(declared, "a file, not a directory");
        assertThat(failed.reason()).contains(declared);
    }

    @Test
    void declaringACoreNameGivesTheConstantAndAClashingStatusFails() {
        assertThat(Reason.declare("too_large", ToolStatus.REFUSED)).isSameAs(Reason.TOO_LARGE);
        assertThatThrownBy(() -> Reason.declare("too_large", ToolStatus.FAILED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("REFUSED");
        assertThatThrownBy(() -> Reason.declare("Bad-Name", ToolStatus.FAILED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wireName");
        assertThatThrownBy(() -> Reason.declare("late_again", ToolStatus.TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecordedReasonOfAToolNotLoadedHereReadsBackEqualButUnregistered() {
        Reason read = Reason.fromRecord("quota_gone_elsewhere", ToolStatus.REFUSED);

        assertThat(read.wireName()).isEqualTo("quota_gone_elsewhere");
        assertThat(read).isEqualTo(Reason.fromRecord("quota_gone_elsewhere", ToolStatus.REFUSED));
        assertThatThrownBy(() -> Reason.fromWireName("quota_gone_elsewhere")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Reason.fromRecord("path_escape", ToolStatus.REFUSED)).isSameAs(Reason.PATH_ESCAPE);
        assertThatThrownBy(() -> Reason.fromRecord("path_escape", ToolStatus.FAILED))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
