package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolYardToolExecutorTest {
    @TempDir
    Path work;

    @Test
    void theLowLevelExecutePathRunsThroughToolYardAndGivesTheMemoryIdToTheContextFunction() throws Exception {
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        dev.toolyard.ToolExecutor executor = dev.toolyard.ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file")).store(store).build();
        List<Object> memoryIds = new ArrayList<>();
        ToolYardToolProvider provider = ToolYardToolProvider.builder(registry, executor, ic -> {
            memoryIds.add(ic.chatMemoryId());
            return ToolContext.of(ic.invocationId().toString(), SandboxPaths.of(work));
        }).build();
        ToolExecutor tool = provider.toolProvider().provideTools(new ToolProviderRequest("m", UserMessage.from("hi")))
                .aiServiceTools().get(0).toolExecutor();

        String ok = tool.execute(ToolExecutionRequest.builder().id("t1").name("read_file")
                .arguments("{\"path\":\"notes.md\"}").build(), "user-42");
        String none = tool.execute(null, null);

        assertThat(ok).isEqualTo("Ship 0.1.0.");
        assertThat(none).startsWith("Tool '' - unknown_tool");
        assertThat(memoryIds).containsExactly("user-42", null);
        assertThat(store.records()).extracting(ToolCallRecord::requestCallId).containsExactly("t1", "");
    }
}
