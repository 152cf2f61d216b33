package dev.toolyard.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.springai.ScriptedChatModel;
import dev.toolyard.springai.ToolYardToolCallbacks;
import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.PolicyDecision;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.AssistantMessage.ToolCall;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Boot application's view: its ApprovalGate, PolicyGate and ToolCallObserver beans reach the executor,
 * a model turn is capped through Boot's ChatClient, and every bad {@code toolyard.*} value stops a real
 * {@link SpringApplication} startup with the failure analysis naming the property and the fix.
 */
class ToolYardBootStartupTest {
    @TempDir
    Path dir;
    Path work;

    @BeforeEach
    void workspace() throws Exception {
        work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        CapturingFailureAnalysisReporter.REPORTS.clear();
    }

    /** A tool that requires approval: the gate decides each call. */
    static ToolSpec deploySpec() {
        return ToolSpec.builder("deploy").description("Deploys a build to a target.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\"}},"
                        + "\"required\":[\"target\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).requiresApproval(true).build();
    }

    static ToolRegistry registry(List<String> deployed) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(deploySpec(), (args, context) -> {
            deployed.add(args.string("target"));
            return ToolOutput.of("deployed to " + args.string("target"));
        });
        return registry;
    }

    private static List<ToolResponseMessage.ToolResponse> toolResponses(Prompt prompt) {
        List<ToolResponseMessage.ToolResponse> out = new ArrayList<>();
        for (Message m : prompt.getInstructions()) {
            if (m instanceof ToolResponseMessage r) {
                out.addAll(r.getResponses());
            }
        }
        return out;
    }

