package dev.toolyard.spi;

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
    void theChunkedCountAgreesWithACharByCharCountAcrossChunkBoundaries() {
        java.util.Random random = new java.util.Random(42);
        char[] alphabet = {'a', '\u00e9', '\u20ac', '\uD83D', '\uDE00', '\uDC00', '\uD800'};
        for (int round = 0; round < 300; round++) {
            int length = 2040 + random.nextInt(4200); // straddles one or two 2,048-char chunk boundaries
            StringBuilder b = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                b.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String s = b.toString();
            assertThat(Text.utf8Length(s)).as("round %d", round).isEqualTo(reference(s));
        }
        String pairOnTheBoundary = "a".repeat(2047) + "\uD83D\uDE00";
        assertThat(Text.utf8Length(pairOnTheBoundary)).isEqualTo(2047 + 4);
    }

    @Test
    void textThatCannotExceedTheCapIsNotCountedAndTheCountIsReusedWhenKnown() {
        assertThat(Text.cap("x".repeat(85), 256).totalBytes()).isEqualTo(-1);
        Text.Capped counted = Text.cap("x".repeat(1000), 256);
        assertThat(counted.totalBytes()).isEqualTo(1000);
        assertThat(Text.cap("x".repeat(1000), counted.totalBytes(), 300).text()).endsWith("of 1000 bytes]");
    }

    /** The plain definition: a valid pair is 4 bytes, an unpaired surrogate becomes U+FFFD (3). */
    private static long reference(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
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
