package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * The model turns an AI service is answering, so that each call LangChain4j hands the adapter (to a tool
 * executor, or to the hallucinated-name strategy, on whatever thread) is answered from its turn's one
 * round. A turn is learnt from LangChain4j's {@code AiServiceResponseReceivedEvent}, which 1.19.0 fires on
 * the invoking thread for every model response, before that response's calls run. A turn is dropped when
 * every call of it was answered, when its invocation's next turn arrives, or when the invocation ends;
 * so at most one turn per running invocation is kept. Thread-safe: one lock, held only to look up.
 */
final class Turns {
    private final Function<Turn.Spec, Turn> turns;
    private final Map<UUID, Turn> byInvocation = new HashMap<>();
    private final Map<ToolExecutionRequest, Turn> byRequest = new IdentityHashMap<>();

    /** @param turns makes a turn's round, on the invoking thread */
    Turns(Function<Turn.Spec, Turn> turns) {
        this.turns = turns;
    }

    /** A model response arrived for an invocation, on the thread that invoked the AI service. */
    void responded(InvocationContext invocation, ChatResponse response) {
        if (invocation == null || invocation.invocationId() == null || response == null) {
            return;
        }
        AiMessage message = response.aiMessage();
        List<ToolExecutionRequest> requests = message == null || !message.hasToolExecutionRequests()
                ? List.of() : List.copyOf(message.toolExecutionRequests());
        Turn turn = requests.isEmpty() ? null : turns.apply(new Turn.Spec(invocation, requests));
        synchronized (this) {
            Turn earlier = turn == null ? byInvocation.remove(invocation.invocationId())
                    : byInvocation.put(invocation.invocationId(), turn);
            if (earlier != null) {
                forget(earlier);
            }
            if (turn != null) {
                for (ToolExecutionRequest r : requests) {
                    byRequest.put(r, turn);
                }
            }
        }
    }

    /** The invocation ended, answered or failed: its turn is not kept past it. */
    void ended(InvocationContext invocation) {
        if (invocation == null || invocation.invocationId() == null) {
            return;
        }
        synchronized (this) {
            Turn turn = byInvocation.remove(invocation.invocationId());
            if (turn != null) {
                forget(turn);
            }
        }
    }

    /**
     * @param request a call LangChain4j is running, as it came in the model's response
     * @return its place in its turn, claimed; {@code null} when no turn holds it (the low-level path, or
     *     a framework path that starts a call before its turn is complete)
     */
    Turn.Place claim(ToolExecutionRequest request) {
        if (request == null) {
            return null;
        }
        Turn.Place place;
        synchronized (this) {
            Turn turn = byRequest.get(request);
            if (turn == null) {
                return null;
            }
            place = turn.claim(request);
            if (place != null && turn.allClaimed()) {
                if (byInvocation.get(turn.invocationId()) == turn) {
                    byInvocation.remove(turn.invocationId());
                }
                forget(turn);
            }
        }
        return place;
    }

    /** @return how many turns are kept; for tests */
    synchronized int kept() {
        return byInvocation.size();
    }

    private void forget(Turn turn) {
        for (ToolExecutionRequest r : turn.requests()) {
            byRequest.remove(r, turn);
        }
    }
}
