package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The warm frames, and the one rule that keeps the two sides of the protocol alike. */
class WarmProtocolTest {
    private static final Path C_SOURCE = Path.of("src/main/c/toolyard-warm.c");
    private static final Pattern DEFINE = Pattern.compile("(?m)^#define TY_([A-Z0-9_]+) (\\S+)\\s*$");

    /** @return the C file's {@code TY_} constants, by name without the prefix, as numbers */
    private static Map<String, Long> cConstants() throws IOException {
        Map<String, Long> m = new TreeMap<>();
        Matcher d = DEFINE.matcher(Files.readString(C_SOURCE, StandardCharsets.UTF_8));
        while (d.find()) {
            String v = d.group(2);
            long n;
            if (v.matches("'.'")) {
                n = v.charAt(1);
            } else if (v.matches("0[0-7]+")) {
                n = Long.parseLong(v, 8);
            } else if (v.matches("[0-9]+")) {
                n = Long.parseLong(v);
            } else {
                throw new AssertionError("TY_" + d.group(1) + " must be a character or a plain number, got " + v);
            }
            m.put(d.group(1), n);
        }
        return m;
    }

    /** @return WarmProtocol's constants shared with C: every static final char or int but the Java-only SPOILED */
    private static Map<String, Long> javaConstants() throws IllegalAccessException {
        Map<String, Long> m = new TreeMap<>();
        for (Field f : WarmProtocol.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (!Modifier.isStatic(mod) || !Modifier.isFinal(mod) || f.getName().equals("SPOILED")) {
                continue;
            }
            f.setAccessible(true);
            if (f.getType() == char.class) {
                m.put(f.getName(), (long) f.getChar(null));
            } else if (f.getType() == int.class) {
                m.put(f.getName(), (long) f.getInt(null));
            }
        }
        return m;
    }

    @Test
    void everyConstantOfTheProtocolIsTheSameInTheJavaAndTheCSourceAndNeitherHasOneTheOtherLacks() throws Exception {
        Map<String, Long> c = cConstants();
        assertThat(c).as("the C file's TY_ constants").containsKeys("TAG_READY", "TAG_EXIT", "EXIT_BYTES", "FLAG_SOCKETS_LEFT");
        assertThat(javaConstants()).isEqualTo(c);
    }

    @Test
    void theCSourceUsesNoBareFrameTagOrLengthOutsideItsDefines() throws IOException {
        String body = Files.readString(C_SOURCE, StandardCharsets.UTF_8);
        String code = body.substring(body.indexOf("#define _GNU_SOURCE")).replaceAll("(?m)^#define TY_.*$", "");
        assertThat(code).doesNotContainPattern("frame\\('[A-Z]'").doesNotContainPattern("\\b(x|ready)\\[1[26]\\]");
    }

    @Test
    void aRequestIsItsLengthThenEachArgumentAndEachVariableInNameOrderAsLengthPrefixedBytes() throws IOException {
        byte[] r = WarmProtocol.request(List.of("/bin/sh", "-c", "echo ü\n'$(x)'"), Map.of("PATH", "/usr/bin", "A", "1"),
                StandardCharsets.UTF_8);
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

    @Test
    void anExitFrameIsCleanOnlyWithAnExitCodeBelow128NothingLeftAndNoSpoilingFlag() throws IOException {
        assertThat(exit(3, 0, WarmProtocol.FLAG_WIPED).clean()).isTrue();
        assertThat(exit(137, 0, 0).clean()).isFalse();
        assertThat(exit(0, 1, 0).clean()).isFalse();
        for (int flag : List.of(WarmProtocol.FLAG_WIPE_INCOMPLETE, WarmProtocol.FLAG_SOCKETS_LEFT, WarmProtocol.FLAG_CHANGED,
                WarmProtocol.FLAG_PACKETS_MOVED)) {
            assertThat(exit(0, 0, flag).clean()).as("flag " + flag).isFalse();
        }
        assertThatThrownBy(() -> WarmProtocol.exit(new byte[16], 16)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> WarmProtocol.ready(new byte[12], 12)).isInstanceOf(IOException.class);
        byte[] ready = ByteBuffer.allocate(16).putLong(0x1_0000_0002L).putLong(-2L).array();
        assertThat(WarmProtocol.ready(ready, 16)).isEqualTo(new WarmProtocol.Ready(0x1_0000_0002L, -2L));
    }

    @Test
    void aWarmSandboxMovesOnlyAlongItsLifeAndNeverBackFromSpentEndingOrEnded() {
        WarmSandbox.State starting = WarmSandbox.State.STARTING;
        assertThat(starting.mayMoveTo(WarmSandbox.State.RUNNING)).isFalse();
        assertThat(WarmSandbox.State.IDLE.mayMoveTo(WarmSandbox.State.RUNNING)).isTrue();
        assertThat(WarmSandbox.State.RUNNING.mayMoveTo(WarmSandbox.State.IDLE)).isTrue();
        assertThat(WarmSandbox.State.RUNNING.mayMoveTo(WarmSandbox.State.RUNNING)).isFalse();
        for (WarmSandbox.State to : WarmSandbox.State.values()) {
            assertThat(WarmSandbox.State.SPENT.mayMoveTo(to)).as("SPENT -> " + to).isEqualTo(to == WarmSandbox.State.ENDING);
            assertThat(WarmSandbox.State.ENDING.mayMoveTo(to)).as("ENDING -> " + to).isEqualTo(to == WarmSandbox.State.ENDED);
            assertThat(WarmSandbox.State.ENDED.mayMoveTo(to)).as("ENDED -> " + to).isFalse();
        }
        for (WarmSandbox.State from : EnumSet.range(WarmSandbox.State.STARTING, WarmSandbox.State.SPENT)) {
            assertThat(from.mayMoveTo(WarmSandbox.State.ENDING)).as(from + " -> ENDING").isTrue();
            assertThat(from.mayMoveTo(WarmSandbox.State.ENDED)).as("only ENDING reaches ENDED, not " + from).isFalse();
        }
    }

    private static WarmProtocol.Exit exit(int status, int left, int flags) throws IOException {
        return WarmProtocol.exit(ByteBuffer.allocate(12).putInt(status).putInt(left).putInt(flags).array(), 12);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getInt()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
