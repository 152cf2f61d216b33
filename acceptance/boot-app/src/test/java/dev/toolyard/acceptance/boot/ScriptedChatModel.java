package dev.toolyard.acceptance.boot;

import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A chat model with no LLM: its first answer asks for the given tool calls, its second reports how many
 * tool answers it read. Both option methods return ToolCallingChatOptions, or Spring AI drops the tools.
 */
final class ScriptedChatModel implements ChatModel {
    private final List<AssistantMessage.ToolCall> turn;
    final List<Prompt> prompts = new ArrayList<>();

    ScriptedChatModel(List<AssistantMessage.ToolCall> turn) {
        this.turn = turn;
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        prompts.add(prompt);
        AssistantMessage answer = prompts.size() == 1
                ? AssistantMessage.builder().content("").toolCalls(turn).build()
                : new AssistantMessage("read " + answers(prompt).size() + " answers");
        return new ChatResponse(List.of(new Generation(answer)));
    }

    static List<ToolResponseMessage.ToolResponse> answers(Prompt prompt) {
        List<ToolResponseMessage.ToolResponse> out = new ArrayList<>();
        prompt.getInstructions().forEach(m -> {
            if (m instanceof ToolResponseMessage r) {
                out.addAll(r.getResponses());
            }
        });
        return out;
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatOptions getDefaultOptions() {
        return ToolCallingChatOptions.builder().build();
    }
}
