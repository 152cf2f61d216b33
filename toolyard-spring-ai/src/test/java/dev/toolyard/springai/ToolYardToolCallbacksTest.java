package dev.toolyard.springai;

import java.util.Optional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.json.JsonMapper;

class ToolYardToolCallbacksTest {
    @TempDir
    Path work;
    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolExecutor executor;

    @BeforeEach
    void workspace() throws Exception {
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.writeFile());
        store = new InMemoryToolCallStore();
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("read_file"))
                .store(store).build();
    }

    private ToolYardToolCallbacks callbacks(ToolContextResolver resolver) {
        return ToolYardToolCallbacks.builder(registry, executor, resolver).build();
    }

    @Test
    void theDefinitionsAreTheRegistrysWireDefinitions() throws Exception {
        ToolCallback[] all = callbacks(c -> ToolContext.of("x", SandboxPaths.of(work))).getToolCallbacks();

        assertThat(all).extracting(c -> c.getToolDefinition().name()).containsExactly("read_file", "write_file");
        JsonMapper json = JsonMapper.builder().build();
        var wire = json.readTree(registry.wireDefinitions(List.of("read_file"))).get(0);
        assertThat(all[0].getToolDefinition().description()).isEqualTo(wire.get("description").stringValue());
        assertThat(json.readTree(all[0].getToolDefinition().inputSchema())).isEqualTo(wire.get("parameters"));
        assertThat(all[0].getToolMetadata().returnDirect()).isFalse();
    }

    @Test
    void aCallbackRunsItsCallThroughTheExecutorAndAnswersWithTheResultsContent() {
        ToolCallback read = callbacks(c -> ToolContext.of(String.valueOf(c.getContext().get("id")),
                SandboxPaths.of(work))).getToolCallbacks()[0];

        String ok = read.call("{\"path\":\"notes.md\"}",
                new org.springframework.ai.chat.model.ToolContext(Map.of("id", "inv-7")));
        String escape = read.call("{\"path\":\"/etc/passwd\"}");

        assertThat(ok).isEqualTo("Ship 0.1.0.");
        assertThat(escape).startsWith("Tool 'read_file' - path_escape");
        assertThat(store.records()).extracting(ToolCallRecord::invocationId).containsExactly("inv-7", "null");
        assertThat(store.records()).extracting(ToolCallRecord::reason).containsExactly(Optional.empty(), Optional.of(Reason.PATH_ESCAPE));
        assertThat(store.records()).extracting(ToolCallRecord::requestCallId).containsOnly("");
    }

    @Test
    void nothingSpringAiHandsACallbackMakesItThrow() {
        ToolCallback[] all = callbacks(c -> ToolContext.of("x", SandboxPaths.of(work))).getToolCallbacks();
        String huge = "z".repeat(3 << 20);
        List<String> inputs = java.util.Arrays.asList(null, "", "  ", "{", "[]", "null", "{\"path\":\"" + huge + "\"}",
                "{\"path\":\"notes.md\",\"path\":\"x\"}");

        for (ToolCallback c : all) {
            for (String input : inputs) {
                assertThat(c.call(input, null)).startsWith("Tool '");
            }
        }
        assertThat(store.records()).hasSize(2 * inputs.size()).extracting(ToolCallRecord::status)
                .containsOnly(ToolStatus.REFUSED);
        assertThat(store.records()).filteredOn(r -> r.toolName().equals("write_file"))
                .extracting(ToolCallRecord::reason).containsOnly(Optional.of(Reason.NOT_ALLOWLISTED));
    }

    @Test
    void anApplicationFailureIsAnsweredWithOneFixedSentenceAndNeverTheExceptionMessage() {
        ToolCallStore broken = new ToolCallStore() {
            @Override
            public void markStarted(ToolCallStart start) {
                throw new IllegalStateException("jdbc:postgresql://db.internal:5432 password rejected");
            }

            @Override
            public void complete(ToolCallRecord record) {}

            @Override
            public void append(ToolCallRecord record) {}
        };
        ToolExecutor failing = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("read_file"))
                .store(broken).build();
        List<ToolCallback> read = List.of(
                ToolYardToolCallbacks.builder(registry, failing, c -> ToolContext.of("x", SandboxPaths.of(work)))
                        .build().getToolCallbacks()[0],
                callbacks(c -> {
                    throw new IllegalArgumentException("tenant 'acme' has no workspace at /srv/acme");
                }).getToolCallbacks()[0],
                callbacks(c -> null).getToolCallbacks()[0]);

        for (ToolCallback c : read) {
            assertThat(c.call("{\"path\":\"notes.md\"}")).isEqualTo(ToolYardToolCallbacks.NOT_COMPLETED);
        }
    }

    @Test
    void aToolNameThatIsNotRegisteredFailsTheBuildNamingIt() {
        assertThatThrownBy(() -> ToolYardToolCallbacks.builder(registry, executor,
                c -> ToolContext.of("x", SandboxPaths.of(work))).tools(List.of("read_file", "http_fetch")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'http_fetch'");
        assertThat(ToolYardToolCallbacks.builder(registry, executor, c -> ToolContext.of("x", SandboxPaths.of(work)))
                .tools(List.of()).build().getToolCallbacks()).isEmpty();
    }
}
