package dev.toolyard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextTest {
    @Test
    void textWithinTheCapIsUntouched() {
        Text.Capped c = Text.cap("héllo", 256);
        assertThat(c.text()).isEqualTo("héllo");
        assertThat(c.truncated()).isFalse();
    }

    @Test
    void theCapIncludesTheLabelAndNeverSplitsACharacter() {
        for (String unit : new String[] {"a", "é", "€", "😀"}) {
            String s = unit.repeat(1000);
            for (int cap = 256; cap < 300; cap++) {
                Text.Capped c = Text.cap(s, cap);
                assertThat(c.truncated()).isTrue();
                assertThat(Text.utf8Length(c.text())).isLessThanOrEqualTo(cap);
                String head = c.text().substring(0, c.text().indexOf("\n[truncated"));
                assertThat(head.replace(unit, "")).isEmpty();
                assertThat(c.text()).endsWith("of " + Text.utf8Length(s) + " bytes]");
            }
        }
    }

    @Test
    void utf8LengthMatchesTheEncoder() {
        String s = "aé€😀x";
        assertThat(Text.utf8Length(s)).isEqualTo(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertThat(Text.utf8Length("\uD800")).as("an unpaired surrogate counts as U+FFFD, never less").isEqualTo(3);
    }

    @Test
    void clipNeverSplitsASurrogatePair() {
        assertThat(Text.clip("ab😀cd", 3)).isEqualTo("ab…");
        assertThat(Text.clip("abc", 3)).isEqualTo("abc");
    }

    @Test
    void sha256IsTheStandardDigest() {
        assertThat(Text.sha256("")).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
