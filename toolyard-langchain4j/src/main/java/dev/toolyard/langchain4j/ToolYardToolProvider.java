package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.observability.api.listener.AiServiceCompletedListener;
import dev.langchain4j.observability.api.listener.AiServiceErrorListener;
import dev.langchain4j.observability.api.listener.AiServiceRequestIssuedListener;
import dev.langchain4j.observability.api.listener.AiServiceResponseReceivedListener;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.toolyard.StreamedRound;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

/**
 * Runs every tool call of a LangChain4j AI service through a ToolYard {@link ToolExecutor}, one model
 * turn as one {@link ToolExecutor#executeRound round}. {@link #configure(AiServices)} is the one way to
 * wire it: it offers the registry's tools as {@link ToolSpecification}s, answers unknown names through
 * LangChain4j's hallucinated-name strategy, and listens for each model response, so that every call of
 * a turn, unknown names included, is answered from that turn's one round. Past the executor's
 * {@code maxCallsPerRound}, calls are refused {@code round_limit}, in the model's order, recorded, and
 * the model is told; sequentially or with {@code executeToolsConcurrently()}, with a {@code TokenStream}
 * too. A streamed turn whose calls LangChain4j starts before the response is complete is counted as its
 * calls arrive: the first {@code maxCallsPerRound} to arrive run. Each call is recorded
 * with LangChain4j's id as the record's {@code requestCallId}. This class is deliberately not a
 * LangChain4j {@code ToolProvider}: a provider alone never sees an unknown name or the turn, so
 * {@code .toolProvider(...)} would leave both out.
 *
 * <p>A known name gets a {@link ToolExecutionResult}: the {@link ToolResult}'s content as the text,
 * {@code isError} for anything but OK, the {@code ToolResult} as {@code result()}, and the status, reason
 * and call id in the attributes (which LangChain4j never sends to the model). LangChain4j 1.19.0 keeps
 * only the text of an unknown name's answer.
 *
 * <p>Nothing LangChain4j hands it makes it throw: a {@code null} request, {@code null} or blank
 * arguments (run as {@code {}}, then checked against the schema), any name or size. A failure on the
 * application's side (the context function throws or returns {@code null}, the store cannot record,
 * the executor is closed) is answered with {@link #NOT_COMPLETED}, with {@code isError}, the exception
 * in {@link ToolExecutionResult#result()} and its class in the attributes: LangChain4j's default error
 * handler would otherwise send the exception's message to the model.
 *
 * <p>Immutable after {@link Builder#build()}. Thread-safe: one provider may serve several AI services
 * and LangChain4j may run tools concurrently.
 */
public final class ToolYardToolProvider {
    /** What the model is told when the application, not the model, kept a call from completing. */
    public static final String NOT_COMPLETED = "The tool call could not be completed.";
    /** Attribute: the call's {@link dev.toolyard.ToolStatus} name, or {@code NOT_COMPLETED}. */
    public static final String ATTRIBUTE_STATUS = "toolyard.status";
    /** Attribute: the reason's wire name; absent for OK. */
    public static final String ATTRIBUTE_REASON = "toolyard.reason";
    /** Attribute: the id ToolYard's record of the call has. */
    public static final String ATTRIBUTE_CALL_ID = "toolyard.callId";
    /** Attribute: the class of the application-side exception, when the call was not completed. */
    public static final String ATTRIBUTE_ERROR = "toolyard.error";

    private final ToolExecutor executor;
    private final Function<InvocationContext, ToolContext> contexts;
    private final List<ToolSpecification> specifications;
    /** One for every tool: it runs the request it is handed, whatever its name. */
    private final ToolYardToolExecutor toolExecutor = new ToolYardToolExecutor(this);
    private final ToolProvider provider = new Offered();
    private final Turns turns = new Turns(spec -> new Turn(spec, this::round, this::carry),
            this::openRound);

    private ToolYardToolProvider(Builder b, List<ToolSpecification> specifications) {
        this.executor = b.executor;
        this.contexts = b.contexts;
        this.specifications = List.copyOf(specifications);
    }

