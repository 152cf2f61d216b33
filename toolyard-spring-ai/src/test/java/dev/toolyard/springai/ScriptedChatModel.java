package dev.toolyard.springai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import reactor.core.publisher.Flux;

/**
 * A chat model with no LLM behind it: each call answers with the next scripted response, computed
 * from the prompt it got, and every prompt is kept. Its options and default options are
 * {@link ToolCallingChatOptions}: with plain {@link ChatOptions} from either, Spring AI silently drops the
 * request's tools.
 */
public final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<Prompt, AssistantMessage>> script = new ArrayDeque<>();
    /** Every prompt the model got, in order. */
    public final List<Prompt> prompts = new ArrayList<>();

    /** @param answers the answer to each call in turn, computed from its prompt */
    @SafeVarargs
    public ScriptedChatModel(Function<Prompt, AssistantMessage>... answers) {
        script.addAll(List.of(answers));
    }

    /** @param calls the tool calls to ask for @return an answer asking for them */
    public static AssistantMessage callsTools(AssistantMessage.ToolCall... calls) {
        return AssistantMessage.builder().content("").toolCalls(List.of(calls)).build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        prompts.add(prompt);
        Function<Prompt, AssistantMessage> next = script.poll();
        if (next == null) {
            throw new AssertionError("the model was asked more often than scripted: " + prompt.getInstructions());
        }
        return ChatResponse.builder().generations(List.of(new Generation(next.apply(prompt))))
                .metadata(ChatResponseMetadata.builder().id("scripted").model("scripted").build()).build();
    }

    /**
     * Streams the next scripted answer as a provider would: each tool call in a chunk of its own (Spring
     * AI's aggregator joins them into one response), or the text in one chunk.
     */
    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        return Flux.defer(() -> {
            AssistantMessage whole = call(prompt).getResult().getOutput();
            List<ChatResponse> chunks = new ArrayList<>();
            if (whole.hasToolCalls()) {
                for (AssistantMessage.ToolCall c : whole.getToolCalls()) {
                    chunks.add(chunk(AssistantMessage.builder().content("").toolCalls(List.of(c)).build()));
                }
            } else {
                chunks.add(chunk(whole));
            }
            return Flux.fromIterable(chunks);
        });
    }

    private static ChatResponse chunk(AssistantMessage message) {
        return ChatResponse.builder().generations(List.of(new Generation(message)))
                .metadata(ChatResponseMetadata.builder().id("scripted").model("scripted").build()).build();
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
