package dev.toolyard.acceptance.boot;

import dev.toolyard.EgressClass;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.springai.ToolYardToolCallbacks;
import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot agent written from docs/frameworks.md: tools in a registry bean, records in SQLite, an
 * approval gate for the tool that needs one, and the auto-configured ToolYard callbacks on the chat
 * client. The chat model is the application's own bean (a provider starter's, or in the tests a
 * scripted one): this application has no provider starter.
 */
@SpringBootApplication
public class AgentApplication {
    /** @param args Spring Boot's arguments */
    public static void main(String[] args) {
        SpringApplication.run(AgentApplication.class, args);
    }

    /** @return read_file, list_dir and deploy, which requires approval */
    @Bean
    public ToolRegistry toolRegistry() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.listDir());
        registry.register(ToolSpec.builder("deploy").description("Deploys the build to a target.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\"}},"
                        + "\"required\":[\"target\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).requiresApproval(true).build(),
                (args, context) -> ToolOutput.of("deployed to " + args.string("target")));
        return registry;
    }

    /** @param file where the records go @return a durable store */
    @Bean
    public ToolCallStore toolCallStore(@Value("${agent.records}") Path file) {
        return JdbcToolCallStore.sqlite(file);
    }

    /** @return approves deploys to staging and denies every other */
    @Bean
    public ApprovalGate approvalGate() {
        return request -> CompletableFuture.completedFuture(request.argumentsJson().contains("\"staging\"")
                ? ApprovalDecision.approve("release-bot")
                : ApprovalDecision.deny("release-bot", "only staging deploys are approved"));
    }

    /** @param builder Spring AI's @param tools ToolYard's callbacks @return the agent's chat client */
    @Bean
    public ChatClient chatClient(ChatClient.Builder builder, ToolYardToolCallbacks tools) {
        return builder.defaultTools(tools).build();
    }
}
