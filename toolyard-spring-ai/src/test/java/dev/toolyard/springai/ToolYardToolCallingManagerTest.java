package dev.toolyard.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.AssistantMessage.ToolCall;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.ai.tool.observation.ToolCallingObservationContext;

class ToolYardToolCallingManagerTest {
    record Zone(String zone) {}

    @TempDir
    Path dir;
    Path work;
    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolYardToolCallbacks tools;
    final List<String> observed = new CopyOnWriteArrayList<>();
    ObservationRegistry observations;
    final List<String> parents = new CopyOnWriteArrayList<>();

    @BeforeEach
    void workspace() throws Exception {
        work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        Files.writeString(dir.resolve("secret.txt"), "outside the workspace");
        registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.listDir());
        store = new InMemoryToolCallStore();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file", "list_dir")).store(store).build();
        tools = ToolYardToolCallbacks.builder(registry, executor, springContext -> ToolContext.of(
                String.valueOf(springContext.getContext().getOrDefault("conversation", "none")),
                SandboxPaths.of(work))).tools(List.of("read_file")).build();
        observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(context -> true); // the chat client's own observations are real
        observations.observationConfig().observationHandler(new ObservationHandler<ToolCallingObservationContext>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof ToolCallingObservationContext;
            }

            @Override
            public void onStop(ToolCallingObservationContext context) {
                parents.add(context.getParentObservation() == null ? "none"
                        : context.getParentObservation().getContextView().getName() + " " + context.getParentObservation().getContextView().getClass().getSimpleName());
                observed.add(context.getContextualName() + " id=" + context.getToolCallId());
            }
        });
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

    @Test
    void aChatClientLoopGetsFiveAnswersAndToolYardRecordsItsFourCallsWithTheirIdsReasonsAndOneObservationEach() {
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(
                        new ToolCall("call-1", "function", "read_file", "{\"path\":\"notes.md\"}"),
                        new ToolCall("call-2", "function", "read_file", "{\"path\":\"../secret.txt\"}"),
                        new ToolCall("call-3", "function", "delete_everything", "{\"path\":\"/\"}"),
                        new ToolCall("call-4", "function", "read_file", "{\"file\":\"notes.md\"}"),
                        new ToolCall("call-5", "function", "clock", "{\"zone\":\"UTC\"}")),
                second -> new AssistantMessage("read " + toolResponses(second).size() + " answers"));
        FunctionToolCallback<Zone, String> clock = FunctionToolCallback
                .builder("clock", (Zone z) -> "noon in " + z.zone()).description("The time").inputType(Zone.class).build();
        ToolCallingManager manager = new ToolYardToolCallingManager(tools,
                ToolCallingManager.builder().observationRegistry(observations).build(), observations);
        ChatClient client = ChatClient.builder(model, observations, null, null)
                .defaultAdvisors(ToolCallingAdvisor.builder().toolCallingManager(manager).build()).build();

        String answer = client.prompt().user("What do my notes say?").tools(tools, clock)
                .toolContext(Map.of("conversation", "conv-13")).call().content();

        assertThat(answer).isEqualTo("read 5 answers");
        ToolCallingChatOptions offered = (ToolCallingChatOptions) model.prompts.get(0).getOptions();
        assertThat(offered.getToolCallbacks()).extracting(c -> c.getToolDefinition().name())
                .containsExactlyInAnyOrder("read_file", "clock");
        // What reached the model, in order, each under its own call id.
        List<ToolResponseMessage.ToolResponse> responses = toolResponses(model.prompts.get(1));
        assertThat(responses).extracting(ToolResponseMessage.ToolResponse::id)
                .containsExactly("call-1", "call-2", "call-3", "call-4", "call-5");
        assertThat(responses.get(0).responseData()).isEqualTo("Ship 0.1.0.");
        assertThat(responses.get(1).responseData()).startsWith("Tool 'read_file' - path_escape: argument 'path' ")
                .doesNotContain(dir.toString());
        assertThat(responses.get(2).responseData())
                .isEqualTo("Tool 'delete_everything' - unknown_tool: no tool of that name is registered");
        assertThat(responses.get(3).responseData()).startsWith("Tool 'read_file' - args_invalid: ");
        assertThat(responses.get(4).responseData()).isEqualTo("\"noon in UTC\"");

        // What ToolYard recorded: its four calls (the app's own clock is Spring AI's), one invocation.
        // The turn's calls run as one round, concurrently: the records are in the order the calls ended.
        List<ToolCallRecord> records = store.records().stream()
                .sorted(java.util.Comparator.comparing(ToolCallRecord::requestCallId)).toList();
        assertThat(records).extracting(ToolCallRecord::toolName)
                .containsExactly("read_file", "read_file", "delete_everything", "read_file");
        assertThat(records).extracting(rec -> rec.reason().orElse(null)).containsExactly(
                null, Reason.PATH_ESCAPE, Reason.UNKNOWN_TOOL, Reason.ARGS_INVALID);
        assertThat(records).extracting(ToolCallRecord::invocationId).containsOnly("conv-13");
        // Spring AI's callback never sees the call id; through this manager every record carries it.
        assertThat(records).extracting(ToolCallRecord::requestCallId)
                .containsExactly("call-1", "call-2", "call-3", "call-4");
        // One execute_tool observation per call Spring AI can name; none added by ToolYard.
        assertThat(observed).containsExactly("execute_tool read_file id=call-1", "execute_tool read_file id=call-2",
                "execute_tool read_file id=call-4", "execute_tool clock id=call-5");
        // ToolYard's observations hang where Spring AI's own manager hangs its own (the clock's): under the advisor.
        assertThat(parents).hasSize(4).containsOnly("spring.ai.advisor AdvisorObservationContext");
    }

    @Test
    void aTurnOfFortyCallsThroughTheChatClientIsOneRoundCappedAt32InRequestOrderWithEveryCallRecorded() {
        fortyCallTurn(false);
    }

    /**
     * With {@code stream()}, Spring AI's {@code ToolCallingAdvisor} aggregates the streamed chunks into one
     * response before it hands the turn to the manager, so a streamed turn is one round too.
     */
    @Test
    void aTurnOfFortyCallsStreamedThroughTheChatClientIsOneRoundCappedAt32InRequestOrderWithEveryCallRecorded() {
        fortyCallTurn(true);
    }

    private void fortyCallTurn(boolean streamed) {
        ToolExecutor capped = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file")).store(store).maxCallsPerRound(32).build();
        ToolYardToolCallbacks cappedTools = ToolYardToolCallbacks.builder(registry, capped,
                springContext -> ToolContext.of("conv-24", SandboxPaths.of(work))).tools(List.of("read_file")).build();
        Set<Integer> unknown = Set.of(5, 15, 34, 38); // two inside the cap, two past it
        List<ToolCall> turn = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            turn.add(new ToolCall("call-" + i, "function", unknown.contains(i) ? "invented_" + i : "read_file",
                    "{\"path\":\"notes.md\"}"));
        }
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(turn.toArray(new ToolCall[0])),
                second -> new AssistantMessage("read " + toolResponses(second).size() + " answers"));
        ChatClient client = ChatClient.builder(model)
                .defaultAdvisors(ToolCallingAdvisor.builder()
                        .toolCallingManager(ToolYardToolCallingManager.of(cappedTools)).build()).build();

        String answer = streamed
                ? String.join("", client.prompt().user("Read it forty times").tools(cappedTools).stream().content()
                        .collectList().block(java.time.Duration.ofSeconds(60)))
                : client.prompt().user("Read it forty times").tools(cappedTools).call().content();

        assertThat(answer).isEqualTo("read 40 answers");
        List<ToolResponseMessage.ToolResponse> responses = toolResponses(model.prompts.get(1));
        assertThat(responses).extracting(ToolResponseMessage.ToolResponse::id)
                .containsExactlyElementsOf(turn.stream().map(ToolCall::id).toList());
        for (int i = 0; i < 32; i++) {
            String expected = unknown.contains(i)
                    ? "Tool 'invented_" + i + "' - unknown_tool: no tool of that name is registered" : "Ship 0.1.0.";
            assertThat(responses.get(i).responseData()).as("answer %d", i).isEqualTo(expected);
        }
        for (int i = 32; i < 40; i++) {
            assertThat(responses.get(i).responseData()).as("answer %d", i)
                    .startsWith("Tool '" + turn.get(i).name() + "' - round_limit: this round asked for 40 calls; at most 32");
        }
        // Every call is recorded, under its id: 30 ran, 2 unknown names, and the 8 past the cap.
        Map<String, ToolCallRecord> byId = new java.util.HashMap<>();
        store.records().forEach(r -> byId.put(r.requestCallId(), r));
        assertThat(store.records()).hasSize(40);
        for (int i = 0; i < 40; i++) {
            Reason expected = i >= 32 ? Reason.ROUND_LIMIT : unknown.contains(i) ? Reason.UNKNOWN_TOOL : null;
            assertThat(byId.get("call-" + i).reason().orElse(null)).as("record of call-%d", i).isEqualTo(expected);
            assertThat(byId.get("call-" + i).invocationId()).isEqualTo("conv-24");
        }
    }

    /**
     * Issue 24, item 9, through Spring AI's loop: a model that writes an integer as {@code 5.0}, {@code 1e1},
     * {@code 1E0}, {@code 10.000} or {@code 0e400} sent a valid call, and the handler gets the integer.
     */
    @Test
    void integersAModelWritesWithAFractionOrAnExponentReachTheHandlerAsIntegersThroughTheChatClient() {
        ToolRegistry numbers = new ToolRegistry();
        numbers.register(dev.toolyard.ToolSpec.builder("tick").description("Echoes n.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                        + "\"required\":[\"n\"],\"additionalProperties\":false}")
                .riskClass(dev.toolyard.RiskClass.READ_ONLY).egress(dev.toolyard.EgressClass.NONE).build(),
                (args, ctx) -> dev.toolyard.ToolOutput.of("n=" + args.integer("n")));
        ToolExecutor executor = ToolExecutor.builder(numbers, new PathContainment()).allowlist(Set.of("tick"))
                .store(store).build();
        ToolYardToolCallbacks ticks = ToolYardToolCallbacks.builder(numbers, executor,
                springContext -> ToolContext.of("conv-9", SandboxPaths.of(work))).build();
        List<String> written = List.of("5.0", "1e1", "1E0", "10.000", "0e400");
        List<ToolCall> turn = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            turn.add(new ToolCall("call-" + i, "function", "tick", "{\"n\":" + written.get(i) + "}"));
        }
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(turn.toArray(new ToolCall[0])),
                second -> new AssistantMessage("done"));
        ChatClient client = ChatClient.builder(model).defaultAdvisors(ToolCallingAdvisor.builder()
                .toolCallingManager(ToolYardToolCallingManager.of(ticks)).build()).build();

        assertThat(client.prompt().user("count").tools(ticks).call().content()).isEqualTo("done");

        assertThat(toolResponses(model.prompts.get(1))).extracting(ToolResponseMessage.ToolResponse::responseData)
                .containsExactly("n=5", "n=10", "n=1", "n=10", "n=0");
        assertThat(store.records()).hasSize(5).allSatisfy(r -> assertThat(r.status()).isEqualTo(ToolStatus.OK));
    }

    @Test
    void theResolversBudgetsAndAgentSurviveTheNarrowingToTheAttachedTools() {
        ToolExecutor budgeted = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file")).store(store).build();
        ToolYardToolCallbacks limited = ToolYardToolCallbacks.builder(registry, budgeted,
                springContext -> ToolContext.builder("conv-budget", SandboxPaths.of(work)).callBudget(2)
                        .agent("researcher").build()).tools(List.of("read_file")).build();
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder().toolCallbacks(limited.getToolCallbacks())
                .build());
        ChatResponse response = new ChatResponse(List.of(new Generation(ScriptedChatModel.callsTools(
                new ToolCall("b1", "function", "read_file", "{\"path\":\"notes.md\"}"),
                new ToolCall("b2", "function", "read_file", "{\"path\":\"notes.md\"}"),
                new ToolCall("b3", "function", "read_file", "{\"path\":\"notes.md\"}")))));

        ToolYardToolCallingManager.of(limited).executeToolCalls(prompt, response);

        assertThat(store.records()).hasSize(3).extracting(ToolCallRecord::agent).containsOnly("researcher");
        assertThat(store.records()).filteredOn(r -> r.reason().orElse(null) == Reason.BUDGET_EXHAUSTED).hasSize(1);
    }

    @Test
    void springAisOwnManagerThrowsForAnUnknownNameAndRecordsNothingWhichIsWhyThisOneExists() {
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ScriptedChatModel.callsTools(new ToolCall("c1", "function", "rm_rf", "{}")));
        ChatClient client = ChatClient.builder(model).build();

        assertThatThrownBy(() -> client.prompt().user("go").tools(tools).call().content())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("rm_rf");
        assertThat(store.records()).isEmpty();
    }

    @Test
    void aRegisteredToolTheRequestDidNotAttachIsRefusedAsNotApproved() {
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder().toolCallbacks(tools.getToolCallbacks())
                .build());
        ChatResponse response = new ChatResponse(List.of(new Generation(ScriptedChatModel.callsTools(
                new ToolCall("c1", "function", "list_dir", "{\"path\":\".\"}")))));

        ToolExecutionResult result = ToolYardToolCallingManager.of(tools).executeToolCalls(prompt, response);

        ToolResponseMessage last = (ToolResponseMessage) result.conversationHistory()
                .get(result.conversationHistory().size() - 1);
        assertThat(last.getResponses()).singleElement()
                .satisfies(r -> assertThat(r.responseData()).startsWith("Tool 'list_dir' - not_approved"));
        assertThat(store.records()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
            assertThat(r.reason()).contains(Reason.NOT_APPROVED);
        });
        assertThat(result.returnDirect()).isFalse();
    }

    @Test
    void callsWithNullOrBlankArgumentsOrNamesAreAnsweredNotThrown() {
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder().toolCallbacks(tools.getToolCallbacks())
                .build());
        String huge = "y".repeat(2 << 20);
        ChatResponse response = new ChatResponse(List.of(new Generation(ScriptedChatModel.callsTools(
                new ToolCall("a", "function", "read_file", null),
                new ToolCall("b", "function", "read_file", " "),
                new ToolCall("c", "function", "read_file", "{\"path\":\"" + huge + "\"}"),
                new ToolCall("d", "function", huge, "{}"),
                new ToolCall("e", "function", "", "not json"),
                new ToolCall(null, null, null, null)))));

        ToolExecutionResult result = ToolYardToolCallingManager.of(tools).executeToolCalls(prompt, response);

        ToolResponseMessage last = (ToolResponseMessage) result.conversationHistory()
                .get(result.conversationHistory().size() - 1);
        assertThat(last.getResponses()).hasSize(6).allSatisfy(r -> {
            assertThat(r.responseData()).startsWith("Tool '").hasSizeLessThan(70_000);
            assertThat(r.name()).isNotNull();
        });
        assertThat(store.records()).hasSize(6).extracting(ToolCallRecord::status).containsOnly(ToolStatus.REFUSED);
    }
}
