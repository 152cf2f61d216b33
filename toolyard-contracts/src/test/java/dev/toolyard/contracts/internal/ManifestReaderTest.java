package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.contracts.ContractException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a manifest must be to load, each refusal naming the file and key. */
class ManifestReaderTest {
    static final String TOOL = """
            [tool]
            name = "t_tool"
            description = "a test tool"
            """;
    static final String OUTPUT = """
            [output]
            format = "text"
            """;

    static Manifest read(String text) {
        return ManifestReader.read("t.clad.toml", text, Map.of());
    }

    static String refusal(String text) {
        try {
            read(text);
        } catch (ContractException e) {
            assertThat(e.getMessage()).startsWith("t.clad.toml: ");
            return e.getMessage();
        }
        throw new AssertionError("loaded:\n" + text);
    }

    static String command(String exec) {
        return TOOL + "[args.a]\ntype = \"string\"\n[command]\nexec = " + exec + "\n" + OUTPUT;
    }

    @Test
    void aMinimalManifestLoads() {
        Manifest m = read(command("[\"echo\", \"{a}\"]"));
        assertThat(m.tool().name()).isEqualTo("t_tool");
        assertThat(m.tool().timeoutSeconds()).isEqualTo(60);
        assertThat(m.command().elements()).hasSize(2);
    }

    @ParameterizedTest(name = "unknown key in {0}")
    @CsvSource(delimiter = '|', value = {
        "[tool]|[tool] key 'colour'",
        "[args.a]|[args.a] key 'colour'",
        "[command]|[command] key 'colour'",
        "[output]|[output] key 'colour'"})
    void unknownKeysAreRefusedNamingTheKey(String table, String expected) {
        String text = command("[\"echo\", \"{a}\"]").replace(table + "\n", table + "\ncolour = \"red\"\n");
        assertThat(refusal(text)).contains(expected).contains("is not a known key");
    }

    @Test
    void anUnknownTopLevelTableIsRefused() {
        assertThat(refusal(command("[\"echo\"]") + "[extra]\nx = 1\n")).contains("key 'extra'");
    }

    @Test
    void aZeroTimeoutIsRefused() {
        assertThat(refusal(command("[\"echo\"]").replace("[tool]\n", "[tool]\ntimeout_seconds = 0\n")))
                .contains("[tool] timeout_seconds must be at least 1, got 0");
    }

    @ParameterizedTest(name = "argv[0] {0} is refused")
    @CsvSource({"sh", "bash", "/bin/sh", "python3", "python3.11", "node", "perl", "env", "xargs", "busybox", "awk"})
    void shellsAndInterpretersAreRefusedUnlessAllowed(String argv0) {
        assertThat(refusal(command("[\"" + argv0 + "\", \"-c\", \"{a}\"]"))).contains("exec[0]")
                .contains("allow_interpreter");
        read(command("[\"" + argv0 + "\", \"{a}\"]").replace("[tool]\n", "[tool]\nallow_interpreter = true\n"));
    }

    @Test
    void aPlaceholderMustBeAWholeElement() {
        assertThat(refusal(command("[\"echo\", \"--x={a}\"]"))).contains("exec[1]").contains("whole element");
        assertThat(refusal(command("[\"echo\", \"{a}{a}\"]"))).contains("whole element");
        assertThat(refusal(command("[\"{a}\"]"))).contains("exec[0] must be a literal");
        assertThat(refusal(command("[\"echo\", \"{nope}\"]"))).contains("names no argument");
        assertThat(refusal(command("[\"echo\", \"{_output_file}\"]"))).contains("not supported");
        assertThat(refusal(command("[\"echo\", \"{a\"]"))).contains("unclosed");
        assertThat(read(command("[\"echo\", \"%{{x}}\"]")).command().elements().get(1))
                .isEqualTo(new CommandPlan.Fixed("%{x}"));
    }

    @Test
    void theDeprecatedTemplateIsTokenisedWithAWarningAndAQuotedPlaceholderIsRefused() {
        Manifest m = read(TOOL + "[args.a]\ntype = \"string\"\n[command]\ntemplate = \"echo -n 'a b' {a}\"\n" + OUTPUT);
        assertThat(m.command().elements()).containsExactly(new CommandPlan.Fixed("echo"), new CommandPlan.Fixed("-n"),
                new CommandPlan.Fixed("a b"), new CommandPlan.Value("a"));
        assertThat(m.warnings()).anyMatch(w -> w.contains("deprecated"));
        assertThat(refusal(TOOL + "[args.a]\ntype = \"string\"\n[command]\ntemplate = \"echo '{a}'\"\n" + OUTPUT))
                .contains("whole, unquoted token");
    }

    @Test
    void customParsersAndExecutorsAreRefused() {
        assertThat(refusal(command("[\"echo\"]").replace("format = \"text\"", "parser = \"scripts/parse.py\"")))
                .contains("[output] parser").contains("custom output parsers are not supported");
        assertThat(refusal(TOOL + "[command]\nexecutor = \"wrap.sh\"\n" + OUTPUT)).contains("[command] executor");
    }

