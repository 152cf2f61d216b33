package dev.toolyard.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.spi.PathDecision;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.PathPolicy;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.springai.ToolYardToolCallbacks;
import dev.toolyard.springai.ToolYardToolCallingManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import dev.toolyard.springai.ScriptedChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ToolYardAutoConfigurationTest {
    @TempDir
    Path work;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ToolYardAutoConfiguration.class))
                .withBean(ToolRegistry.class, () -> {
                    ToolRegistry registry = new ToolRegistry();
                    registry.register(BuiltinTools.readFile());
                    registry.register(BuiltinTools.writeFile());
                    return registry;
                });
    }

    private static String callThrough(ToolCallingManager manager, ToolYardToolCallbacks tools, String name,
            String arguments, Map<String, Object> toolContext) {
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder()
                .toolCallbacks(tools.getToolCallbacks()).toolContext(toolContext).build());
        ChatResponse response = new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("")
                .toolCalls(List.of(new AssistantMessage.ToolCall("id-1", "function", name, arguments))).build())));
        ToolExecutionResult result = manager.executeToolCalls(prompt, response);
        ToolResponseMessage last = (ToolResponseMessage) result.conversationHistory()
                .get(result.conversationHistory().size() - 1);
        return last.getResponses().get(0).responseData();
    }

    @Test
    void propertiesAndTheApplicationsRegistryBuildAnExecutorWhoseCallsAreRecorded() throws Exception {
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        runner().withPropertyValues("toolyard.allowlist=read_file", "toolyard.workspace=" + work,
                "toolyard.timeout=5s").run(context -> {
                    assertThat(context).hasSingleBean(ToolExecutor.class).hasSingleBean(ToolYardToolCallbacks.class)
                            .hasSingleBean(ToolCallingManager.class);
                    assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(ToolYardToolCallingManager.class);
                    ToolYardToolCallbacks tools = context.getBean(ToolYardToolCallbacks.class);
                    assertThat(tools.toolNames()).containsExactly("read_file");
                    ToolCallingManager manager = context.getBean(ToolCallingManager.class);

                    assertThat(callThrough(manager, tools, "read_file", "{\"path\":\"notes.md\"}",
                            Map.of(ToolYardProperties.DEFAULT_INVOCATION_ID_KEY, "conv-1"))).isEqualTo("Ship 0.1.0.");
                    assertThat(callThrough(manager, tools, "ghost", "{}", Map.of()))
                            .contains("unknown_tool");

                    InMemoryToolCallStore store = (InMemoryToolCallStore) context.getBean(ToolCallStore.class);
                    assertThat(store.records()).hasSize(2);
                    assertThat(store.records().get(0).invocationId()).isEqualTo("conv-1");
                    assertThat(store.records().get(1).reason()).contains(Reason.UNKNOWN_TOOL);
                    assertThat(store.records().get(1).invocationId()).hasSize(36); // a fresh UUID
                });
    }

    @Test
    void theApplicationsOwnStoreAndPathPolicyAreUsed() {
        InMemoryToolCallStore mine = new InMemoryToolCallStore();
        List<String> asked = new CopyOnWriteArrayList<>();
        PathContainment containment = new PathContainment();
        PathPolicy counting = new PathPolicy() {
            @Override
            public PathDecision resolveRead(String candidate, SandboxPaths workspace) {
                asked.add(candidate);
                return containment.resolveRead(candidate, workspace);
            }

            @Override
            public PathDecision resolveWrite(String candidate, SandboxPaths workspace) {
                asked.add(candidate);
                return containment.resolveWrite(candidate, workspace);
            }
        };
        runner().withPropertyValues("toolyard.allowlist=read_file", "toolyard.workspace=" + work)
                .withBean(ToolCallStore.class, () -> mine)
                .withBean(PathPolicy.class, () -> counting)
                .run(context -> {
                    callThrough(context.getBean(ToolCallingManager.class), context.getBean(ToolYardToolCallbacks.class),
                            "read_file", "{\"path\":\"missing.md\"}", Map.of());
                    assertThat(asked).containsExactly("missing.md");
                    assertThat(mine.records()).singleElement()
                            .satisfies(r -> assertThat(r.reason()).contains(Reason.FILE_NOT_FOUND));
                });
    }

    @Test
    void anApplicationsToolCallingManagerIsWrappedSoUnknownNamesStillReachToolYard() {
        runner().withPropertyValues("toolyard.allowlist=read_file", "toolyard.workspace=" + work)
                .withBean("springAisOwn", ToolCallingManager.class, () -> ToolCallingManager.builder().build())
                .run(context -> {
                    assertThat(context).hasSingleBean(ToolCallingManager.class);
                    ToolCallingManager manager = context.getBean(ToolCallingManager.class);
                    assertThat(manager).isInstanceOf(ToolYardToolCallingManager.class);
                    assertThat(callThrough(manager, context.getBean(ToolYardToolCallbacks.class), "ghost", "{}",
                            Map.of())).contains("unknown_tool");
                });
    }

    @Test
    void withoutAWorkspaceTheContextFailsNamingTheProperty() {
        runner().withPropertyValues("toolyard.allowlist=read_file").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("toolyard.workspace is not set"));
    }

    @Test
    void anAllowlistEntryThatIsNotRegisteredFailsTheContextNamingIt() {
        runner().withPropertyValues("toolyard.allowlist=read_file,rm_rf", "toolyard.workspace=" + work)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("'rm_rf'"));
    }

    @Test
    void withNoToolsAllowlistedEveryCallIsRefused() {
        runner().withPropertyValues("toolyard.workspace=" + work).run(context -> {
            ToolYardToolCallbacks tools = context.getBean(ToolYardToolCallbacks.class);
            assertThat(tools.getToolCallbacks()).isEmpty();
            assertThat(callThrough(context.getBean(ToolCallingManager.class), tools, "read_file",
                    "{\"path\":\"x\"}", Map.of())).contains("not_allowlisted");
        });
    }

    @Test
    void inABootApplicationTheChatClientsToolCallingAdvisorRunsEveryCallThroughToolYard() throws Exception {
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(
                        new AssistantMessage.ToolCall("call-1", "function", "read_file", "{\"path\":\"notes.md\"}"),
                        new AssistantMessage.ToolCall("call-2", "function", "ghost", "{}")),
                second -> new AssistantMessage("done"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ToolCallingAutoConfiguration.class,
                        ChatClientAutoConfiguration.class, ToolYardAutoConfiguration.class))
                .withBean(ChatModel.class, () -> model)
                .withBean(ToolRegistry.class, () -> {
                    ToolRegistry registry = new ToolRegistry();
                    registry.register(BuiltinTools.readFile());
                    return registry;
                })
                .withPropertyValues("toolyard.allowlist=read_file", "toolyard.workspace=" + work)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(ToolYardToolCallingManager.class);
                    ChatClient client = context.getBean(ChatClient.Builder.class)
                            .defaultTools(context.getBean(ToolYardToolCallbacks.class)).build();

                    String answer = client.prompt().user("go")
                            .toolContext(Map.of(ToolYardProperties.DEFAULT_INVOCATION_ID_KEY, "conv-boot")).call().content();

                    assertThat(answer).isEqualTo("done");
                    InMemoryToolCallStore store = (InMemoryToolCallStore) context.getBean(ToolCallStore.class);
                    assertThat(store.records()).extracting(r -> r.requestCallId() + " " + r.status() + " "
                            + r.invocationId()).containsExactlyInAnyOrder("call-1 OK conv-boot", "call-2 REFUSED conv-boot");
                });
    }
}
