package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.spi.Json;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/** Table tests of every type and every hygiene rule, in ToolClad's order. */
class ValuesTest {
    @TempDir
    Path work;

    static ArgDef def(ArgType type) {
        return new ArgDef("v", type, type.manifestName(), "", true, 1, null,
                type == ArgType.ENUM ? List.of("ping", "service") : List.of(),
                type == ArgType.REGEX_MATCH ? "(exploit|auxiliary)/[a-z_/]+" : null, null, null, null, null, false,
                type == ArgType.URL ? List.of("http", "https") : List.of(), false, false, false, false);
    }

    static ArgDef with(ArgType type, Long min, Long max, boolean clamp, boolean ws, boolean dash) {
        return new ArgDef("v", type, type.manifestName(), "", true, 1, null, List.of(), null, min, max, null, null,
                clamp, List.of(), false, false, ws, dash);
    }

    static ArgDef blocking(ArgType type) {
        return new ArgDef("v", type, type.manifestName(), "", true, 1, null, List.of(), null, null, null, null, null,
                false, type == ArgType.URL ? List.of("http", "https") : List.of(), false, true, false, false);
    }

    Values.Checks checks(ArgDef d) {
        return new Values.Checks(ScopeRules.NONE, work,
                d.pattern() == null ? Map.of() : Map.of("v", BoundedPattern.anchor(d.pattern())));
    }

    String ok(ArgDef d, String value) throws ValueProblem {
        return Values.check(d, StringNode.valueOf(value), checks(d)).text();
    }

    String refused(ArgDef d, String value) {
        try {
            Values.check(d, StringNode.valueOf(value), checks(d));
        } catch (ValueProblem p) {
            assertThat(p.getMessage()).startsWith("argument 'v'");
            return p.reason().wireName() + ": " + p.getMessage();
        }
        throw new AssertionError("accepted: " + value);
    }

    @Test
    void aJsonNumberTooLargeForADoubleIsRefusedNotThrown_bugFoundByTheContractFuzzRun() throws Exception {
        // Jackson reads 1e400 as an infinite DoubleNode, which has no decimal form: found by ContractValuesFuzzTest in CI.
        for (String json : List.of("1e400", "-1e400")) {
            JsonNode raw = Json.MAPPER.readTree(json);
            for (ArgType type : List.of(ArgType.NUMBER, ArgType.INTEGER, ArgType.PORT)) {
                ArgDef d = def(type);
                assertThatThrownBy(() -> Values.check(d, raw, checks(d))).isInstanceOf(ValueProblem.class)
                        .hasMessageStartingWith("argument 'v'");
            }
        }
    }

    @Test
    void aNumberTooLongWrittenOutIsRefusedSoItsNormalFormAlwaysRevalidates_bugFoundByTheContractFuzzRun()
            throws ValueProblem {
        // 1e-63 and 1e50 parse, but their plain forms carry more digits than the number type accepts.
        for (String v : List.of("1e-63", "1e50", "-1e-41")) {
            assertThat(refused(def(ArgType.NUMBER), v)).as(v).contains("args_invalid").contains("40 digits");
        }
        for (String v : List.of("1e-40", "1e39")) {
            String normal = ok(def(ArgType.NUMBER), v);
            assertThat(ok(def(ArgType.NUMBER), normal)).as("%s written out re-validates", v).isEqualTo(normal);
        }
    }

    @Test
    void nulIsRefusedForEveryTypeEnumIncluded() {
        for (ArgType t : ArgType.values()) {
            assertThat(refused(def(t), "ping\0x")).as(t.name()).contains("NUL");
        }
    }

    @ParameterizedTest(name = "{0} is refused as a control or invisible character")
    @CsvSource({"0001", "0009", "000A", "000D", "001B", "007F", "0085", "200B", "202E", "2066", "FEFF"})
    void controlAndInvisibleCharactersAreRefused(String hex) {
        String v = "a" + (char) Integer.parseInt(hex, 16) + "b";
        for (ArgType t : List.of(ArgType.STRING, ArgType.PATH, ArgType.SCOPE_TARGET, ArgType.URL, ArgType.DURATION,
                ArgType.MSF_OPTIONS, ArgType.REGEX_MATCH, ArgType.INTEGER, ArgType.BOOLEAN)) {
            assertThat(refused(def(t), v)).as(t + " " + hex).contains("control or invisible");
        }
    }