    private ApplicationContextRunner bootApplication(ChatModel model, List<String> deployed) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ToolCallingAutoConfiguration.class,
                        ChatClientAutoConfiguration.class, ToolYardAutoConfiguration.class))
                .withBean(ChatModel.class, () -> model)
                .withBean(ToolRegistry.class, () -> registry(deployed));
    }

    @Test
    void anApprovalGatePolicyGateAndObserverBeanReachTheExecutorAndTheGateDecidesEachCall() {
        List<String> deployed = new CopyOnWriteArrayList<>();
        List<String> asked = new CopyOnWriteArrayList<>();
        List<String> observed = new CopyOnWriteArrayList<>();
        ApprovalGate gate = request -> {
            asked.add(request.requestCallId());
            return CompletableFuture.completedFuture(request.argumentsJson().contains("staging")
                    ? ApprovalDecision.approve("release-manager")
                    : ApprovalDecision.deny("release-manager", "production is frozen"));
        };
        PolicyGate policy = query -> "moon".equals(query.arguments().path("target").asString())
                ? PolicyDecision.refuse(Reason.NOT_APPROVED, "no deploys to the moon") : PolicyDecision.allow();
        ToolCallObserver observer = new ToolCallObserver() {
            @Override
            public void onEnd(ToolCallEvent call, ToolCallRecord record) {
                observed.add(record.requestCallId() + " " + record.status());
            }
        };
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(
                        new ToolCall("c-staging", "function", "deploy", "{\"target\":\"staging\"}"),
                        new ToolCall("c-production", "function", "deploy", "{\"target\":\"production\"}"),
                        new ToolCall("c-moon", "function", "deploy", "{\"target\":\"moon\"}")),
                second -> new AssistantMessage("done"));

        bootApplication(model, deployed)
                .withBean(ApprovalGate.class, () -> gate)
                .withBean(PolicyGate.class, () -> policy)
                .withBean(ToolCallObserver.class, () -> observer)
                .withPropertyValues("toolyard.allowlist=deploy", "toolyard.workspace=" + work)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ChatClient client = context.getBean(ChatClient.Builder.class)
                            .defaultTools(context.getBean(ToolYardToolCallbacks.class)).build();

                    assertThat(client.prompt().user("ship it").call().content()).isEqualTo("done");

                    assertThat(deployed).containsExactly("staging");
                    assertThat(asked).containsExactlyInAnyOrder("c-staging", "c-production"); // the policy refused the moon first
                    List<ToolResponseMessage.ToolResponse> answers = toolResponses(model.prompts.get(1));
                    assertThat(answers.get(0).responseData()).isEqualTo("deployed to staging");
                    assertThat(answers.get(1).responseData())
                            .isEqualTo("Tool 'deploy' - approval_denied: denied: production is frozen");
                    assertThat(answers.get(2).responseData()).contains("no deploys to the moon");
                    InMemoryToolCallStore store = (InMemoryToolCallStore) context.getBean(ToolCallStore.class);
                    Map<String, ToolCallRecord> byId = store.records().stream()
                            .collect(Collectors.toMap(ToolCallRecord::requestCallId, r -> r));
                    assertThat(byId.get("c-staging").approver()).isEqualTo("release-manager");
                    assertThat(byId.get("c-production").reason()).contains(Reason.APPROVAL_DENIED);
                    assertThat(byId.get("c-moon").reason()).contains(Reason.NOT_APPROVED);
                    assertThat(observed).containsExactlyInAnyOrder("c-staging OK", "c-production REFUSED",
                            "c-moon REFUSED");
                });
    }

    @Test
    void twoApprovalGateBeansFailStartupRatherThanPickOne() {
        ApprovalGate approveAll = request -> CompletableFuture.completedFuture(ApprovalDecision.approve("a"));
        bootApplication(new ScriptedChatModel(), new CopyOnWriteArrayList<>())
                .withBean("firstGate", ApprovalGate.class, () -> approveAll)
                .withBean("secondGate", ApprovalGate.class, () -> approveAll)
                .withPropertyValues("toolyard.allowlist=deploy", "toolyard.workspace=" + work)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(org.springframework.beans.factory.NoUniqueBeanDefinitionException.class)
                        .hasMessageContaining("firstGate").hasMessageContaining("secondGate"));
    }

    private static Throwable deepest(Throwable failure) {
        assertThat(failure).as("the context failed to start").isNotNull();
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Test
    void aPropertyOnlyAReplacedBeanWouldReadStopsStartupInsteadOfDoingNothing() {
        dev.toolyard.springai.ToolContextResolver own = spring -> dev.toolyard.ToolContext.of("own",
                dev.toolyard.SandboxPaths.of(work));
        bootApplication(new ScriptedChatModel(), new CopyOnWriteArrayList<>())
                .withBean(dev.toolyard.springai.ToolContextResolver.class, () -> own)
                .withPropertyValues("toolyard.allowlist=read_file", "toolyard.timeout=5s")
                .run(context -> assertThat(deepest(context.getStartupFailure()))
                        .isInstanceOf(InvalidToolYardPropertyException.class)
                        .hasMessage("toolyard.timeout is set, but the application defines its own ToolContextResolver"
                                + " bean, which this property does not configure. Remove toolyard.timeout and build"
                                + " that into the ToolContext your resolver returns"));
        bootApplication(new ScriptedChatModel(), new CopyOnWriteArrayList<>())
                .withBean(dev.toolyard.springai.ToolContextResolver.class, () -> own)
                .withPropertyValues("toolyard.allowlist=read_file")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aTurnOfFortyCallsThroughBootsChatClientIsCappedAtTheConfiguredRound() {
        List<ToolCall> turn = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            turn.add(new ToolCall("call-" + i, "function", i == 3 || i == 36 ? "ghost" : "read_file",
                    "{\"path\":\"notes.md\"}"));
        }
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(turn.toArray(new ToolCall[0])),
                second -> new AssistantMessage("done"));
        bootApplication(model, new CopyOnWriteArrayList<>())
                .withPropertyValues("toolyard.allowlist=read_file", "toolyard.workspace=" + work,
                        "toolyard.max-calls-per-round=32")
                .run(context -> {
                    ChatClient client = context.getBean(ChatClient.Builder.class)
                            .defaultTools(context.getBean(ToolYardToolCallbacks.class)).build();

                    assertThat(client.prompt().user("read").call().content()).isEqualTo("done");

                    List<ToolResponseMessage.ToolResponse> answers = toolResponses(model.prompts.get(1));
                    assertThat(answers).extracting(ToolResponseMessage.ToolResponse::id)
                            .containsExactlyElementsOf(turn.stream().map(ToolCall::id).toList());
                    assertThat(answers.subList(0, 32)).noneMatch(a -> a.responseData().contains("round_limit"));
                    assertThat(answers.subList(32, 40)).allMatch(a -> a.responseData().contains(" - round_limit: "));
                    InMemoryToolCallStore store = (InMemoryToolCallStore) context.getBean(ToolCallStore.class);
                    assertThat(store.records()).hasSize(40);
                    assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.ROUND_LIMIT)
                            .extracting(ToolCallRecord::requestCallId)
                            .containsExactlyInAnyOrder("call-32", "call-33", "call-34", "call-35", "call-36", "call-37",
                                    "call-38", "call-39");
                    assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.UNKNOWN_TOOL)
                            .extracting(ToolCallRecord::requestCallId).containsExactly("call-3");
                });
    }

    /** A Boot application with its own tool registry and every auto-configuration on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class,
            ToolYardAutoConfiguration.class})
    static class Application {
        @Bean
        ToolRegistry toolRegistry() {
            return registry(new CopyOnWriteArrayList<>());
        }
    }

    private static String startupFailure(String... properties) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        String[] args = Arrays.stream(properties).map(p -> "--" + p).toArray(String[]::new);
        assertThatThrownBy(() -> {
            try (ConfigurableApplicationContext context = application.run(args)) {
                context.getBean(ToolYardToolCallbacks.class);
            }
        }).isInstanceOf(RuntimeException.class);
        assertThat(CapturingFailureAnalysisReporter.REPORTS).as("Boot's failure analysis").hasSize(1);
        return CapturingFailureAnalysisReporter.REPORTS.get(0);
    }

    static Stream<Arguments> badProperties() {
        return Stream.of(
                Arguments.of("toolyard.timeout=0s", "The ToolYard property toolyard.timeout is PT0S",
                        "Set toolyard.timeout to a positive duration"),
                Arguments.of("toolyard.timeout=-5s", "The ToolYard property toolyard.timeout is PT-5S",
                        "Set toolyard.timeout to a positive duration"),
                Arguments.of("toolyard.max-calls-per-round=0", "The ToolYard property toolyard.max-calls-per-round is 0",
                        "Set toolyard.max-calls-per-round to a positive number"),
                Arguments.of("toolyard.invocation-id-key= ", "The ToolYard property toolyard.invocation-id-key is empty",
                        "Set toolyard.invocation-id-key to the tool-context key"),
                Arguments.of("toolyard.allowlist=read_file,rm_rf", "The ToolYard property toolyard.allowlist names"
                        + " 'rm_rf', which the application's ToolRegistry does not register",
                        "Register the tool in your ToolRegistry bean, or remove it from toolyard.allowlist"),
                Arguments.of("toolyard.allowlist=deploy", "The ToolYard property toolyard.allowlist names 'deploy',"
                        + " which requires approval, and the application defines no ApprovalGate bean",
                        "Define an ApprovalGate bean"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badProperties")
    void aBadValueStopsStartupWithTheFailureAnalysisNamingThePropertyAndTheFix(String property, String description,
            String action) {
        String report = startupFailure("toolyard.workspace=" + work, property);

        assertThat(report).contains("APPLICATION FAILED TO START").contains("Description:\n\n" + description)
                .contains("Action:\n\n" + action);
    }

    @Test
    void aMissingWorkspaceIsNamedAtOnce() {
        String report = startupFailure("toolyard.allowlist=read_file");

        assertThat(report).contains("Description:\n\nThe ToolYard property toolyard.workspace is not set.")
                .contains("Action:\n\nSet toolyard.workspace to the absolute path of an existing directory");
    }

    @Test
    void aRelativeWorkspaceIsNamedAsTheProperty() {
        String report = startupFailure("toolyard.workspace=agent/work");

        assertThat(report).contains("The ToolYard property toolyard.workspace is the relative path 'agent/work'")
                .doesNotContain("writeRoot");
    }

    @Test
    void aWorkspaceThatDoesNotExistOrIsAFileStopsStartup() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");

        assertThat(startupFailure("toolyard.workspace=" + dir.resolve("missing")))
                .contains("The ToolYard property toolyard.workspace is '" + dir.resolve("missing")
                        + "', which does not exist");
        CapturingFailureAnalysisReporter.REPORTS.clear();
        assertThat(startupFailure("toolyard.workspace=" + file))
                .contains("The ToolYard property toolyard.workspace is '" + file + "', which is not a directory");
    }

    @Test
    void readRootsAreCheckedLikeTheWorkspace() throws Exception {
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.read-roots=docs"))
                .contains("The ToolYard property toolyard.read-roots is the relative path 'docs'");
        CapturingFailureAnalysisReporter.REPORTS.clear();
        Path inside = Files.createDirectories(work.resolve("inside"));
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.read-roots=" + inside))
                .contains("The ToolYard property toolyard.read-roots overlaps toolyard.workspace");
    }

    @Test
    void aValueThatDoesNotBindAndAMisspelledPropertyAreNamedByBootsOwnAnalysis() {
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.egress-ceiling=EVERYWHERE"))
                .contains("Property: toolyard.egress-ceiling").contains("Value: \"EVERYWHERE\"");
        CapturingFailureAnalysisReporter.REPORTS.clear();
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.egress-ceiling="))
                .contains("Property: toolyard.egress-ceiling").contains("Value: \"\"");
        CapturingFailureAnalysisReporter.REPORTS.clear();
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.timeout=soon"))
                .contains("Property: toolyard.timeout").contains("Value: \"soon\"");
        CapturingFailureAnalysisReporter.REPORTS.clear();
        assertThat(startupFailure("toolyard.workspace=" + work, "toolyard.alowlist=read_file"))
                .contains("Property: toolyard.alowlist").contains("were left unbound");
    }

    @Test
    void everyPropertyWithAGoodValueStarts() throws Exception {
        Path docs = Files.createDirectories(dir.resolve("docs"));
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext context = application.run("--toolyard.workspace=" + work,
                "--toolyard.allowlist=read_file", "--toolyard.timeout=5s", "--toolyard.read-roots=" + docs,
                "--toolyard.egress-ceiling=ALLOWLISTED", "--toolyard.invocation-id-key=conversation",
                "--toolyard.max-calls-per-round=4")) {
            assertThat(context.getBean(ToolYardToolCallbacks.class).toolNames()).containsExactly("read_file");
        }
        assertThat(CapturingFailureAnalysisReporter.REPORTS).isEmpty();
    }
}
