package dev.toolyard.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * A chat model with no LLM behind it: each call answers with the next scripted response, computed
 * from the request it got, and every request is kept so a test can read what reached "the model".
 */
final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<ChatRequest, ChatResponse>> script = new ArrayDeque<>();
    final List<ChatRequest> requests = new ArrayList<>();

    @SafeVarargs
    ScriptedChatModel(Function<ChatRequest, ChatResponse>... answers) {
        script.addAll(List.of(answers));
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        Function<ChatRequest, ChatResponse> next = script.poll();
        if (next == null) {
            throw new AssertionError("the model was asked more often than scripted: " + request.messages());
        }
        return next.apply(request);
    }
}
