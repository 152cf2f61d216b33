package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrintableNameTest {
    @Test
    void anOrdinaryNameIsKeptAsIsWhateverItsScript() {
        String name = "r\u00e9sum\u00e9 \u65e5\u672c \ud83d\ude00 (1).txt";
        assertThat(PrintableName.of(name)).isSameAs(name);
    }

    @Test
    void lineBreaksTabsAndBackslashesAreEscaped() {
        assertThat(PrintableName.of("a\nb\tc\rd\\e")).isEqualTo("a\\nb\\tc\\rd\\\\e");
    }

    @Test
    void otherControlCharactersAndUnicodeLineSeparatorsAreEscapedAsHex() {
        assertThat(PrintableName.of("\u0000\u001b[0m\u007f\u0085\u2028\u2029"))
                .isEqualTo("\\u0000\\u001b[0m\\u007f\\u0085\\u2028\\u2029");
    }
}
