package dev.toolyard.policy.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JsonsTest {
    @Test
    void canonicalTextSortsKeysAndWritesNumbersPlainSoEqualValuesPrintAlike() {
        assertThat(Jsons.canonical(Jsons.MAPPER.readTree("{\"b\":2.50,\"a\":[1e2,\"\\u0001\"]}")))
                .isEqualTo("{\"a\":[100,\"\\u0001\"],\"b\":2.5}");
        assertThat(Jsons.canonical(Jsons.MAPPER.readTree("2.0"))).isEqualTo("2");
    }

    @Test
    void duplicateKeysAreRefused() {
        assertThatThrownBy(() -> Jsons.MAPPER.readTree("{\"a\":1,\"a\":2}")).hasMessageContaining("a");
    }
}
