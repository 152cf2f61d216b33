package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathAccess;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.testing.LoopbackOnlySockets;
import dev.toolyard.builtins.internal.ScriptedResolver;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

class BuiltinToolsTest {
    /** Set to regenerate the golden files after a deliberate change: {@code -Dtoolyard.golden.update=true}. */
    private static final boolean UPDATE = Boolean.getBoolean("toolyard.golden.update");

    @Test
    void wireDefinitionsOfTheFileToolsArePinnedByteForByteByGoldenFiles() throws IOException {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());

        List<String> names = List.of("read_file", "write_file", "list_dir");
        if (UPDATE) {
            for (String name : names) {
                Files.writeString(Path.of("src/test/resources/golden", name + ".json"),
                        registry.wireDefinitions(List.of(name)) + "\n");
            }
            fail("golden files rewritten: review the diff, then run again without -Dtoolyard.golden.update");
        }
        for (String name : names) {
            String wire = registry.wireDefinitions(List.of(name)) + "\n";
            try (InputStream golden = getClass().getResourceAsStream("/golden/" + name + ".json")) {
                assertThat(golden).as("golden file for " + name).isNotNull();
                assertThat(golden.readAllBytes()).as(name).isEqualTo(wire.getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void everyBuiltInToolIsCooperativeSoByDefaultItRunsOnTheCallersThread() {
        List<Tool> tools = List.of(BuiltinTools.readFile(), BuiltinTools.writeFile(), BuiltinTools.listDir(),
                BuiltinTools.runCommand(dev.toolyard.sandbox.TieredSandbox.builder().which(name -> java.util.Optional.empty())
                        .build()),
                BuiltinTools.httpFetch(List.of("127.0.0.1"), new ScriptedResolver()));
        assertThat(tools).allMatch(t -> t.spec().cooperative(), "cooperative");
    }

    @Test
    void everySchemaIsClosedAndDeclaresItsPathArgument() {
        Map<Tool, PathAccess> expected = Map.of(
                BuiltinTools.readFile(), PathAccess.READ,
                BuiltinTools.writeFile(), PathAccess.WRITE,
                BuiltinTools.listDir(), PathAccess.READ);
        expected.forEach((tool, access) -> {
            JsonNode schema = tool.spec().argsSchemaNode();
            assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
            assertThat(schema.get("required").toString()).contains("\"path\"");
            assertThat(tool.spec().pathArgs()).containsExactly(Map.entry("path", access));
            assertThat(tool.spec().egress()).isEqualTo(EgressClass.NONE);
            assertThat(tool.spec().requiresIsolation()).isFalse();
        });
    }

    @Test
    void onlyWriteFileCarriesTheWriteRisk() {
        assertThat(BuiltinTools.readFile().spec().riskClass()).isEqualTo(RiskClass.READ_ONLY);
        assertThat(BuiltinTools.listDir().spec().riskClass()).isEqualTo(RiskClass.READ_ONLY);
        assertThat(BuiltinTools.writeFile().spec().riskClass()).isEqualTo(RiskClass.WRITE);
    }

    @Test
    void theDefaultFactoriesReturnOneToolSoRegisteringTwiceIsANoOp() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.writeFile());
        registry.register(BuiltinTools.listDir());
        registry.register(BuiltinTools.listDir());

        assertThat(registry.names()).containsExactly("list_dir", "read_file", "write_file");
        assertThat(BuiltinTools.readFile()).isSameAs(BuiltinTools.readFile());
    }

    @Test
    void theDefaultCapsAreTheReferenceDefaults() {
        assertThat(BuiltinTools.DEFAULT_READ_FILE_MAX_BYTES).isEqualTo(1_048_576);
        assertThat(BuiltinTools.MIN_FILE_MAX_BYTES).isEqualTo(1_024);
        assertThat(BuiltinTools.DEFAULT_LIST_DIR_MAX_ENTRIES).isEqualTo(1_000);
        assertThat(BuiltinTools.readFile().spec()).isEqualTo(BuiltinTools.readFile(1_048_576).spec());
        assertThat(BuiltinTools.listDir().spec()).isEqualTo(BuiltinTools.listDir(1_000).spec());
    }

    @Test
    void aConfiguredCapIsStatedInTheDescriptionTheModelReads() {
        ToolSpec read = BuiltinTools.readFile(4096).spec();
        ToolSpec write = BuiltinTools.writeFile(2048).spec();
        ToolSpec list = BuiltinTools.listDir(25).spec();

        assertThat(read.description()).contains("at most 4096 bytes");
        assertThat(write.description()).contains("at most 2048 bytes");
        assertThat(list.description()).contains("At most 25 entries");
    }

    @Test
    void byteCapsOutsideTheirRangeFailAtTheFactoryNamingTheParameter() {
        for (long bad : new long[] {1023, 0, -1, (1L << 30) + 1, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> BuiltinTools.readFile(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxBytes must be between 1024 and 1073741824, got " + bad);
            assertThatThrownBy(() -> BuiltinTools.writeFile(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxBytes must be between 1024 and 1073741824, got " + bad);
        }
        assertThat(BuiltinTools.readFile(1024).spec().name()).isEqualTo("read_file");
        assertThat(BuiltinTools.writeFile(1L << 30).spec().name()).isEqualTo("write_file");
    }

    @Test
    void anEntryCapBelowOneFailsAtTheFactoryNamingTheParameter() {
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> BuiltinTools.listDir(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxEntries must be at least 1, got " + bad);
        }
        assertThat(BuiltinTools.listDir(1).spec().name()).isEqualTo("list_dir");
    }

    // --- http_fetch -----------------------------------------------------------------------------------

    private final ScriptedResolver resolver = new ScriptedResolver();
    private final LoopbackOnlySockets sockets = LoopbackOnlySockets.anyPort();

    @TempDir
    Path workspace;

    @Test
    void httpFetchIsAReadOnlyToolWithAllowlistedEgress() {
        Tool tool = BuiltinTools.httpFetch(List.of("docs.example"), resolver);
        assertThat(tool.spec().name()).isEqualTo("http_fetch");
        assertThat(tool.spec().riskClass()).isEqualTo(RiskClass.READ_ONLY);
        assertThat(tool.spec().egress()).isEqualTo(EgressClass.ALLOWLISTED);
        assertThat(tool.spec().pathArgs()).isEmpty();
        assertThat(tool.spec().requiresIsolation()).isFalse();
        assertThat(tool.spec().redactArgs()).isFalse();
    }

    @Test
    void everyOverloadBuildsTheSameSpec() {
        Tool a = BuiltinTools.httpFetch(List.of(), resolver);
        Tool b = BuiltinTools.httpFetch(List.of("docs.example"), resolver, FetchLimits.builder().maxRedirects(1).build());
        Tool c = BuiltinTools.httpFetch(List.of("10.0.0.1"), resolver, FetchLimits.defaults(), sockets);
        assertThat(a.spec()).isEqualTo(b.spec()).isEqualTo(c.spec());
    }

    @Test
    void theWireDefinitionIsPinnedByteForByte() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.httpFetch(List.of("docs.example"), resolver));
        String golden;
        try (InputStream in = BuiltinToolsTest.class.getResourceAsStream("golden/http_fetch.json")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(registry.wireDefinitions(List.of("http_fetch")) + "\n").isEqualTo(golden);
    }

    @Test
    void theWireDefinitionNeverMentionsTheAllowlist() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.httpFetch(List.of("secret-intranet.example", "10.9.8.7"), resolver));
        assertThat(registry.wireDefinitions(List.of("http_fetch"))).doesNotContain("secret").doesNotContain("10.9.8.7");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"url\":\"\"}", "{\"url\":42}", "{\"url\":null}", "{\"url\":[\"http://a/\"]}",
            "{\"url\":\"http://docs.example/\",\"method\":\"POST\"}", "{\"URL\":\"http://docs.example/\"}", "[]"})
    void theSchemaIsClosedAndRequiresOneUrlString(String arguments) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.httpFetch(List.of("docs.example"), resolver, FetchLimits.defaults(), sockets));
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("http_fetch")).store(new InMemoryToolCallStore()).build();
        ToolResult r = executor.execute(ToolCallRequest.of("http_fetch", arguments), ToolContext.builder("inv",
                SandboxPaths.of(workspace)).egressCeiling(EgressClass.ALLOWLISTED).build());
        assertThat(r.reason()).contains(Reason.ARGS_INVALID);
        assertThat(resolver.questions()).isEmpty();
        assertThat(sockets.attempts()).isEmpty();
    }

    @Test
    void aMissingArgumentFailsFastNamingIt() {
        assertThatThrownBy(() -> BuiltinTools.httpFetch(null, resolver)).isInstanceOf(NullPointerException.class)
                .hasMessage("allowedHosts");
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of(), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("resolver");
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of(), resolver, null))
                .isInstanceOf(NullPointerException.class).hasMessage("limits");
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of(), resolver, FetchLimits.defaults(), null))
                .isInstanceOf(NullPointerException.class).hasMessage("socketFactory");
        assertThatThrownBy(() -> BuiltinTools.httpFetch(Arrays.asList("docs.example", null), resolver))
                .isInstanceOf(NullPointerException.class).hasMessage("allowedHosts[1]");
    }

    @Test
    void aBadAllowlistEntryFailsFastNamingItsIndex() {
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of("docs.example", "https://evil.example/"), resolver))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("allowedHosts[1]");
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of("169.254.169.254"), resolver))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("allowedHosts[0]")
                .hasMessageContaining("link-local");
    }

    @Test
    void anSslSocketFactoryIsRefused() {
        assertThatThrownBy(() -> BuiltinTools.httpFetch(List.of(), resolver, FetchLimits.defaults(),
                SSLSocketFactory.getDefault())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("socketFactory");
    }
}
