package dev.toolyard.acceptance.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage.ToolCall;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application started as Boot starts it (SpringApplication, Boot's own logging), with the resolved
 * dependencies this module's POM gives it: toolyard-bom imported after Boot's parent, so Boot's Jackson,
 * SQLite driver and Kotlin. ToolYard must work on them.
 */
class AgentApplicationTest {
    @TempDir
    Path dir;

    private ConfigurableApplicationContext start(ChatModel model, String... properties) {
        SpringApplication application = new SpringApplication(AgentApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.addInitializers(context -> context.getBeanFactory().registerSingleton("chatModel", model));
        return application.run(properties);
    }

    @Test
    void aFortyCallTurnIsCappedAt32AndTheApprovalGateDecidesWithEveryCallRecordedInSqlite() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        List<ToolCall> turn = new ArrayList<>();
        turn.add(new ToolCall("deploy-staging", "function", "deploy", "{\"target\":\"staging\"}"));
        turn.add(new ToolCall("deploy-production", "function", "deploy", "{\"target\":\"production\"}"));
        turn.add(new ToolCall("invented", "function", "drop_tables", "{}"));
        for (int i = turn.size(); i < 40; i++) {
            turn.add(new ToolCall("read-" + i, "function", "read_file", "{\"path\":\"notes.md\"}"));
        }
        ScriptedChatModel model = new ScriptedChatModel(turn);

        try (ConfigurableApplicationContext context = start(model, "--toolyard.workspace=" + work,
                "--toolyard.allowlist=read_file,list_dir,deploy", "--agent.records=" + dir.resolve("records.db"))) {
            String answer = context.getBean(ChatClient.class).prompt().user("ship it")
                    .toolContext(Map.of("toolyard.invocation-id", "conv-acceptance")).call().content();

            assertThat(answer).isEqualTo("read 40 answers");
            List<ToolResponseMessage.ToolResponse> answers = ScriptedChatModel.answers(model.prompts.get(1));
            assertThat(answers).extracting(ToolResponseMessage.ToolResponse::id)
                    .containsExactlyElementsOf(turn.stream().map(ToolCall::id).toList());
            assertThat(answers.get(0).responseData()).isEqualTo("deployed to staging");
            assertThat(answers.get(1).responseData()).startsWith("Tool 'deploy' - approval_denied: ");
            assertThat(answers.get(2).responseData()).contains("unknown_tool");
            assertThat(answers.subList(3, 32)).allMatch(a -> a.responseData().equals("Ship 0.1.0."));
            assertThat(answers.subList(32, 40)).allMatch(a -> a.responseData().contains(" - round_limit: "));

            List<ToolCallRecord> records = context.getBean(ToolCallReader.class).byInvocation("conv-acceptance");
            assertThat(records).hasSize(40);
            Map<String, ToolCallRecord> byId = records.stream()
                    .collect(Collectors.toMap(ToolCallRecord::requestCallId, r -> r));
            assertThat(byId.get("deploy-staging").approver()).isEqualTo("release-bot");
            assertThat(byId.get("deploy-production").reason()).contains(Reason.APPROVAL_DENIED);
            assertThat(byId.get("invented").reason()).contains(Reason.UNKNOWN_TOOL);
            assertThat(records).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT).hasSize(8);
        }
    }

    @Test
    void aZeroTimeoutStopsStartupAndBootPrintsTheFailureNamingTheProperty() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThatThrownBy(() -> start(new ScriptedChatModel(List.of()), "--toolyard.workspace=" + work,
                    "--toolyard.allowlist=read_file", "--toolyard.timeout=0s",
                    "--agent.records=" + dir.resolve("records.db")).close()).isInstanceOf(RuntimeException.class);
        } finally {
            System.setOut(out);
        }
        String console = captured.toString(StandardCharsets.UTF_8);
        assertThat(console).contains("APPLICATION FAILED TO START")
                .contains("The ToolYard property toolyard.timeout is PT0S, but every tool call needs a positive deadline.")
                .contains("Set toolyard.timeout to a positive duration, such as 30s (the default) or 2m");
    }
}
