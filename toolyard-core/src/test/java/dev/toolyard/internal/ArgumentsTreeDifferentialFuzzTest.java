package dev.toolyard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.spi.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link ArgumentsTree} and {@code Json.MAPPER.readTree} agree on every text: where the fast reader
 * answers, Jackson accepts the same text and builds an equal tree, node kind for node kind and property
 * for property in the same order; everywhere else the reader declines and Jackson reads the text as it
 * always did (so every refusal is Jackson's). The fuzzer's bytes are either raw text or a document built
 * from them that is mostly plain JSON and sometimes strays (escapes, surrogates, numbers at the edges of
 * {@code int} and {@code long}, fractions, exponents, leading zeros, duplicate keys, deep nesting, bad
 * literals, control characters, trailing content).
 *
 * <p>Runs its seed corpus (under src/test/resources) in every build; fuzz longer on demand with
 * {@code JAZZER_FUZZ=1 mvn -pl toolyard-core test -Dtest=ArgumentsTreeDifferentialFuzzTest}.
 */
class ArgumentsTreeDifferentialFuzzTest {
    private static final String[] NAMES = {"text", "a", "b", "path", "count", "", "\\u0041", "a\\\"b", "\\ud83d\\ude00", "é"};
    /**
     * Names a schema might declare, as {@link ArgumentsTree#plainNames} keeps them (the quote, backslash and
     * control character ones it drops), fresh instances so that reuse shows as identity.
     */
    private static final String[] DECLARED = ArgumentsTree.plainNames(List.of(new String("text"), new String("a"),
            new String("b"), new String("ab"), new String("path"), new String("count"), new String(""),
            new String("A"), new String("a\"b"), new String("a\\b"), new String("\\u0041"), new String("😀"),
            new String("é"), new String("tab\there"), new String("nul\0")));
    private static final String[] NUMBERS = {
        "0", "-0", "1", "-1", "7", "2147483647", "2147483648", "-2147483648", "-2147483649", "123456789012345678",
        "999999999999999999", "-999999999999999999", "1234567890123456789", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "12345678901234567890", "01", "-01", "00", "1.0", "1.5",
        "-0.0", "1e2", "1E2", "1e-2", "0e0", "-", "+1", ".5", "1.", "0x10", "1e", "NaN", "Infinity",
    };
    private static final String[] STRINGS = {
        "\"\"", "\"buy milk\"", "\"a\\nb\"", "\"\\\"\"", "\"\\\\\"", "\"\\/\"", "\"\\b\\f\\r\\t\"", "\"\\u00e9\"",
        "\"\\u00E9\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\udc00x\"", "\"é😀\"", "\"\\x\"", "\"\\u12\"",
        "\"\\u12g4\"", "\"tab\there\"", "\"nul\u0000\"", "\"\u007f\"", "\"\u2028\"", "'single'", "\"unterminated",
    };
    private static final String[] LITERALS = {"true", "false", "null", "True", "nul", "truex", "falsey", "null1"};
    private static final String[] SPACES = {"", " ", "\n", "\r\n", "\t", "  ", "\u000b", "\u00a0", "\ufeff", "/**/"};

    @FuzzTest(maxDuration = "10s")
    void theFastReaderAndJacksonAgreeOnEveryText(FuzzedDataProvider data) {
        String text = data.consumeBoolean() ? data.consumeRemainingAsString() : new Generator(data).document();
        assertAgree(text);
    }

    /** The reader answers for the documents models send, so the fast path is really taken. */
    @Test
    void plainDocumentsAreReadAndEqualJacksonsTree() {
        for (String text : List.of("{\"text\":\"buy milk\"}", " {\"a\": [1, -2, 2147483648, true, false, null],"
                + " \"b\": {\"c\": \"\\u00e9\\n\"}, \"d\": {}, \"e\": []} ", "{}", "{\"n\":-9223372036854775}")) {
            assertThat(ArgumentsTree.read(text)).as(text).isNotNull();
            assertAgree(text);
        }
    }

    /** Everything outside the plain subset goes to Jackson, refusals and all. */
    @Test
    void textsOutsideThePlainSubsetAreLeftToJackson() {
        for (String text : List.of("", "[]", "null", "\"s\"", "{\"a\":1.5}", "{\"a\":1e2}", "{\"a\":01}",
                "{\"a\":1234567890123456789}", "{\"a\":1,\"a\":2}", "{\"a\":1} x", "{\"a\":1}{}", "{\"a\":tru}",
                "{\"a\":\"\u0001\"}", "{\"a\":\"\\x\"}", "{a:1}", "{\"a\":1,}", "\ufeff{}", "{\"a\":1 /* c */}",
                "{\"a\":" + "[".repeat(40) + "]".repeat(40) + "}", "{\"" + "n".repeat(2000) + "\":1}")) {
            assertThat(ArgumentsTree.read(text)).as(text).isNull();
            assertAgree(text);
        }
    }

    /** Declared names that need no escape key a tree by their own instances; the others are never kept. */
    @Test
    void declaredNamesKeyTheTreeByTheirOwnInstances() {
        assertThat(DECLARED).containsExactly("text", "a", "b", "ab", "path", "count", "", "A", "😀", "é");
        ObjectNode tree = ArgumentsTree.read("{\"text\":\"buy milk\",\"ab\":{\"a\":1},\"a\":2,\"\\u0041\":3,\"zz\":4}", DECLARED);
        assertThat(tree).isNotNull();
        List<String> keys = new ArrayList<>(tree.propertyNames());
        assertThat(keys).containsExactly("text", "ab", "a", "A", "zz");
        assertThat(keys.get(0)).isSameAs(DECLARED[0]);
        assertThat(keys.get(1)).isSameAs(DECLARED[3]);
        assertThat(keys.get(2)).isSameAs(DECLARED[1]);
        assertThat(keys.get(3)).isNotSameAs(DECLARED[7]); // escaped in the text: read as before, equal all the same
        assertThat(tree.get("ab").propertyNames().iterator().next()).isNotSameAs(DECLARED[1]); // top level only
        assertThat(ArgumentsTree.read("{\"te\\\"xt\":1}", DECLARED).propertyNames()).containsExactly("te\"xt");
        for (String text : List.of("{\"text\":1,\"text\":2}", "{\"text\" 1}", "{\"text",
                "{\"tab\there\":1}", "{\"nul\0\":1}")) {
            assertThat(ArgumentsTree.read(text, DECLARED)).as(text).isNull();
            assertAgree(text);
        }
    }

    static void assertAgree(String text) {
        ObjectNode fast = ArgumentsTree.read(text);
        ObjectNode keyed = ArgumentsTree.read(text, DECLARED);
        assertThat(keyed == null).as("with declared names, the reader declines the same texts: %s", text)
                .isEqualTo(fast == null);
        if (fast == null) {
            return; // Jackson reads it, as before: nothing of the reader's reaches a call
        }
        JsonNode[] jackson = new JsonNode[1];
        assertThatCode(() -> jackson[0] = Json.MAPPER.readTree(text)).as("Jackson accepts what the reader read: %s", text)
                .doesNotThrowAnyException();
        assertSameTree(fast, jackson[0], text);
        assertSameTree(keyed, jackson[0], text);
    }

    /** Equal, and of the same node classes with properties in the same order. */
    static void assertSameTree(JsonNode fast, JsonNode jackson, String text) {
        assertThat(fast).as(text).isEqualTo(jackson);
        assertThat(fast.getClass()).as(text).isEqualTo(jackson.getClass());
        if (fast.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> a = fast.properties().iterator();
            Iterator<Map.Entry<String, JsonNode>> b = jackson.properties().iterator();
            while (a.hasNext()) {
                Map.Entry<String, JsonNode> x = a.next();
                Map.Entry<String, JsonNode> y = b.next();
                assertThat(x.getKey()).as(text).isEqualTo(y.getKey());
                assertSameTree(x.getValue(), y.getValue(), text);
            }
            assertThat(b.hasNext()).as(text).isFalse();
        } else if (fast.isArray()) {
            for (int i = 0; i < fast.size(); i++) {
                assertSameTree(fast.get(i), jackson.get(i), text);
            }
        }
    }

    /** Builds a document, mostly plain JSON, straying now and then. */
    private static final class Generator {
        private final FuzzedDataProvider in;
        private int nodes;

        Generator(FuzzedDataProvider in) {
            this.in = in;
        }

        private <T> T pick(T[] values) {
            return values[in.consumeInt(0, values.length - 1)];
        }

        private boolean chance(int percent) {
            return in.consumeInt(0, 99) >= 100 - percent;
        }

        private String space() {
            return chance(30) ? pick(SPACES) : "";
        }

        String document() {
            String body = object(0);
            String trailing = chance(5) ? pick(new String[] {"x", "{}", ",", "]", "}"}) : "";
            return space() + body + space() + trailing;
        }

        private String object(int depth) {
            int count = nodes > 40 ? 0 : in.consumeInt(0, 4);
            List<String> members = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = chance(10) && !members.isEmpty() ? "dup" : pick(NAMES);
                if (name.equals("dup")) {
                    members.add(members.get(0).substring(0, members.get(0).indexOf(':') + 1) + value(depth + 1));
                    continue;
                }
                members.add(space() + "\"" + name + "\"" + space() + ":" + space() + value(depth + 1) + space());
            }
            String sep = chance(3) ? ",," : ",";
            return "{" + String.join(sep, members) + (chance(3) ? "," : "") + "}";
        }

        private String array(int depth) {
            int count = nodes > 40 ? 0 : in.consumeInt(0, 4);
            List<String> items = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                items.add(space() + value(depth + 1) + space());
            }
            return "[" + String.join(",", items) + (chance(3) ? "," : "") + "]";
        }

        private String value(int depth) {
            nodes++;
            if (chance(2)) {
                // deep nesting, on both sides of the reader's and Jackson's limits
                int deep = in.consumeInt(28, 70);
                return "[".repeat(deep) + "]".repeat(deep);
            }
            int kind = in.consumeInt(0, depth > 6 ? 2 : 4);
            switch (kind) {
                case 0:
                    return chance(20) ? pick(NUMBERS) + pick(new String[] {"", "0", "5", "e1", ".0", "x"})
                            : pick(NUMBERS);
                case 1:
                    return chance(70) ? pick(STRINGS) : "\"" + in.consumeString(8).replace("\"", "\\\"") + "\"";
                case 2:
                    return pick(LITERALS);
                case 3:
                    return array(depth);
                default:
                    return object(depth);
            }
        }
    }
}
