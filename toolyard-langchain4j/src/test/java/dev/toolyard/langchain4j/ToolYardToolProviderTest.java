package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolYardToolProviderTest {
    interface Assistant {
        String chat(String message);
    }

    @TempDir
    Path dir;
    Path work;
    ToolRegistry registry;
    InMemoryToolCallStore store;
    dev.toolyard.ToolExecutor executor;
    final List<String> invocationIds = new CopyOnWriteArrayList<>();

    @BeforeEach
    void workspace() throws Exception {
        work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("notes.md"), "Ship 0.1.0.");
        Files.writeString(dir.resolve("secret.txt"), "outside the workspace");
        registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        registry.register(BuiltinTools.listDir());
        store = new InMemoryToolCallStore();
        executor = dev.toolyard.ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file", "list_dir")).store(store).build();
    }

    private ToolYardToolProvider provider() {
        return ToolYardToolProvider.builder(registry, executor, ic -> {
            invocationIds.add(ic.invocationId().toString());
            return ToolContext.of(ic.invocationId().toString(), SandboxPaths.of(work));
        }).build();
    }

    private static ToolExecutionRequest call(String id, String name, String arguments) {
        return ToolExecutionRequest.builder().id(id).name(name).arguments(arguments).build();
    }

    @Test
    void anAiServiceLoopGetsFourAnswersAndToolYardRecordsFourCallsWithTheirReasons() {
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ChatResponse.builder().aiMessage(AiMessage.from(List.of(
                        call("call-1", "read_file", "{\"path\":\"notes.md\"}"),
                        call("call-2", "read_file", "{\"path\":\"../secret.txt\"}"),
                        call("call-3", "delete_everything", "{\"path\":\"/\"}"),
                        call("call-4", "read_file", "{\"file\":\"notes.md\"}")))).build(),
                second -> {
                    List<String> seen = new ArrayList<>();
                    for (ChatMessage m : second.messages()) {
                        if (m instanceof ToolExecutionResultMessage r) {
                            seen.add(r.id() + "=" + r.isError());
                        }
                    }
                    return ChatResponse.builder().aiMessage(AiMessage.from("read " + seen)).build();
                });
        ToolYardToolProvider tools = provider();
        Assistant assistant = tools.configure(AiServices.builder(Assistant.class).chatModel(model)).build();

        String answer = assistant.chat("What do my notes say?");

        // What the model was offered: the registry's tools, nothing else.
        assertThat(model.requests.get(0).toolSpecifications()).extracting(ToolSpecification::name)
                .containsExactly("list_dir", "read_file");
        // What reached the model, in order: one answer per call, none an exception's message.
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        for (ChatMessage m : model.requests.get(1).messages()) {
            if (m instanceof ToolExecutionResultMessage r) {
                results.add(r);
            }
        }
        assertThat(results).extracting(ToolExecutionResultMessage::id)
                .containsExactly("call-1", "call-2", "call-3", "call-4");
        assertThat(results.get(0).text()).isEqualTo("Ship 0.1.0.");
        assertThat(results.get(0).isError()).isFalse();
        assertThat(results.get(1).text()).startsWith("Tool 'read_file' - path_escape: argument 'path' ")
                .doesNotContain(dir.toString());
        assertThat(results.get(1).isError()).isTrue();
        assertThat(results.get(2).text())
                .isEqualTo("Tool 'delete_everything' - unknown_tool: no tool of that name is registered");
        // LangChain4j 1.19.0 keeps only the text of a hallucinated-name answer: isError does not survive.
        assertThat(results.get(2).isError()).isFalse();
        assertThat(results.get(3).text()).startsWith("Tool 'read_file' - args_invalid: ");
        assertThat(results.get(3).isError()).isTrue();
        assertThat(answer).isEqualTo("read [call-1=false, call-2=true, call-3=false, call-4=true]");

        // What ToolYard recorded: four calls, one invocation, the reasons in request order. The turn ran as
        // one round, on several lanes, so the store holds them in the order they ended: sorted by id here.
        List<ToolCallRecord> records = new ArrayList<>(store.records());
        records.sort(java.util.Comparator.comparing(ToolCallRecord::requestCallId));
        assertThat(records).extracting(ToolCallRecord::toolName)
                .containsExactly("read_file", "read_file", "delete_everything", "read_file");
        assertThat(records).extracting(ToolCallRecord::status).containsExactly(
                ToolStatus.OK, ToolStatus.REFUSED, ToolStatus.REFUSED, ToolStatus.REFUSED);
        assertThat(records).extracting(rec -> rec.reason().orElse(null)).containsExactly(
                null, Reason.PATH_ESCAPE, Reason.UNKNOWN_TOOL, Reason.ARGS_INVALID);
        // The framework's call ids, the hallucinated one's included, are on the records.
        assertThat(records).extracting(ToolCallRecord::requestCallId)
                .containsExactly("call-1", "call-2", "call-3", "call-4");
        // One turn, one round: the context function ran once, and every record is of that invocation.
        assertThat(invocationIds).hasSize(1);
        assertThat(tools.keptTurns()).isZero();
        assertThat(records).extracting(ToolCallRecord::invocationId).containsOnly(invocationIds.get(0));
        // The attributes (kept in memory, never sent) carry ToolYard's status, reason and record id.
        assertThat(results.get(1).attributes())
                .containsEntry(ToolYardToolProvider.ATTRIBUTE_STATUS, "REFUSED")
                .containsEntry(ToolYardToolProvider.ATTRIBUTE_REASON, "path_escape")
                .containsEntry(ToolYardToolProvider.ATTRIBUTE_CALL_ID, records.get(1).callId());
        assertThat(results.get(0).attributes()).containsEntry(ToolYardToolProvider.ATTRIBUTE_STATUS, "OK")
                .doesNotContainKey(ToolYardToolProvider.ATTRIBUTE_REASON)
                .containsEntry(ToolYardToolProvider.ATTRIBUTE_CALL_ID, records.get(0).callId());
    }

    /**
     * Issue 24, item 7: {@code .toolProvider(tools)} used to compile and then throw out of the AI service
     * on the first invented name. The adapter is no LangChain4j ToolProvider, so that wiring no longer
     * compiles, and {@code configure} (which answers invented names) is the only way in.
     */
    @Test
    void theAdapterIsNoToolProviderSoConfigureIsTheOnlyWiringAndItAnswersInventedNames() {
        assertThat(dev.langchain4j.service.tool.ToolProvider.class.isAssignableFrom(ToolYardToolProvider.class)).isFalse();
        ScriptedChatModel model = new ScriptedChatModel(
                first -> ChatResponse.builder().aiMessage(AiMessage.from(List.of(
                        call("c1", "rm_rf", "{}")))).build(),
                second -> ChatResponse.builder().aiMessage(AiMessage.from("done")).build());
        Assistant assistant = provider().configure(AiServices.builder(Assistant.class).chatModel(model)).build();

        assertThat(assistant.chat("go")).isEqualTo("done");

        assertThat(store.records()).singleElement().satisfies(r -> {
            assertThat(r.reason()).contains(Reason.UNKNOWN_TOOL);
            assertThat(r.requestCallId()).isEqualTo("c1");
            assertThat(r.invocationId()).isEqualTo(invocationIds.get(0));
        });
    }

    @Test
    void theSpecificationsAreTheWireDefinitionsOfTheChosenTools() {
        ToolYardToolProvider tools = ToolYardToolProvider.builder(registry, executor,
                ic -> ToolContext.of("x", SandboxPaths.of(work))).tools("read_file").build();

        assertThat(tools.toolSpecifications()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("read_file");
            assertThat(s.description()).startsWith("Read a text file from the workspace");
            assertThat(s.parameters().required()).containsExactly("path");
            assertThat(s.parameters().additionalProperties()).isFalse();
        });
        ToolProviderRequest request = new ToolProviderRequest("memory", dev.langchain4j.data.message.UserMessage.from("hi"));
        assertThat(tools.toolProvider().provideTools(request).aiServiceTools()).singleElement()
                .satisfies(t -> assertThat(t.name()).isEqualTo("read_file"));
    }

    @Test
    void aToolNameThatIsNotRegisteredFailsTheBuildNamingIt() {
        assertThatThrownBy(() -> ToolYardToolProvider.builder(registry, executor,
                ic -> ToolContext.of("x", SandboxPaths.of(work))).tools("read_file", "write_file").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'write_file'");
    }

    @Test
    void nothingLangChain4jHandsTheExecutorMakesItThrow() {
        ToolYardToolProvider tools = provider();
        ToolExecutor toolExecutor = tools.toolProvider().provideTools(new ToolProviderRequest("m",
                dev.langchain4j.data.message.UserMessage.from("hi"))).aiServiceTools().get(0).toolExecutor();
        String huge = "x".repeat(3 << 20);
        List<ToolExecutionRequest> hostile = List.of(
                ToolExecutionRequest.builder().build(),
                call(null, "read_file", null),
                call("a", "read_file", ""),
                call("b", "read_file", "   "),
                call("c", "read_file", "{\"path\":"),
                call("d", "read_file", "[1,2]"),
                call("e", "read_file", "{\"path\":\"" + huge + "\"}"),
                call("f", huge, "{}"),
                call("g", "read_file\u0000\n", "{\"path\":\"notes.md\"}"),
                call("h", "read_file", "{\"path\":\"notes.md\"}{\"path\":\"x\"}"));
        List<ToolExecutionResult> results = new ArrayList<>();
        results.add(toolExecutor.executeWithContext(null, null));
        for (ToolExecutionRequest r : hostile) {
            results.add(toolExecutor.executeWithContext(r, null));
        }
        assertThat(results).allSatisfy(r -> {
            assertThat(r.isError()).isTrue();
            assertThat(r.resultText()).startsWith("Tool '").hasSizeLessThan(70_000);
        });
        assertThat(store.records()).hasSize(results.size()).extracting(ToolCallRecord::status)
                .containsOnly(ToolStatus.REFUSED);
        // blank arguments run as {}, and so fail the schema's "required", not the JSON parser
        assertThat(results.get(3).resultText()).contains("args_invalid").contains("required");
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
        dev.toolyard.ToolExecutor failing = dev.toolyard.ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file")).store(broken).build();
        ToolYardToolProvider storeDown = ToolYardToolProvider.builder(registry, failing,
                ic -> ToolContext.of("x", SandboxPaths.of(work))).build();
        ToolYardToolProvider contextBug = ToolYardToolProvider.builder(registry, executor, ic -> {
            throw new IllegalArgumentException("tenant 'acme' has no workspace at /srv/acme");
        }).build();
        ToolYardToolProvider contextNull = ToolYardToolProvider.builder(registry, executor, ic -> null).build();

        for (ToolYardToolProvider p : List.of(storeDown, contextBug, contextNull)) {
            ToolExecutionResult r = p.execute(call("1", "read_file", "{\"path\":\"notes.md\"}"), null);
            assertThat(r.isError()).isTrue();
            assertThat(r.resultText()).isEqualTo(ToolYardToolProvider.NOT_COMPLETED);
            assertThat(r.attributes()).containsEntry(ToolYardToolProvider.ATTRIBUTE_STATUS, "NOT_COMPLETED")
                    .containsKey(ToolYardToolProvider.ATTRIBUTE_ERROR);
        }
        assertThat(storeDown.execute(call("1", "read_file", "{\"path\":\"notes.md\"}"), null).result())
                .isInstanceOf(StoreFailureException.class);
    }

    @Test
    void theInvocationIdComesFromLangChain4jsInvocationContext() {
        ToolYardToolProvider tools = provider();
        InvocationContext invocation = InvocationContext.builder()
                .invocationId(java.util.UUID.fromString("00000000-0000-4000-8000-000000000013")).build();

        tools.execute(call("1", "list_dir", "{\"path\":\".\"}"), invocation);

        assertThat(store.records()).singleElement().satisfies(r -> {
            assertThat(r.invocationId()).isEqualTo("00000000-0000-4000-8000-000000000013");
            assertThat(r.status()).isEqualTo(ToolStatus.OK);
        });
    }
}
