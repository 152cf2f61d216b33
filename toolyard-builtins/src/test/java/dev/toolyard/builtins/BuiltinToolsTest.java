package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
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
import dev.toolyard.builtins.internal.LoopbackOnlySocketFactory;
import dev.toolyard.builtins.internal.ScriptedResolver;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BuiltinToolsTest {
    private final ScriptedResolver resolver = new ScriptedResolver();
    private final LoopbackOnlySocketFactory sockets = new LoopbackOnlySocketFactory(Set.of());

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
