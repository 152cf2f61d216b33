package dev.toolyard.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StoredTextTest {

    @Test
    void ordinaryTextIsStoredAsItIs() {
        for (String s : List.of("", "read_file", "{\"path\":\"a\\\\b\\n\"}", "caf\u00e9 \uD83D\uDE00", "\\0 \\u0000")) {
            assertThat(StoredText.encode(s)).isSameAs(s);
            assertThat(StoredText.decode(s)).isSameAs(s);
        }
    }

    @Test
    void nulAndUnpairedSurrogatesAreEscapedBehindTheMark() {
        assertThat(StoredText.encode("a\u0000b\\c")).isEqualTo("\uE000a\\0b\\\\c");
        assertThat(StoredText.encode("x\uD800")).isEqualTo("\uE000x\\ud800");
        assertThat(StoredText.encode("\uDC00\uD83D\uDE00")).isEqualTo("\uE000\\udc00\uD83D\uDE00");
        assertThat(StoredText.encode("\uE000plain")).isEqualTo("\uE000\uE000plain");
    }

    @Test
    void theEscapedFormHasNoNulAndNoUnpairedSurrogate() {
        String stored = StoredText.encode("\u0000\uD800\uDFFF\uDBFF");
        assertThat(stored).doesNotContain("\u0000");
        assertThat(stored.codePoints().filter(cp -> cp >= 0xD800 && cp <= 0xDFFF)).isEmpty();
    }

    @Test
    void everyStringRoundTripsAndDistinctStringsStayDistinct() {
        Random random = new Random(42);
        char[] alphabet = {'a', '\\', '0', 'u', '\u0000', '\uD800', '\uDC00', '\uE000', 'd', '8'};
        java.util.Map<String, String> seen = new java.util.HashMap<>();
        for (int n = 0; n < 20_000; n++) {
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(8);
            for (int i = 0; i < length; i++) {
                b.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String original = b.toString();
            String stored = StoredText.encode(original);
            assertThat(StoredText.decode(stored)).isEqualTo(original);
            String before = seen.putIfAbsent(stored, original);
            assertThat(before == null || before.equals(original)).as("%s and %s collide", before, original).isTrue();
        }
    }

    @Test
    void aCorruptEscapeIsReportedNotGuessed() {
        assertThatThrownBy(() -> StoredText.decode("\uE000abc\\")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredText.decode("\uE000\\x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredText.decode("\uE000\\u+fff")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredText.decode("\uE000\\u12")).isInstanceOf(IllegalArgumentException.class);
    }
}
