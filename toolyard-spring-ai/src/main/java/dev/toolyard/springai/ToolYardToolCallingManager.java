package dev.toolyard.springai;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.model.tool.internal.ToolCallReactiveContextHolder;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.observation.DefaultToolCallingObservationConvention;
import org.springframework.ai.tool.observation.ToolCallingObservationContext;
import org.springframework.ai.tool.observation.ToolCallingObservationDocumentation;

/**
 * A {@link ToolCallingManager} that runs a model's ToolYard tool calls, and its calls to names no
 * callback of the request has, through ToolYard with the call's id; every other call (a Spring AI
 * tool of the application's own) goes to the delegate, Spring AI's own manager.
 *
 * <p>Why: Spring AI's callback never sees the call id, and its default manager throws
 * {@link IllegalStateException} for an unknown name, which ends the turn without a record and
 * bypasses the exception processor. Here an unknown name is recorded as {@code unknown_tool} and
 * answered. A registered ToolYard tool that the request did not attach is refused as
 * {@code not_approved}: each call's context is narrowed to the ToolYard tools attached to the request,
 * so this manager never runs more than Spring AI's would.
 *
 * <p>Rounds: the ToolYard calls of one model response (its tools and the unknown names, in the model's
 * order) run as one {@link dev.toolyard.ToolExecutor#executeRound round}, so the executor's
 * {@code maxCallsPerRound} holds for a turn: the calls past it are refused {@code round_limit}, recorded,
 * and the model reads why. The resolver is asked once per turn. The application's own Spring AI tools
 * are not counted; they go to the delegate.
 *
 * <p>Tracing: each ToolYard call attached to the request gets the one {@code execute_tool {name}}
 * observation Spring AI's manager would have made (its own convention and context, on the given
 * registry); ToolYard adds none. It is open while the call's round runs. An unknown name gets none
 * (Spring AI has no definition to name it by).
 *
 * <p>Nothing a model sends makes it throw. Thread-safe if the delegate is.
 */
public final class ToolYardToolCallingManager implements ToolCallingManager {
    private static final DefaultToolCallingObservationConvention CONVENTION = new DefaultToolCallingObservationConvention();

    private final ToolYardToolCallbacks tools;
    private final ToolCallingManager delegate;
    private final ObservationRegistry observations;

    /**
     * @param tools the ToolYard tools this manager runs; never {@code null}
     * @param delegate the manager for every other tool; never {@code null}
     * @param observations where the {@code execute_tool} observations go; never {@code null}
     *     ({@link ObservationRegistry#NOOP} for none)
     */
    public ToolYardToolCallingManager(ToolYardToolCallbacks tools, ToolCallingManager delegate,
            ObservationRegistry observations) {
        this.tools = Objects.requireNonNull(tools, "tools");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.observations = Objects.requireNonNull(observations, "observations");
    }

    /**
     * @param tools the ToolYard tools; never {@code null}
     * @return a manager delegating to Spring AI's default manager, without observations
     */
    public static ToolYardToolCallingManager of(ToolYardToolCallbacks tools) {
        return new ToolYardToolCallingManager(tools, ToolCallingManager.builder().build(), ObservationRegistry.NOOP);
    }