    @Test
    void quotesAndBackslashAreRefusedBeforeTheTypeParses() {
        for (String v : List.of("a'b", "a\"b", "a\\b")) {
            for (ArgType t : List.of(ArgType.STRING, ArgType.PATH, ArgType.URL, ArgType.SCOPE_TARGET,
                    ArgType.MSF_OPTIONS, ArgType.INTEGER)) {
                assertThat(refused(def(t), v)).as(t + " " + v).contains("quote or backslash");
            }
        }
    }

    @Test
    void whitespaceIsRefusedUnlessAllowedAndMsfOptionsIsExempt() throws ValueProblem {
        for (String v : List.of("a b", "a\u00a0b", "a\u2003b", "a\u3000b")) {
            assertThat(refused(def(ArgType.STRING), v)).contains("whitespace");
        }
        assertThat(ok(with(ArgType.STRING, null, null, false, true, false), "two words")).isEqualTo("two words");
        assertThat(ok(def(ArgType.MSF_OPTIONS), "set RHOSTS 10.0.0.1;set RPORT 445")).isEqualTo("set RHOSTS 10.0.0.1;set RPORT 445");
    }

    @Test
    void leadingDashOrPlusIsRefusedUnlessAllowed() throws ValueProblem {
        for (ArgType t : List.of(ArgType.STRING, ArgType.PATH, ArgType.SCOPE_TARGET, ArgType.DURATION)) {
            assertThat(refused(def(t), "-oX")).as(t.name()).contains("starts with '-' or '+'");
            assertThat(refused(def(t), "+x")).as(t.name()).contains("starts with '-' or '+'");
        }
        assertThat(ok(with(ArgType.STRING, null, null, false, false, true), "-v")).isEqualTo("-v");
    }

    @Test
    void shellMetacharactersAreRefusedInStringDerivedTypes() {
        for (char c : ";|&$`(){}[]<>!".toCharArray()) {
            for (ArgType t : List.of(ArgType.STRING, ArgType.PATH, ArgType.SCOPE_TARGET, ArgType.URL)) {
                assertThat(refused(def(t), "a" + c + "b")).as(t + " " + c).contains("metacharacter");
            }
        }
        assertThat(refused(def(ArgType.STRING), "$(whoami)")).contains("metacharacter");
    }

    @ParameterizedTest(name = "integer {0} -> {1}")
    @CsvSource({"42,42", "+5,5", "0,0", "007,7", "9223372036854775807,9223372036854775807"})
    void integersNormalise(String in, String out) throws ValueProblem {
        assertThat(ok(def(ArgType.INTEGER), in)).isEqualTo(out);
    }

    @Test
    void integersHonourBoundsClampAndTheLeadingDashRuleAfterClamping() throws ValueProblem {
        assertThat(refused(def(ArgType.INTEGER), "-1")).contains("starts with '-'");
        assertThat(ok(with(ArgType.INTEGER, null, null, false, false, true), "-1")).isEqualTo("-1");
        assertThat(ok(with(ArgType.INTEGER, 1L, 64L, true, false, false), "-5")).isEqualTo("1");
        assertThat(ok(with(ArgType.INTEGER, 1L, 64L, true, false, false), "1000")).isEqualTo("64");
        assertThat(refused(with(ArgType.INTEGER, 1L, 64L, false, false, false), "65")).contains("at most 64");
        assertThat(refused(def(ArgType.INTEGER), "1.5")).contains("whole number");
        assertThat(refused(def(ArgType.INTEGER), "99999999999999999999")).contains("args_invalid");
        assertThat(refused(def(ArgType.INTEGER), "")).contains("whole number");
    }

