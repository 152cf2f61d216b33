package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SinceTest {
    private static final Instant NOW = Instant.parse("2026-12-01T08:00:00Z");

    @ParameterizedTest
    @CsvSource({
        "2026-12-01T07:00:00Z, 2026-12-01T07:00:00Z",
        "2026-12-01T08:00:00+01:00, 2026-12-01T07:00:00Z",
        "2026-12-01T07:00:00.5Z, 2026-12-01T07:00:00.500Z",
        "90s, 2026-12-01T07:58:30Z",
        "15m, 2026-12-01T07:45:00Z",
        "2h, 2026-12-01T06:00:00Z",
        "7d, 2026-11-24T08:00:00Z",
        "PT15M, 2026-12-01T07:45:00Z",
        "P1D, 2026-11-30T08:00:00Z",
        "0s, 2026-12-01T08:00:00Z"})
    void anInstantIsTakenAsItIsAndAnAgeCountsBackFromNow(String text, String expected) {
        assertThat(Since.parse(text, NOW)).isEqualTo(Instant.parse(expected));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "yesterday", "15", "15min", "-5m", "PT-5M", "2026-12-01", "2026-12-01T07:00:00",
        "1.5h", "9999999999d"})
    void anythingElseIsAUserErrorNamingTheAcceptedForms(String text) {
        assertThatThrownBy(() -> Since.parse(text, NOW)).isInstanceOf(Main.UserError.class)
                .hasMessageContaining("--since");
    }
}
