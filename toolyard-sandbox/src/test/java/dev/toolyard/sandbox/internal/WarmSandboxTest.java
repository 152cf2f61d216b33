package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmSandboxTest {
    @Test
    void aRequestIsItsLengthThenEachArgumentAndEachVariableInNameOrderAsLengthPrefixedBytes() throws IOException {
        byte[] r = WarmSandbox.request(List.of("/bin/sh", "-c", "echo ü\n'$(x)'"), Map.of("PATH", "/usr/bin", "A", "1"));
        ByteBuffer b = ByteBuffer.wrap(r);

        assertThat(b.getInt()).isEqualTo(r.length - 4);
        assertThat(b.getInt()).isEqualTo(3);
        assertThat(string(b)).isEqualTo("/bin/sh");
        assertThat(string(b)).isEqualTo("-c");
        assertThat(string(b)).as("bytes as they are: no quoting, no splitting").isEqualTo("echo ü\n'$(x)'");
        assertThat(b.getInt()).isEqualTo(2);
        assertThat(string(b)).isEqualTo("A=1");
        assertThat(string(b)).isEqualTo("PATH=/usr/bin");
        assertThat(b.hasRemaining()).isFalse();
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getInt()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