    @Test
    void numericTypesAcceptAJsonNumberOrAStringHoldingOne() throws ValueProblem {
        JsonNode n = Json.MAPPER.readTree("{\"i\":12,\"d\":0.25}");
        assertThat(Values.check(def(ArgType.INTEGER), n.get("i"), checks(def(ArgType.INTEGER))).json().longValue())
                .isEqualTo(12);
        assertThat(Values.check(def(ArgType.NUMBER), n.get("d"), checks(def(ArgType.NUMBER))).text()).isEqualTo("0.25");
        assertThat(Values.check(def(ArgType.PORT), n.get("i"), checks(def(ArgType.PORT))).text()).isEqualTo("12");
        assertThatThrownBy(() -> Values.check(def(ArgType.STRING), n.get("i"), checks(def(ArgType.STRING))))
                .isInstanceOf(ValueProblem.class).hasMessageContaining("must be a string");
    }

    @Test
    void numbersRefuseNanAndInfinityAndNormalise() throws ValueProblem {
        for (String v : List.of("NaN", "nan", "Infinity", "inf", "1e999", "0x10", "1,5")) {
            assertThat(refused(def(ArgType.NUMBER), v)).as(v).contains("args_invalid");
        }
        assertThat(ok(def(ArgType.NUMBER), "1.50")).isEqualTo("1.5");
        assertThat(ok(def(ArgType.NUMBER), "2.0")).isEqualTo("2");
        assertThat(ok(def(ArgType.NUMBER), "1e3")).isEqualTo("1000");
        ArgDef bounded = new ArgDef("v", ArgType.NUMBER, "number", "", true, 1, null, List.of(), null, null, null,
                BigDecimal.ZERO, BigDecimal.ONE, true, List.of(), false, false, false, false);
        assertThat(ok(bounded, "1.7")).isEqualTo("1");
        assertThat(ok(bounded, "-0.5")).isEqualTo("0");
    }

    @Test
    void portsAreDigitsFrom1To65535() throws ValueProblem {
        assertThat(ok(def(ArgType.PORT), "443")).isEqualTo("443");
        for (String v : List.of("0", "65536", "+80", "-1", "80a", "")) {
            assertThat(refused(def(ArgType.PORT), v)).as(v).contains("args_invalid");
        }
    }

    @Test
    void booleansAreCaseInsensitiveAndNormaliseToLowerCase() throws ValueProblem {
        assertThat(ok(def(ArgType.BOOLEAN), "True")).isEqualTo("true");
        assertThat(ok(def(ArgType.BOOLEAN), "FALSE")).isEqualTo("false");
        assertThat(Values.check(def(ArgType.BOOLEAN), StringNode.valueOf("True"), checks(def(ArgType.BOOLEAN))).json()
                .isBoolean()).isTrue();
        for (String v : List.of("yes", "1", "t", "")) {
            assertThat(refused(def(ArgType.BOOLEAN), v)).as(v).contains("true or false");
        }
    }

    @Test
    void enumsAcceptOnlyTheDeclaredValuesExactly() throws ValueProblem {
        assertThat(ok(def(ArgType.ENUM), "service")).isEqualTo("service");
        assertThat(refused(def(ArgType.ENUM), "Service")).contains("declared values");
        assertThat(refused(def(ArgType.ENUM), "service;id")).contains("declared values");
    }

    @Test
    void scopeTargetsAcceptHostsAddressesAndRangesAndRefuseShellSyntax() throws ValueProblem {
        for (String v : List.of("192.0.2.7", "2001:db8:5::9", "docs.example", "api.docs.example", "198.51.100.0/24")) {
            ok(def(ArgType.SCOPE_TARGET), v);
        }
        for (String v : List.of("*.docs.example", "docs.example;id", "`id`.docs.example",
                "docs.example\nother.example", "", "192.0.2.7&&id")) {
            refused(def(ArgType.SCOPE_TARGET), v);
        }
    }

