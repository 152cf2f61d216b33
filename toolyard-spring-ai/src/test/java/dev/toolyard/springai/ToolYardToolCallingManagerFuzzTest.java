package dev.toolyard.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * Whatever tool call a model sends through Spring AI, the manager answers it under its id (never
 * throws), ToolYard records it once with that id, and no answer names the directory above the
 * workspace. Runs its seeds in every build; fuzz longer with {@code JAZZER_FUZZ=1}.
 */
class ToolYardToolCallingManagerFuzzTest {
    private static final InMemoryToolCallStore STORE = new InMemoryToolCallStore();
    private static final Path ROOT;
    private static final ToolYardToolCallbacks TOOLS;
    private static final ToolYardToolCallingManager MANAGER;

    static {
        try {
            ROOT = Files.createTempDirectory("toolyard-spring-fuzz");
            Path work = Files.createDirectories(ROOT.resolve("work"));
            Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
            ToolRegistry registry = new ToolRegistry();
            registry.register(BuiltinTools.readFile());
            registry.register(BuiltinTools.listDir());
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("read_file", "list_dir")).store(STORE).build();
            TOOLS = ToolYardToolCallbacks.builder(registry, executor,
                    c -> ToolContext.of("fuzz", SandboxPaths.of(work))).build();
            MANAGER = ToolYardToolCallingManager.of(TOOLS);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    void everyToolCallIsAnsweredUnderItsIdAndRecordedOnce(byte[] data) {
        // Input: name, newline, id, newline, arguments; UTF-8 so the seed files stay readable.
        String[] parts = new String(data, StandardCharsets.UTF_8).split("\n", 3);
        String id = parts.length > 1 ? parts[1] : null;
        AssistantMessage.ToolCall call = new AssistantMessage.ToolCall(id, "function", parts[0],
                parts.length > 2 ? parts[2] : null);
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder()
                .toolCallbacks(TOOLS.getToolCallbacks()).build());
        int before = STORE.records().size();

        ToolExecutionResult result = MANAGER.executeToolCalls(prompt, new ChatResponse(List.of(new Generation(
                AssistantMessage.builder().content("").toolCalls(List.of(call)).build()))));

        ToolResponseMessage last = (ToolResponseMessage) result.conversationHistory()
                .get(result.conversationHistory().size() - 1);
        assertThat(last.getResponses()).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo(id);
            assertThat(r.responseData()).isNotNull().doesNotContain(ROOT.toString());
        });
        assertThat(STORE.records()).hasSize(before + 1);
        if (id == null || id.length() <= 128) {
            assertThat(STORE.records().get(before).requestCallId()).isEqualTo(id == null ? "" : id);
        }
    }
}