    /**
     * @param registry the tools to offer; never {@code null}
     * @param executor the executor every call goes through; never {@code null}
     * @param contexts the ToolYard context of each turn, from the AI service's invocation; never
     *     {@code null}. It is always given a non-null {@link InvocationContext} whose
     *     {@link InvocationContext#invocationId()} is non-null (a fresh one where LangChain4j gave
     *     none); it is called once per model turn (once per call where no turn is known, as on the
     *     low-level path) and should be cheap.
     * @return a builder offering every registered tool unless {@link Builder#tools} narrows it
     */
    public static Builder builder(ToolRegistry registry, ToolExecutor executor,
            Function<InvocationContext, ToolContext> contexts) {
        return new Builder(registry, executor, contexts);
    }

    /**
     * Wires this provider into an AI service: {@code toolProvider} (ToolYard's tools),
     * {@code hallucinatedToolNameStrategy} (unknown names through ToolYard) and four listeners (each model
     * request starts a turn, each response makes it one round; the round is forgotten when the invocation
     * ends). Setting
     * {@code hallucinatedToolNameStrategy} afterwards replaces ToolYard's, and an unknown name then
     * throws out of the AI service. Your own {@code beforeToolExecution}, {@code afterToolExecution},
     * listeners and {@code executeToolsConcurrently} are yours to set, before or after.
     *
     * @param services the AI service builder; never {@code null}
     * @param <T> the AI service type
     * @return the same builder
     */
    public <T> AiServices<T> configure(AiServices<T> services) {
        Objects.requireNonNull(services, "services");
        return services.toolProvider(provider)
                .hallucinatedToolNameStrategy(this::unknownName)
                .registerListener((AiServiceRequestIssuedListener) e -> turns.requested(e.invocationContext()))
                .registerListener((AiServiceResponseReceivedListener) e -> turns.responded(e.invocationContext(),
                        e.response()))
                .registerListener((AiServiceCompletedListener) e -> turns.ended(e.invocationContext()))
                .registerListener((AiServiceErrorListener) e -> turns.ended(e.invocationContext()));
    }

    /** @return the specifications offered to the model, sorted by name; unmodifiable */
    public List<ToolSpecification> toolSpecifications() {
        return specifications;
    }

    /** @return the LangChain4j tool provider {@link #configure} installs; for tests */
    ToolProvider toolProvider() {
        return provider;
    }

    /** @return how many turns are kept between a response and its last answer; for tests */
    int keptTurns() {
        return turns.kept();
    }

    /** The hallucinated-name strategy: the unknown name is answered from its turn, like its siblings. */
    ToolExecutionResultMessage unknownName(ToolExecutionRequest request) {
        ToolExecutionResult result = answer(request, null, true);
        return ToolExecutionResultMessage.builder()
                .id(request == null ? null : request.id())
                .toolName(request == null ? null : request.name())
                .text(result.resultText())
                .isError(result.isError())
                .attributes(result.attributes())
                .build();
    }

    /**
     * Answers one call: from its turn's round when a model response announced it, in its streamed turn's
     * round when LangChain4j started it before the response was complete, else as a call of its own (the
     * low-level path). Never throws.
     *
     * @param request the call as LangChain4j received it; may be {@code null}
     * @param invocation the AI service invocation; may be {@code null}
     * @return the result for the model; never {@code null}
     */
    ToolExecutionResult execute(ToolExecutionRequest request, InvocationContext invocation) {
        return answer(request, invocation, false);
    }

    private ToolExecutionResult answer(ToolExecutionRequest request, InvocationContext invocation,
            boolean unknownName) {
        Turns.Claim claim = turns.claim(request, invocation, unknownName);
        if (claim != null && claim.place() != null) {
            return claim.place().answer();
        }
        try {
            if (claim != null) {
                return toExecutionResult(claim.streamed().round().execute(toCall(request)));
            }
            return toExecutionResult(executor.execute(toCall(request), context(invocation)));
        } catch (RuntimeException e) {
            return notCompleted(e);
        }
    }

    /** Runs a turn as one round: one result per call, in order. Never throws. */
    private List<ToolExecutionResult> round(Turn.Spec spec) {
        List<ToolCallRequest> calls = new ArrayList<>(spec.requests().size());
        for (ToolExecutionRequest r : spec.requests()) {
            calls.add(toCall(r));
        }
        List<ToolExecutionResult> answers = new ArrayList<>(calls.size());
        try {
            for (ToolResult result : executor.executeRound(calls, context(spec.invocation()))) {
                answers.add(toExecutionResult(result));
            }
        } catch (RuntimeException e) {
            answers.clear();
            ToolExecutionResult failed = notCompleted(e);
            for (int i = 0; i < calls.size(); i++) {
                answers.add(failed);
            }
        }
        return answers;
    }