    @Test
    void networkTargetsOfAnEgressToolMustBlockInternal() {
        String m = TOOL + "[args.t]\ntype = \"scope_target\"\n[command]\nexec = [\"nmap\", \"{t}\"]\n" + OUTPUT;
        assertThat(refusal(m)).contains("[args.t] block_internal must be true");
        read(m.replace("type = \"scope_target\"", "type = \"scope_target\"\nblock_internal = true"));
        assertThat(refusal(m.replace("nmap", "echo").replace("[tool]\n", "[tool]\nnetwork_egress = true\n")))
                .contains("block_internal must be true");
    }

    @Test
    void argumentKeysAreCheckedAgainstTheirType() {
        String base = TOOL + "[args.a]\n%s\n[command]\nexec = [\"echo\", \"{a}\"]\n" + OUTPUT;
        assertThat(refusal(base.formatted("type = \"enum\""))).contains("[args.a] allowed must list");
        assertThat(refusal(base.formatted("type = \"regex_match\""))).contains("pattern is required");
        assertThat(refusal(base.formatted("type = \"string\"\npattern = \"(\""))).contains("[args.a] pattern");
        assertThat(refusal(base.formatted("type = \"string\"\nscope_check = true"))).contains("scope_check");
        assertThat(refusal(base.formatted("type = \"url\"\nschemes = [\"file\"]"))).contains("schemes");
        assertThat(refusal(base.formatted("type = \"integer\"\nmin = 5\nmax = 1"))).contains("greater than max");
        assertThat(refusal(base.formatted("type = \"integer\"\ndefault = \"x\""))).contains("[args.a] default");
        assertThat(refusal(base.formatted("type = \"bogus\""))).contains("neither a built-in type");
    }

    @Test
    void mappingsMustCoverEveryAllowedValue() {
        String m = TOOL + "[args.k]\ntype = \"enum\"\nallowed = [\"a\", \"b\"]\n[command]\nexec = [\"echo\", \"{_k_flags}\"]\n"
                + "[command.mappings.k]\na = \"-a -x\"\n" + OUTPUT;
        assertThat(refusal(m)).contains("[command.mappings.k] has no entry for the allowed value 'b'");
        Manifest full = read(m.replace("a = \"-a -x\"", "a = \"-a -x\"\nb = \"-b\""));
        assertThat(full.command().argv(Map.of("k", "a"), java.util.Set.of("k"))).containsExactly("echo", "-a", "-x");
    }

    @Test
    void conditionalsUseAClosedVocabulary() {
        String m = TOOL + "[args.p]\ntype = \"port\"\n[args.u]\ntype = \"string\"\n"
                + "[command]\nexec = [\"hydra\", \"{_conditional_flags}\", \"x\"]\n[command.conditionals]\n"
                + "port = { when = \"p != '' and u == 'root'\", template = \"-s {p}\" }\n" + OUTPUT;
        Manifest ok = read(m);
        assertThat(ok.command().argv(Map.of("p", "22", "u", "root"), java.util.Set.of())).containsExactly("hydra", "-s",
                "22", "x");
        assertThat(ok.command().argv(Map.of("p", "22", "u", "bob"), java.util.Set.of())).containsExactly("hydra", "x");
        assertThat(refusal(m.replace("p != ''", "__import__('os')"))).contains("when");
        assertThat(refusal(m.replace("p != ''", "q != ''"))).contains("not an argument");
    }

    @Test
    void unsupportedBackendsAndMissingPartsAreRefused() {
        assertThat(refusal(TOOL + "[mcp]\nserver = \"x\"\n")).contains("[mcp]");
        assertThat(refusal(TOOL)).contains("[command] is missing");
        assertThat(refusal(TOOL + "[command]\nexec = [\"echo\"]\n")).contains("[output] is missing");
        assertThat(refusal("[tool]\nname = \"Bad Name\"\ndescription = \"x\"\n")).contains("[tool] name");
        assertThat(refusal("[tool\n")).contains("not valid TOML");
        read(TOOL.replace("[tool]\n", "[tool]\ndispatch = \"callback\"\n"));
    }

    @Test
    void anHttpUrlMustFixSchemeAndHost() {
        String h = TOOL + "[args.q]\ntype = \"string\"\n[http]\nmethod = \"GET\"\nurl = \"%s\"\n" + OUTPUT;
        read(h.formatted("https://api.example.com/search?q={q}"));
        assertThat(refusal(h.formatted("{q}"))).contains("[http] url");
        assertThat(refusal(h.formatted("https://{q}/x"))).contains("[http] url");
        assertThat(refusal(h.formatted("https://api.example.com{q}"))).contains("[http] url");
        assertThat(refusal(h.formatted("https://api.example.com:{q}/"))).contains("[http] url");
        assertThat(refusal(h.formatted("https://api.example.com/{_secret:key}"))).contains("secret");
    }

    @Test
    void outputSchemasRefuseReferencesAndPatterns() {
        String m = command("[\"echo\"]") + "[output.schema]\ntype = \"object\"\n";
        read(m);
        assertThat(refusal(m + "[output.schema.properties.x]\n\"$ref\" = \"http://x\"\n")).contains("$ref");
        assertThat(refusal(m + "[output.schema.properties.x]\npattern = \"(a+)+\"\n")).contains("pattern");
    }
}
