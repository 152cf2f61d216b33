package dev.toolyard.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.builtins.BuiltinTools;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage.ToolCall;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * What the application got wrong at call time reaches its log through System.Logger (here the JDK's
 * default, java.util.logging), once at WARNING with the exception, then at DEBUG (FINE).
 */
class ApplicationFailuresTest {
    private final Logger jul = Logger.getLogger("dev.toolyard.springai");
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Level level;

    @BeforeEach
    void listen() {
        level = jul.getLevel();
        jul.setLevel(Level.ALL);
        jul.addHandler(handler);
    }

    @AfterEach
    void stop() {
        jul.removeHandler(handler);
        jul.setLevel(level);
    }

    @Test
    void aResolverFailureIsLoggedOnceAtWarningThenAtDebug() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.readFile());
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("read_file")).store(store).build();
        ToolYardToolCallbacks tools = ToolYardToolCallbacks.builder(registry, executor, spring -> {
            throw new IllegalStateException("no workspace for tenant 7");
        }).build();
        Prompt prompt = new Prompt(List.of(), ToolCallingChatOptions.builder().toolCallbacks(tools.getToolCallbacks())
                .build());
        ChatResponse turn = new ChatResponse(List.of(new Generation(ScriptedChatModel.callsTools(
                new ToolCall("c1", "function", "read_file", "{\"path\":\"a\"}"),
                new ToolCall("c2", "function", "read_file", "{\"path\":\"b\"}")))));
        ToolYardToolCallingManager manager = ToolYardToolCallingManager.of(tools);

        manager.executeToolCalls(prompt, turn);
        manager.executeToolCalls(prompt, turn);

        assertThat(logged).extracting(LogRecord::getLevel).containsExactly(Level.WARNING, Level.FINE);
        assertThat(logged.get(0).getMessage()).contains("the ToolContextResolver or the ToolExecutor threw")
                .contains(ToolYardToolCallbacks.NOT_COMPLETED).contains("later occurrences are logged at DEBUG");
        assertThat(logged.get(0).getThrown()).hasMessage("no workspace for tenant 7");
        assertThat(store.records()).isEmpty(); // nothing ran: the turn had no context
    }
}
