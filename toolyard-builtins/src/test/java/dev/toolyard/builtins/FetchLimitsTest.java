package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FetchLimitsTest {
    @Test
    void theDefaultsAreTheReferenceDefaults() {
        FetchLimits d = FetchLimits.defaults();
        assertThat(d.maxBodyBytes()).isEqualTo(8L * 1024 * 1024);
        assertThat(d.maxRedirects()).isEqualTo(3);
        assertThat(d.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(d.readTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.callTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(FetchLimits.builder().build()).isEqualTo(d).hasSameHashCodeAs(d);
    }

    @Test
    void everyCapCanBeSet() {
        FetchLimits l = FetchLimits.builder().maxBodyBytes(1).maxRedirects(0).connectTimeout(Duration.ofMillis(1))
                .readTimeout(Duration.ofMinutes(2)).callTimeout(Duration.ofHours(1)).build();
        assertThat(l.maxBodyBytes()).isEqualTo(1);
        assertThat(l.maxRedirects()).isZero();
        assertThat(l.connectTimeout()).isEqualTo(Duration.ofMillis(1));
        assertThat(l.readTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(l.callTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(l).isNotEqualTo(FetchLimits.defaults());
        assertThat(l.toString()).contains("maxBodyBytes=1");
    }

    @Test
    void anOutOfRangeCapFailsFastNamingIt() {
        FetchLimits.Builder b = FetchLimits.builder();
        assertThatThrownBy(() -> b.maxBodyBytes(0)).hasMessageStartingWith("maxBodyBytes");
        assertThatThrownBy(() -> b.maxBodyBytes(FetchLimits.MAX_BODY_BYTES_LIMIT + 1)).hasMessageStartingWith("maxBodyBytes");
        assertThatThrownBy(() -> b.maxRedirects(-1)).hasMessageStartingWith("maxRedirects");
        assertThatThrownBy(() -> b.maxRedirects(21)).hasMessageStartingWith("maxRedirects");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ZERO)).hasMessageStartingWith("connectTimeout");
        assertThatThrownBy(() -> b.readTimeout(Duration.ofSeconds(-1))).hasMessageStartingWith("readTimeout");
        assertThatThrownBy(() -> b.callTimeout(Duration.ofHours(2))).hasMessageStartingWith("callTimeout");
        assertThatThrownBy(() -> b.callTimeout(Duration.ofNanos(10))).hasMessageStartingWith("callTimeout");
        assertThatThrownBy(() -> b.connectTimeout(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("connectTimeout");
    }
}
