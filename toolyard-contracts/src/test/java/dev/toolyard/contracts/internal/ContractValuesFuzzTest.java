package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.Reason;
import dev.toolyard.spi.Json;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/**
 * Arbitrary values for each of the 15 types: validation never throws (a refusal is a
 * {@link ValueProblem} with {@code args_invalid} or {@code out_of_scope}), and a value that passes
 * reaches the argv as exactly one element equal to its validated text, which itself obeys every
 * hygiene rule and validates again to itself. So no metacharacter, {@code $(…)}, newline, leading dash,
 * look-alike host or encoded traversal reaches an argv unvalidated.
 *
 * <p>Input: byte 0 picks the type (modulo 15), byte 1's bits set allow_whitespace (1), allow_leading_dash
 * (2), block_internal (4), clamp (8) and send a JSON number instead of a string (16); the rest is the
 * value as UTF-8. Runs its seeds in every build; the build's second Surefire run fuzzes it with
 * {@code JAZZER_FUZZ=1}.
 */
class ContractValuesFuzzTest {
    private static final Path WORKSPACE = workspace();
    private static final String METACHARACTERS = ";|&$`(){}[]<>!";
    private static final CommandPlan PLAN = new CommandPlan(List.of(new CommandPlan.Fixed("tool"),
            new CommandPlan.Fixed("--flag"), new CommandPlan.Value("v")), true, true);

    private static Path workspace() {
        try {
            Path p = Files.createTempDirectory("contract-fuzz");
            Files.writeString(p.resolve("users.txt"), "root\n");
            return p;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "20s")
    void valuesNeverThrowAndTheArgvHoldsExactlyTheValidatedValue(byte[] data) throws Exception {
        if (data.length < 2) {
            return;
        }
        ArgType type = ArgType.values()[(data[0] & 0xff) % ArgType.values().length];
        int flags = data[1] & 0xff;
        String value = new String(data, 2, data.length - 2, StandardCharsets.UTF_8);
        boolean ws = (flags & 1) != 0;
        boolean dash = (flags & 2) != 0;
        boolean block = (flags & 4) != 0 && type.networkTarget();
        ArgDef def = new ArgDef("v", type, type.manifestName(), "", true, 1, null,
                type == ArgType.ENUM ? List.of("ping", "service", "-x", "a b") : List.of(),
                type == ArgType.STRING || type == ArgType.REGEX_MATCH ? "[A-Za-z0-9_./:-]{0,64}" : null,
                type == ArgType.INTEGER ? -5L : null, type == ArgType.INTEGER ? 100L : null,
                type == ArgType.NUMBER ? BigDecimal.valueOf(-1.5) : null, type == ArgType.NUMBER ? BigDecimal.TEN : null,
                (flags & 8) != 0, type == ArgType.URL ? List.of("http", "https") : List.of(), false, block, ws, dash);
        Values.Checks checks = new Values.Checks(ScopeRules.NONE, WORKSPACE,
                def.pattern() == null ? Map.of() : Map.of("v", BoundedPattern.anchor(def.pattern())));
        JsonNode raw = StringNode.valueOf(value);
        if ((flags & 16) != 0 && type.numeric()) {
            try {
                raw = Json.MAPPER.readTree(value);
            } catch (RuntimeException notJson) {
                return;
            }
            if (raw == null || !raw.isNumber()) {
                return;
            }
        }
        Values.Valid valid;
        try {
            valid = Values.check(def, raw, checks);
        } catch (ValueProblem refused) {
            assertThat(Set.of(Reason.ARGS_INVALID, Reasons.OUT_OF_SCOPE)).contains(refused.reason());
            assertThat(refused.getMessage()).startsWith("argument 'v'");
            return;
        }
        String text = valid.text();
        List<String> argv = PLAN.argv(Map.of("v", text), Set.of("v"));
        if (text.isEmpty()) {
            assertThat(argv).containsExactly("tool", "--flag");
            return;
        }
        assertThat(argv).containsExactly("tool", "--flag", "--", text);
        if (type != ArgType.ENUM) {
            hygienic(def, text);
        }
        assertThat(Values.check(def, StringNode.valueOf(text), checks).text()).as("idempotent").isEqualTo(text);
    }

    private static void hygienic(ArgDef def, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            assertThat(c).isNotEqualTo('\0').isNotEqualTo('\'').isNotEqualTo('"').isNotEqualTo('\\');
            assertThat(c < 0x20 || c == 0x7f).as("control character").isFalse();
            assertThat(Character.getType(c) == Character.FORMAT).as("format character").isFalse();
            if (!def.allowWhitespace() && def.type() != ArgType.MSF_OPTIONS) {
                assertThat(Character.isWhitespace(c) || Character.isSpaceChar(c)).as("whitespace").isFalse();
            }
            if (def.type() != ArgType.MSF_OPTIONS && !def.type().numeric() && def.type() != ArgType.BOOLEAN) {
                assertThat(METACHARACTERS.indexOf(c)).as("metacharacter " + c).isNegative();
            }
        }
        if (!def.allowLeadingDash()) {
            assertThat(text).doesNotStartWith("-").doesNotStartWith("+");
        }
        if (def.type().networkTarget() || def.type() == ArgType.PATH || def.type() == ArgType.CREDENTIAL_FILE) {
            assertThat(text.split("/", -1)).doesNotContain("..");
        }
        if (def.type().networkTarget()) {
            assertThat(text.chars().allMatch(ch -> ch < 0x7f)).as("ASCII").isTrue();
        }
        if (def.type() == ArgType.SCOPE_TARGET || def.type() == ArgType.URL) {
            // A-labels are refused in host names only: a URL's path may hold "/xn--" (found by the fuzzer).
            String host = def.type() == ArgType.URL ? urlHost(text) : text;
            if (host != null) {
                assertThat(host.toLowerCase(java.util.Locale.ROOT)).as("A-label").doesNotStartWith("xn--")
                        .doesNotContain(".xn--");
            }
        }
    }

    /** The authority's host, read by hand: the validator accepts URLs java.net.URI would not parse. */
    private static String urlHost(String url) {
        int start = url.indexOf("://");
        if (start < 0) {
            return null;
        }
        String rest = url.substring(start + 3);
        int end = rest.length();
        for (char stop : new char[] {'/', '?', '#'}) {
            int at = rest.indexOf(stop);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        String authority = rest.substring(0, end);
        String host = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = host.startsWith("[") ? -1 : host.lastIndexOf(':');
        return colon >= 0 ? host.substring(0, colon) : host;
    }
}
