package dev.toolyard.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.ToolStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CallQueryTest {
    @Test
    void aNewQueryHasOnlyItsLimit() {
        CallQuery q = CallQuery.newest(5);
        assertThat(q.limit()).isEqualTo(5);
        assertThat(q.invocationId()).isEmpty();
        assertThat(q.toolName()).isEmpty();
        assertThat(q.status()).isEmpty();
        assertThat(q.startedAtOrAfter()).isEmpty();
    }

    @Test
    void eachCriterionReturnsACopyAndLeavesTheOriginalAlone() {
        CallQuery base = CallQuery.newest(10);
        Instant since = Instant.parse("2026-12-01T07:00:00Z");
        CallQuery q = base.invocationId("inv").toolName("read_file").status(ToolStatus.REFUSED).startedAtOrAfter(since);
        assertThat(q.invocationId()).contains("inv");
        assertThat(q.toolName()).contains("read_file");
        assertThat(q.status()).contains(ToolStatus.REFUSED);
        assertThat(q.startedAtOrAfter()).contains(since);
        assertThat(base).isEqualTo(CallQuery.newest(10)).isNotEqualTo(q);
        assertThat(q).isEqualTo(CallQuery.newest(10).invocationId("inv").toolName("read_file")
                .status(ToolStatus.REFUSED).startedAtOrAfter(since)).hasSameHashCodeAs(CallQuery.newest(10)
                .invocationId("inv").toolName("read_file").status(ToolStatus.REFUSED).startedAtOrAfter(since));
        assertThat(q.toString()).isEqualTo(
                "CallQuery[newest 10, invocation inv, tool read_file, status refused, since 2026-12-01T07:00:00Z]");
    }

    @Test
    void aLimitThatIsNotPositiveAndANullCriterionAreRefusedByName() {
        assertThatThrownBy(() -> CallQuery.newest(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be positive, got 0");
        assertThatThrownBy(() -> CallQuery.newest(1).toolName(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("toolName");
        assertThatThrownBy(() -> CallQuery.newest(1).startedAtOrAfter(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("startedAtOrAfter");
    }
}