    @Test
    void scopeTargetsRefuseLookAlikesTraversalAndNonCanonicalNumbers() throws ValueProblem {
        assertThat(refused(def(ArgType.SCOPE_TARGET), "exаmple.com")).contains("ASCII"); // Cyrillic a
        assertThat(refused(def(ArgType.SCOPE_TARGET), "xn--exmple-cua.com")).contains("punycode");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "a/../etc")).contains("'..'");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "%2e%2e")).contains("percent");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "0x7f.1")).contains("canonical dotted quad");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "2130706433")).contains("canonical dotted quad");
        assertThat(ok(def(ArgType.SCOPE_TARGET), "Example.COM")).isEqualTo("example.com");
        assertThat(ok(def(ArgType.SCOPE_TARGET), "2001:DB8:0:0::1")).isEqualTo("2001:db8::1");
    }

    @Test
    void linkLocalIsAlwaysRefusedAndInternalTargetsWithBlockInternal() throws ValueProblem {
        assertThat(refused(def(ArgType.SCOPE_TARGET), "169.254.169.254")).startsWith("out_of_scope").contains("link-local");
        assertThat(refused(def(ArgType.IP_ADDRESS), "fe80::1")).startsWith("out_of_scope");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "169.254.169.254.nip.io")).contains("link-local");
        assertThat(refused(def(ArgType.SCOPE_TARGET), "metadata.google.internal")).contains("metadata");
        assertThat(ok(def(ArgType.SCOPE_TARGET), "127.0.0.1")).isEqualTo("127.0.0.1");
        for (String v : List.of("127.0.0.1", "10.1.2.3", "192.168.0.1", "100.64.0.1", "0.0.0.0", "::1", "fc00::1",
                "::ffff:127.0.0.1", "localhost", "db.internal", "printer.local", "10.0.0.1.nip.io",
                "ip-10-0-0-1.example.com", "10.0.0.0/8", "192.168.0.0/24", "8.0.0.0/4")) {
            assertThat(refused(blocking(ArgType.SCOPE_TARGET), v)).as(v).startsWith("out_of_scope");
        }
        assertThat(ok(blocking(ArgType.SCOPE_TARGET), "93.184.215.14")).isEqualTo("93.184.215.14");
        assertThat(ok(blocking(ArgType.SCOPE_TARGET), "example.com")).isEqualTo("example.com");
        assertThat(ok(blocking(ArgType.CIDR), "8.8.8.0/24")).isEqualTo("8.8.8.0/24");
        assertThat(refused(blocking(ArgType.CIDR), "169.0.0.0/8")).contains("link-local");
        assertThat(refused(def(ArgType.CIDR), "169.254.0.0/16")).contains("link-local");
    }

    @Test
    void urlsAreCheckedForSchemeUserInfoHostAndEncodedTraversal() throws ValueProblem {
        assertThat(ok(def(ArgType.URL), "https://example.com/a/b?x=1")).isEqualTo("https://example.com/a/b?x=1");
        assertThat(refused(def(ArgType.URL), "ftp://example.com/")).contains("scheme");
        assertThat(refused(def(ArgType.URL), "file:///etc/passwd")).contains("args_invalid");
        assertThat(refused(def(ArgType.URL), "javascript://x")).contains("scheme");
        assertThat(refused(def(ArgType.URL), "https://user@example.com/")).contains("user info");
        assertThat(refused(def(ArgType.URL), "https://example.com/%2e%2e/etc")).contains("'..'");
        assertThat(refused(def(ArgType.URL), "https://example.com/a#frag")).contains("fragment");
        assertThat(refused(def(ArgType.URL), "https://exаmple.com/")).contains("ASCII");
        assertThat(refused(def(ArgType.URL), "http://169.254.169.254/latest")).startsWith("out_of_scope");
        assertThat(refused(blocking(ArgType.URL), "http://127.0.0.1:8080/")).startsWith("out_of_scope");
        assertThat(refused(def(ArgType.URL), "https://example.com:99999/")).contains("port");
    }

    @Test
    void pathsAreRelativeWithoutDotDotOrEncodedTraversal() throws ValueProblem {
        assertThat(ok(def(ArgType.PATH), "wordlists/common.txt")).isEqualTo("wordlists/common.txt");
        for (String v : List.of("/etc/shadow", "C:/Windows", "../x", "a/../../x", "a/..", "%2e%2e/x", "~/x", "")) {
            assertThat(refused(def(ArgType.PATH), v)).as(v).contains("args_invalid");
        }
    }

    @Test
    void ipAddressesAndCidrsAreCanonical() throws ValueProblem {
        assertThat(ok(def(ArgType.IP_ADDRESS), "8.8.8.8")).isEqualTo("8.8.8.8");
        assertThat(ok(def(ArgType.IP_ADDRESS), "2001:0db8::0001")).isEqualTo("2001:db8::1");
        for (String v : List.of("8.8.8", "08.8.8.8", "256.1.1.1", "example.com", "::1%eth0")) {
            assertThat(refused(def(ArgType.IP_ADDRESS), v)).as(v).contains("args_invalid");
        }
        assertThat(ok(def(ArgType.CIDR), "10.0.1.0/24")).isEqualTo("10.0.1.0/24");
        assertThat(ok(def(ArgType.CIDR), "2001:db8::/32")).isEqualTo("2001:db8::/32");
        for (String v : List.of("10.0.1.0", "10.0.1.0/33", "10.0.1.0/024", "10.0.1.0/", "/24")) {
            assertThat(refused(def(ArgType.CIDR), v)).as(v).contains("args_invalid");
        }
    }

    @Test
    void msfOptionsAreKeyValuePairs() throws ValueProblem {
        assertThat(ok(def(ArgType.MSF_OPTIONS), "RHOSTS 10.0.0.1; RPORT 445")).isEqualTo("RHOSTS 10.0.0.1; RPORT 445");
        for (String v : List.of("rhosts 1", "RHOSTS", "RHOSTS $(id)", "RHOSTS a|b", ";;")) {
            assertThat(refused(def(ArgType.MSF_OPTIONS), v)).as(v).contains("args_invalid");
        }
    }

    @Test
    void credentialFilesMustExistAsRegularFilesInTheWorkspace() throws Exception {
        Files.writeString(work.resolve("users.txt"), "root\n");
        Files.createDirectory(work.resolve("dir"));
        Files.createSymbolicLink(work.resolve("out"), Path.of("/etc/passwd"));
        assertThat(ok(def(ArgType.CREDENTIAL_FILE), "users.txt")).isEqualTo("users.txt");
        assertThat(refused(def(ArgType.CREDENTIAL_FILE), "missing.txt")).contains("names no file");
        assertThat(refused(def(ArgType.CREDENTIAL_FILE), "dir")).contains("regular file");
        assertThat(refused(def(ArgType.CREDENTIAL_FILE), "out")).contains("inside the workspace");
        assertThat(refused(def(ArgType.CREDENTIAL_FILE), "../users.txt")).contains("'..'");
    }

    @Test
    void durationsAreSecondsOrUnitComponents() throws ValueProblem {
        for (String v : List.of("30", "5m", "2h", "1h30m", "500ms", "1h2m3s4ms")) {
            assertThat(ok(def(ArgType.DURATION), v)).isEqualTo(v);
        }
        for (String v : List.of("", "5x", "m", "1.5h", "30m5h", "-5m")) {
            assertThat(refused(def(ArgType.DURATION), v)).as(v).contains("args_invalid");
        }
    }

    @Test
    void regexMatchMustMatchTheWholeAnchoredPattern() throws ValueProblem {
        assertThat(ok(def(ArgType.REGEX_MATCH), "exploit/windows/smb")).isEqualTo("exploit/windows/smb");
        assertThat(refused(def(ArgType.REGEX_MATCH), "post/x")).contains("pattern");
        assertThat(refused(def(ArgType.REGEX_MATCH), "xexploit/a")).contains("pattern");
    }

    @Test
    void aCatastrophicPatternGivesUpWithinItsBudgetInsteadOfHanging() {
        ArgDef d = new ArgDef("v", ArgType.STRING, "string", "", true, 1, null, List.of(), "(a+)+", null, null, null,
                null, false, List.of(), false, false, false, false);
        assertThat(refused(d, "a".repeat(4000) + "b")).contains("pattern");
    }

    @Test
    void aRefusalNeverEchoesTheValue() {
        String secret = "sekrit-value-1234;";
        assertThat(refused(def(ArgType.STRING), secret)).doesNotContain("sekrit");
        assertThat(refused(def(ArgType.ENUM), secret)).doesNotContain("sekrit");
        assertThat(Reason.ARGS_INVALID.wireName()).isEqualTo("args_invalid");
    }
}
