package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A streaming chat model with no LLM behind it, delivering on a thread of its own as a provider's HTTP
 * client does. Each request is answered with the next scripted response: first every tool call of it
 * through {@code onCompleteToolCall} (the very request objects the final message holds, or copies: see
 * {@link #rebuild}), then {@link #beforeComplete} runs, then {@code onCompleteResponse}.
 * Every request is kept so a test can read what reached "the model".
 */
final class ScriptedStreamingChatModel implements StreamingChatModel {
    private final Deque<Function<ChatRequest, ChatResponse>> script = new ArrayDeque<>();
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
    /**
     * Whether the streamed calls are copies of the final message's, as LangChain4j's OpenAI model builds
     * them (equal, not the same objects); by default the same objects, as its Azure OpenAI and Ollama
     * models hand out.
     */
    volatile boolean rebuild;
    /** Runs between the last streamed tool call and the complete response; by default nothing. */
    volatile Runnable beforeComplete = () -> { };

    @SafeVarargs
    ScriptedStreamingChatModel(Function<ChatRequest, ChatResponse>... answers) {
        script.addAll(List.of(answers));
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        requests.add(request);
        Function<ChatRequest, ChatResponse> next;
        synchronized (script) {
            next = script.poll();
        }
        if (next == null) {
            handler.onError(new AssertionError("the model was asked more often than scripted: " + request.messages()));
            return;
        }
        Thread provider = new Thread(() -> {
            try {
                ChatResponse response = next.apply(request);
                AiMessage message = response.aiMessage();
                if (message.hasToolExecutionRequests()) {
                    List<ToolExecutionRequest> calls = message.toolExecutionRequests();
                    for (int i = 0; i < calls.size(); i++) {
                        ToolExecutionRequest call = calls.get(i);
                        handler.onCompleteToolCall(new CompleteToolCall(i, !rebuild ? call
                                : ToolExecutionRequest.builder().id(call.id()).name(call.name())
                                        .arguments(call.arguments()).build()));
                    }
                    beforeComplete.run();
                } else if (message.text() != null) {
                    handler.onPartialResponse(message.text());
                }
                handler.onCompleteResponse(response);
            } catch (Throwable t) {
                handler.onError(t);
            }
        }, "scripted-provider");
        provider.setDaemon(true);
        provider.start();
    }
}