    @Override
    public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
        return delegate.resolveToolDefinitions(chatOptions);
    }

    @Override
    public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(chatResponse, "chatResponse");
        AssistantMessage assistant = null;
        for (Generation g : chatResponse.getResults()) {
            if (g != null && g.getOutput() != null && g.getOutput().hasToolCalls()) {
                assistant = g.getOutput();
                break;
            }
        }
        if (assistant == null) {
            return delegate.executeToolCalls(prompt, chatResponse); // Spring AI's answer to a response with no call
        }
        List<ToolCallback> callbacks = List.of();
        Map<String, Object> contextMap = new HashMap<>();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
            if (options.getToolCallbacks() != null) {
                callbacks = options.getToolCallbacks();
            }
            if (options.getToolContext() != null) {
                contextMap.putAll(options.getToolContext());
            }
        }
        Map<String, ToolCallback> byName = new HashMap<>();
        Set<String> attached = new LinkedHashSet<>();
        for (ToolCallback c : callbacks) {
            String name = c.getToolDefinition().name();
            byName.putIfAbsent(name, c);
            if (tools.owns(c)) {
                attached.add(name);
            }
        }
        ToolContext toolContext = new ToolContext(contextMap);

        List<AssistantMessage.ToolCall> calls = assistant.getToolCalls();
        ToolResponseMessage.ToolResponse[] responses = new ToolResponseMessage.ToolResponse[calls.size()];
        List<Integer> theirs = new ArrayList<>();
        List<Integer> ours = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            AssistantMessage.ToolCall call = calls.get(i);
            ToolCallback callback = call.name() == null ? null : byName.get(call.name());
            if (callback != null && !tools.owns(callback)) {
                theirs.add(i);
            } else {
                ours.add(i);
            }
        }
        // One model turn is one round: the executor's maxCallsPerRound caps ToolYard's calls of the turn.
        List<dev.toolyard.ToolCallRequest> requests = new ArrayList<>(ours.size());
        Observed[] spans = new Observed[ours.size()];
        for (int k = 0; k < ours.size(); k++) {
            AssistantMessage.ToolCall call = calls.get(ours.get(k));
            requests.add(ToolYardToolCallbacks.request(call.name(), call.id(), call.arguments()));
            ToolCallback callback = call.name() == null ? null : byName.get(call.name());
            spans[k] = callback == null ? null : started(callback, call);
        }
        List<String> texts = List.of();
        try {
            texts = requests.isEmpty() ? List.of() : tools.round(requests, toolContext, attached);
        } finally {
            for (int k = 0; k < ours.size(); k++) {
                AssistantMessage.ToolCall call = calls.get(ours.get(k));
                String text = k < texts.size() ? texts.get(k) : ToolYardToolCallbacks.NOT_COMPLETED;
                if (spans[k] != null) {
                    spans[k].stop(text);
                }
                responses[ours.get(k)] = new ToolResponseMessage.ToolResponse(call.id(),
                        call.name() == null ? "" : call.name(), text);
            }
        }
        boolean returnDirect = false;
        if (!theirs.isEmpty()) {
            List<AssistantMessage.ToolCall> subset = new ArrayList<>();
            for (int i : theirs) {
                subset.add(calls.get(i));
            }
            AssistantMessage part = AssistantMessage.builder().content(assistant.getText())
                    .properties(assistant.getMetadata()).toolCalls(subset).build();
            ToolExecutionResult delegated = delegate.executeToolCalls(prompt,
                    ChatResponse.builder().from(chatResponse).generations(List.of(new Generation(part))).build());
            List<Message> history = delegated.conversationHistory();
            List<ToolResponseMessage.ToolResponse> answered = history.get(history.size() - 1)
                    instanceof ToolResponseMessage m ? m.getResponses() : List.of();
            for (int k = 0; k < theirs.size(); k++) {
                AssistantMessage.ToolCall call = calls.get(theirs.get(k));
                responses[theirs.get(k)] = k < answered.size() ? answered.get(k)
                        : new ToolResponseMessage.ToolResponse(call.id(), call.name(), "");
            }
            returnDirect = delegated.returnDirect() && theirs.size() == calls.size();
        }
        List<Message> history = new ArrayList<>(prompt.getInstructions());
        history.add(assistant);
        history.add(ToolResponseMessage.builder().responses(List.of(responses)).build());
        return ToolExecutionResult.builder().conversationHistory(history).returnDirect(returnDirect).build();
    }

    /**
     * The parent Spring AI's own manager gives its tool observation: the one a streaming call carries in
     * its Reactor context, else the one in scope on this thread.
     */
    private Observation parent() {
        return ToolCallReactiveContextHolder.getContext()
                .getOrDefault(ObservationThreadLocalAccessor.KEY, observations.getCurrentObservation());
    }

    /** The {@code execute_tool} observation of one call, open while its round runs. */
    private record Observed(Observation observation, ToolCallingObservationContext context) {
        void stop(String text) {
            context.setToolCallResult(text);
            observation.stop();
        }
    }

    private Observed started(ToolCallback callback, AssistantMessage.ToolCall call) {
        String arguments = call.arguments() == null || call.arguments().isBlank() ? "{}" : call.arguments();
        ToolCallingObservationContext context = ToolCallingObservationContext.builder()
                .toolDefinition(callback.getToolDefinition())
                .toolMetadata(callback.getToolMetadata())
                .toolCallId(call.id())
                .toolType(call.type())
                .toolCallArguments(arguments)
                .build();
        Observation observation = ToolCallingObservationDocumentation.TOOL_CALL
                .observation(null, CONVENTION, () -> context, observations)
                .parentObservation(parent())
                .start();
        return new Observed(observation, context);
    }
}
