package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.spi.Text;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link CallText} gives a call's id, argument length and digest exactly as the JDK's own
 * {@code UUID.toString()}, {@code String.getBytes(UTF_8)} and {@code Text.sha256} give them, so a
 * record's digest is byte for byte what it was. Runs its seed corpus in every build; fuzz longer on
 * demand with {@code JAZZER_FUZZ=1}.
 */
class CallTextTest {
    @FuzzTest(maxDuration = "10s")
    void theDigestAndLengthAreWhatGetBytesGivesForEveryText(byte[] data) {
        // Two bytes a char, so unpaired and paired surrogates, controls and every plane all occur.
        char[] chars = new char[data.length / 2];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) (((data[2 * i] & 0xFF) << 8) | (data[2 * i + 1] & 0xFF));
        }
        assertSameAsGetBytes(new String(chars));
    }

    @Test
    void surrogatesEdgesAndChunkBoundariesDigestAsGetBytesDoes() {
        String[] texts = {"", "{\"text\":\"buy milk\"}", "é", "\u07ff\u0800\uffff", "\ud83d\ude00", "\ud800", "\udc00",
            "\ud800\ud800\udc00", "a\udbff", "\udbff\udfff", "\u0000\u007f\u0080"};
        for (String t : texts) {
            assertSameAsGetBytes(t);
        }
        Random random = new Random(28);
        for (int round = 0; round < 2_000; round++) {
            // Lengths around the chunk, so a 2-, 3- or 4-byte sequence lands on its edge.
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(3_000);
            for (int i = 0; i < length; i++) {
                b.append(switch (random.nextInt(5)) {
                    case 0 -> (char) random.nextInt(0x80);
                    case 1 -> (char) (0x80 + random.nextInt(0x780));
                    case 2 -> (char) (0xD800 + random.nextInt(0x800));
                    case 3 -> "\ud83d\ude00";
                    default -> (char) (0x800 + random.nextInt(0xD000));
                });
            }
            assertSameAsGetBytes(b.toString());
        }
    }

    @Test
    void callIdsAreCanonicalVersionFourUuidsAndDistinct() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = CallText.local().randomId();
            UUID parsed = UUID.fromString(id);
            assertThat(parsed.toString()).isEqualTo(id);
            assertThat(parsed.version()).isEqualTo(4);
            assertThat(parsed.variant()).isEqualTo(2);
            seen.add(id);
        }
        assertThat(seen).hasSize(10_000);
    }

    private static void assertSameAsGetBytes(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        CallText scratch = CallText.local();
        assertThat(scratch.sha256OfUtf8(text)).isEqualTo(Text.sha256(utf8));
        assertThat(scratch.utf8Length()).isEqualTo(utf8.length);
    }
}
