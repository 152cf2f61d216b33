package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Whatever name, id and arguments LangChain4j hands the adapter, its executor and its
 * hallucinated-name strategy answer (never throw), each call is recorded once with the id it came
 * with, and no answer names the directory above the workspace. Runs its seeds in every build; fuzz
 * longer with {@code JAZZER_FUZZ=1}.
 */
class ToolYardToolProviderFuzzTest {
    private static final InMemoryToolCallStore STORE = new InMemoryToolCallStore();
    private static final Path ROOT;
    private static final ToolYardToolProvider PROVIDER;

    static {
        try {
            ROOT = Files.createTempDirectory("toolyard-lc4j-fuzz");
            Path work = Files.createDirectories(ROOT.resolve("work"));
            Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
            ToolRegistry registry = new ToolRegistry();
            registry.register(BuiltinTools.readFile());
            registry.register(BuiltinTools.listDir());
            dev.toolyard.ToolExecutor executor = dev.toolyard.ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("read_file", "list_dir")).store(STORE).build();
            PROVIDER = ToolYardToolProvider.builder(registry, executor,
                    ic -> ToolContext.of(ic.invocationId().toString(), SandboxPaths.of(work))).build();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    void everyRequestIsAnsweredAndRecordedWithItsId(byte[] data) {
        // Input: name, newline, id, newline, arguments; UTF-8 so the seed files stay readable.
        String[] parts = new String(data, StandardCharsets.UTF_8).split("\n", 3);
        String name = parts[0];
        String id = parts.length > 1 ? parts[1] : null;
        String arguments = parts.length > 2 ? parts[2] : null;
        ToolExecutionRequest request = ToolExecutionRequest.builder().id(id).name(name).arguments(arguments).build();
        int before = STORE.records().size();

        ToolExecutionResult viaExecutor = PROVIDER.execute(request, null);
        String viaStrategy = PROVIDER.unknownName(request).text();

        assertThat(viaExecutor.resultText()).isNotNull().doesNotContain(ROOT.toString());
        assertThat(viaStrategy).isNotNull().doesNotContain(ROOT.toString());
        assertThat(viaExecutor.attributes()).containsKey(ToolYardToolProvider.ATTRIBUTE_CALL_ID);
        assertThat(STORE.records()).hasSize(before + 2);
        String recorded = STORE.records().get(before).requestCallId();
        if (id == null || id.length() <= 128) {
            assertThat(recorded).isEqualTo(id == null ? "" : id);
        } else {
            assertThat(recorded).startsWith(id.substring(0, 100)); // capped by the executor
        }
    }
}
