package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.spi.Text;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OutputCaptureTest {
    /** An endless stream of one byte, counting what was read from it. */
    private static final class Endless extends InputStream {
        final AtomicLong served = new AtomicLong();
        private final byte b;

        Endless(char c) {
            this.b = (byte) c;
        }

        @Override
        public int read() {
            served.incrementAndGet();
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) {
            java.util.Arrays.fill(buf, off, off + len, b);
            served.addAndGet(len);
            return len;
        }
    }

    @Test
    void outputWithinTheCapIsKeptWhole() throws Exception {
        AtomicInteger overflows = new AtomicInteger();
        OutputCapture c = new OutputCapture(new ByteArrayInputStream("héllo\n".getBytes(StandardCharsets.UTF_8)), 256,
                overflows::incrementAndGet);

        c.run();

        assertThat(c.awaitDone(0, TimeUnit.SECONDS)).isTrue();
        assertThat(c.text().text()).isEqualTo("héllo\n");
        assertThat(c.text().truncated()).isFalse();
        assertThat(c.overflowed()).isFalse();
        assertThat(overflows).hasValue(0);
    }

    @Test
    void exactlyTheCapIsNotAnOverflow() {
        OutputCapture c = new OutputCapture(new ByteArrayInputStream(new byte[1000]), 1000, () -> { });

        c.run();

        assertThat(c.overflowed()).isFalse();
        assertThat(c.text().truncated()).isFalse();
        assertThat(c.text().text()).hasSize(1000);
    }

    @Test
    void theFirstBytePastTheCapStopsTheReadingOnceAndLabelsTheText() {
        Endless endless = new Endless('y');
        AtomicInteger overflows = new AtomicInteger();
        OutputCapture c = new OutputCapture(endless, 4096, overflows::incrementAndGet);

        c.run();

        assertThat(overflows).hasValue(1);
        assertThat(c.overflowed()).isTrue();
        assertThat(endless.served.get()).as("reading stopped at the first chunk past the cap").isLessThanOrEqualTo(4096 + 8192);
        Text.Capped t = c.text();
        assertThat(t.truncated()).isTrue();
        assertThat(Text.utf8Length(t.text())).isLessThanOrEqualTo(4096);
        assertThat(t.text()).startsWith("yyyy").endsWith(Text.label(4096, endless.served.get()));
    }

    @Test
    void aCharacterCutByTheCapIsDroppedNotReplaced() {
        byte[] euros = "€".repeat(400).getBytes(StandardCharsets.UTF_8); // 1200 bytes, 3 per character

        Text.Capped t = OutputCapture.render(euros, 1000, 1200, 1000);

        assertThat(t.truncated()).isTrue();
        assertThat(t.text()).doesNotContain("\uFFFD");
        String head = t.text().substring(0, t.text().indexOf('\n'));
        assertThat(head).matches("€+");
        assertThat(Text.utf8Length(t.text())).isLessThanOrEqualTo(1000);
    }

    @Test
    void malformedBytesBecomeReplacementsAndStillFitTheCap() {
        byte[] junk = new byte[300];
        java.util.Arrays.fill(junk, (byte) 0xFF);

        Text.Capped t = OutputCapture.render(junk, 300, 300, 300);

        assertThat(Text.utf8Length(t.text())).isLessThanOrEqualTo(300);
        assertThat(t.truncated()).as("900 bytes of replacements do not fit in 300").isTrue();
        assertThat(t.text()).startsWith("\uFFFD");
    }

    @Test
    void aCapBelowTheLabelsRoomIsRefused() {
        assertThatThrownBy(() -> new OutputCapture(InputStream.nullInputStream(), 255, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256");
    }
}