    /** A streamed turn's round, with the ToolYard context of its invocation. */
    private StreamedRound openRound(InvocationContext invocation) {
        return executor.openRound(context(invocation));
    }

    /** On the invoking thread: what the executor's observers read there goes to the round's thread. */
    private Runnable carry(Runnable round) {
        try {
            return executor.carry(round);
        } catch (RuntimeException e) {
            return round;
        }
    }

    private ToolContext context(InvocationContext invocation) {
        ToolContext context = contexts.apply(withId(invocation));
        if (context == null) {
            throw new IllegalStateException("the context function returned null");
        }
        return context;
    }

    private static ToolCallRequest toCall(ToolExecutionRequest request) {
        String name = request == null || request.name() == null ? "" : request.name();
        String arguments = request == null || request.arguments() == null || request.arguments().isBlank()
                ? "{}" : request.arguments();
        return ToolCallRequest.of(name, arguments).withCallId(request == null ? null : request.id());
    }

    private static ToolExecutionResult toExecutionResult(ToolResult result) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put(ATTRIBUTE_STATUS, result.status().name());
        result.reason().ifPresent(r -> attributes.put(ATTRIBUTE_REASON, r.wireName()));
        attributes.put(ATTRIBUTE_CALL_ID, result.callId());
        return ToolExecutionResult.builder()
                .isError(!result.isOk())
                .resultText(result.content())
                .result(result)
                .attributes(attributes)
                .build();
    }

    private static ToolExecutionResult notCompleted(RuntimeException e) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put(ATTRIBUTE_STATUS, "NOT_COMPLETED");
        attributes.put(ATTRIBUTE_ERROR, e.getClass().getName());
        return ToolExecutionResult.builder().isError(true).resultText(NOT_COMPLETED).result(e)
                .attributes(attributes).build();
    }

    /** The LangChain4j tool provider {@link #configure} installs: every specification, one executor. */
    private final class Offered implements ToolProvider {
        @Override
        public ToolProviderResult provideTools(ToolProviderRequest request) {
            ToolProviderResult.Builder result = ToolProviderResult.builder();
            for (ToolSpecification spec : specifications) {
                result.add(spec, toolExecutor);
            }
            return result.build();
        }
    }

    private static InvocationContext withId(InvocationContext invocation) {
        if (invocation == null) {
            return InvocationContext.builder().invocationId(UUID.randomUUID()).timestampNow().build();
        }
        if (invocation.invocationId() == null) {
            return invocation.toBuilder().invocationId(UUID.randomUUID()).build();
        }
        return invocation;
    }

    /** Builds a {@link ToolYardToolProvider}. Not thread-safe. */
    public static final class Builder {
        private final ToolRegistry registry;
        private final ToolExecutor executor;
        private final Function<InvocationContext, ToolContext> contexts;
        private Set<String> names;

        private Builder(ToolRegistry registry, ToolExecutor executor, Function<InvocationContext, ToolContext> contexts) {
            this.registry = Objects.requireNonNull(registry, "registry");
            this.executor = Objects.requireNonNull(executor, "executor");
            this.contexts = Objects.requireNonNull(contexts, "contexts");
        }

        /**
         * Offers only these tools to the model (the executor's allowlist still decides what runs).
         * Default: every tool registered when {@link #build()} runs.
         *
         * @param first a registered tool name
         * @param more more registered tool names
         * @return this builder
         */
        public Builder tools(String first, String... more) {
            Set<String> chosen = new TreeSet<>();
            chosen.add(Objects.requireNonNull(first, "first"));
            for (String n : more) {
                chosen.add(Objects.requireNonNull(n, "tool name"));
            }
            this.names = chosen;
            return this;
        }

        /**
         * @return the provider
         * @throws IllegalArgumentException if a name given to {@link #tools} is not registered, or a
         *     tool's schema cannot be expressed as a LangChain4j {@link ToolSpecification}
         */
        public ToolYardToolProvider build() {
            List<String> chosen = new ArrayList<>(names == null ? registry.names() : names);
            List<ToolSpecification> specs = new ArrayList<>();
            for (String name : chosen) {
                if (registry.lookup(name).isEmpty()) {
                    throw new IllegalArgumentException("tools names '" + name + "', which is not registered");
                }
                specs.add(WireSpecifications.toSpecification(registry, name));
            }
            return new ToolYardToolProvider(this, specs);
        }
    }
}
