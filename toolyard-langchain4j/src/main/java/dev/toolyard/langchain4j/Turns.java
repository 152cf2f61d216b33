package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.toolyard.StreamedRound;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The model turns the AI services are answering, so that each call LangChain4j hands the adapter (to a tool
 * executor, or to the hallucinated-name strategy, on whatever thread) counts in its turn's one round.
 * LangChain4j 1.19.0 fires, for each invocation, {@code AiServiceRequestIssuedEvent} before each model
 * request and {@code AiServiceResponseReceivedEvent} once the response is complete.
 *
 * <p>A turn whose calls LangChain4j runs after its response is complete (every non-streaming turn, and a
 * {@code TokenStream}'s without {@code executeToolsConcurrently()}) is a {@link Turn}, learnt from the
 * response: one {@code executeRound}, in the model's order. With {@code executeToolsConcurrently()}, a
 * {@code TokenStream} starts each call as it streams in, between the request and its response; the first
 * such call opens the invocation's {@link Streamed} round, which every later call of that turn counts in,
 * in arrival order, until the next request. A turn none of whose calls arrived before the response is
 * still a {@link Turn}. The hallucinated-name strategy is given no invocation, only the request, so an
 * invented name that arrives while a response is streaming waits until the responses then awaited are
 * complete (at most {@link #UNKNOWN_NAME_WAIT_SECONDS}) to learn its turn by the request object, or by
 * an equal request in exactly one invocation when the model rebuilt its final message.
 *
 * <p>What is kept per invocation is dropped when it ends, answered or failed; at most {@link #MAX_LIVE}
 * invocations are kept, the least recently used dropped first (an invocation that fails without an
 * error listener being told never ends). Thread-safe: one lock, held only to look up.
 */
final class Turns {
    /** Most invocations kept at once. */
    static final int MAX_LIVE = 4096;
    /** Longest wait of an invented name for the response that holds it. */
    static final long UNKNOWN_NAME_WAIT_SECONDS = 60;

    /** What a call counts in: its place in a known turn, or its turn's streamed round; one is non-null. */
    record Claim(Turn.Place place, Streamed streamed) {}

    /** One running invocation. */
    private static final class Live {
        Turn turn;
        Streamed streamed;
        List<ToolExecutionRequest> streamedRequests = List.of();
        boolean awaiting;
        long requests;
        boolean ended;
    }

    private final Function<Turn.Spec, Turn> turns;
    private final Function<InvocationContext, StreamedRound> rounds;
    private final Map<UUID, Live> live = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Live> eldest) {
            if (size() <= MAX_LIVE) {
                return false;
            }
            drop(eldest.getValue());
            return true;
        }
    };
    private final Map<ToolExecutionRequest, Turn> byRequest = new IdentityHashMap<>();
    private final Map<ToolExecutionRequest, Streamed> streamedByRequest = new IdentityHashMap<>();

    /**
     * @param turns makes a known turn's round, on the thread that learnt it
     * @param rounds opens a streamed turn's round from its invocation, on the thread of its first call
     */
    Turns(Function<Turn.Spec, Turn> turns, Function<InvocationContext, StreamedRound> rounds) {
        this.turns = turns;
        this.rounds = rounds;
    }

    /** A model request is about to be sent for an invocation: its previous turn is over. */
    void requested(InvocationContext invocation) {
        if (invocation == null || invocation.invocationId() == null) {
            return;
        }
        synchronized (this) {
            Live l = live.computeIfAbsent(invocation.invocationId(), id -> new Live());
            l.awaiting = true;
            l.requests++;
            forgetStreamed(l);
        }
    }

    /** A model response is complete for an invocation. */
    void responded(InvocationContext invocation, ChatResponse response) {
        if (invocation == null || invocation.invocationId() == null || response == null) {
            return;
        }
        AiMessage message = response.aiMessage();
        List<ToolExecutionRequest> requests = message == null || !message.hasToolExecutionRequests()
                ? List.of() : List.copyOf(message.toolExecutionRequests());
        Turn turn = requests.isEmpty() ? null : turns.apply(new Turn.Spec(invocation, requests));
        synchronized (this) {
            Live l = live.computeIfAbsent(invocation.invocationId(), id -> new Live());
            l.awaiting = false;
            if (l.turn != null) {
                forget(l.turn);
                l.turn = null;
            }
            if (l.streamed != null) {
                // Calls of this turn already ran as they streamed in: the rest count in the same round.
                for (ToolExecutionRequest r : requests) {
                    streamedByRequest.put(r, l.streamed);
                }
                l.streamedRequests = requests;
            } else if (turn != null) {
                l.turn = turn;
                for (ToolExecutionRequest r : requests) {
                    byRequest.put(r, turn);
                }
            }
            notifyAll();
        }
    }

    /** The invocation ended, answered or failed: nothing of it is kept. */
    void ended(InvocationContext invocation) {
        if (invocation == null || invocation.invocationId() == null) {
            return;
        }
        synchronized (this) {
            Live l = live.remove(invocation.invocationId());
            if (l != null) {
                drop(l);
            }
            notifyAll();
        }
    }

    /**
     * @param request a call LangChain4j is running, as it came from the model
     * @param invocation its invocation; {@code null} from the hallucinated-name strategy
     * @param unknownName whether the hallucinated-name strategy is asking, which alone may wait for a
     *     streaming response
     * @return what the call counts in; {@code null} when nothing does (the low-level path): it is then
     *     a call of its own
     */
    Claim claim(ToolExecutionRequest request, InvocationContext invocation, boolean unknownName) {
        if (request == null) {
            return null;
        }
        synchronized (this) {
            Claim known = byIdentity(request);
            if (known != null) {
                return known;
            }
            if (invocation != null && invocation.invocationId() != null) {
                return byInvocation(request, invocation);
            }
            return unknownName ? awaitAnnounced(request) : null;
        }
    }

    /** @return how many invocations are kept; for tests */
    synchronized int kept() {
        return live.size();
    }

    private Claim byIdentity(ToolExecutionRequest request) {
        Turn turn = byRequest.get(request);
        if (turn != null) {
            Turn.Place place = turn.claim(request);
            if (place != null) {
                claimed(turn);
                return new Claim(place, null);
            }
        }
        Streamed streamed = streamedByRequest.get(request);
        return streamed == null ? null : new Claim(null, streamed);
    }

    private Claim byInvocation(ToolExecutionRequest request, InvocationContext invocation) {
        Live l = live.get(invocation.invocationId());
        if (l == null) {
            return null;
        }
        if (l.turn != null) {
            Turn turn = l.turn;
            Turn.Place place = turn.claimEqual(request); // a model adapter that rebuilt the request
            if (place != null) {
                claimed(turn);
                return new Claim(place, null);
            }
        }
        if (l.streamed == null && l.awaiting) {
            l.streamed = new Streamed(invocation, rounds); // a call before its response: the turn streams
        }
        return l.streamed == null ? null : new Claim(null, l.streamed);
    }

    /** The hallucinated-name strategy: wait for the responses now streaming, to find the request's turn. */
    private Claim awaitAnnounced(ToolExecutionRequest request) {
        Map<Live, Long> streaming = new IdentityHashMap<>();
        for (Live l : live.values()) {
            if (l.awaiting) {
                streaming.put(l, l.requests);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(UNKNOWN_NAME_WAIT_SECONDS);
        while (stillStreaming(streaming)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            Claim known = byIdentity(request);
            if (known != null) {
                return known;
            }
        }
        Claim known = byIdentity(request);
        return known != null ? known : byEquality(request);
    }

    /**
     * For a model that rebuilt its final message's requests (LangChain4j's OpenAI model does): the one
     * running invocation whose turn holds an equal request, same id, name and arguments.
     *
     * @return its claim; {@code null} when no invocation, or more than one, holds an equal request
     */
    private Claim byEquality(ToolExecutionRequest request) {
        Live found = null;
        for (Live l : live.values()) {
            if (l.streamedRequests.contains(request) || l.turn != null && l.turn.requests().contains(request)) {
                if (found != null) {
                    return null; // two invocations: which one is not known
                }
                found = l;
            }
        }
        if (found == null) {
            return null;
        }
        if (found.streamedRequests.contains(request)) {
            return new Claim(null, found.streamed);
        }
        Turn turn = found.turn;
        Turn.Place place = turn.claimEqual(request);
        if (place == null) {
            return null;
        }
        claimed(turn);
        return new Claim(place, null);
    }

    private static boolean stillStreaming(Map<Live, Long> streaming) {
        for (Map.Entry<Live, Long> e : streaming.entrySet()) {
            Live l = e.getKey();
            if (!l.ended && l.awaiting && l.requests == e.getValue()) {
                return true;
            }
        }
        return false;
    }

    private void claimed(Turn turn) {
        if (!turn.allClaimed()) {
            return;
        }
        Live l = live.get(turn.invocationId());
        if (l != null && l.turn == turn) {
            l.turn = null;
        }
        forget(turn);
    }

    private void drop(Live l) {
        l.ended = true;
        if (l.turn != null) {
            forget(l.turn);
            l.turn = null;
        }
        forgetStreamed(l);
    }

    private void forgetStreamed(Live l) {
        for (ToolExecutionRequest r : l.streamedRequests) {
            streamedByRequest.remove(r, l.streamed);
        }
        l.streamedRequests = List.of();
        l.streamed = null;
    }

    private void forget(Turn turn) {
        for (ToolExecutionRequest r : turn.requests()) {
            byRequest.remove(r, turn);
        }
    }
}
