package dev.toolyard.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.BeforeToolExecution;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
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
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs every tool call of a LangChain4j AI service through a ToolYard {@link ToolExecutor}. It offers
 * the registry's tools as {@link ToolSpecification}s, each with a LangChain4j tool executor that hands
 * the request's name, id (recorded as the record's {@code requestCallId}) and raw arguments to
 * {@link ToolExecutor#execute} and returns the
 * {@link ToolResult} as a {@link ToolExecutionResult}: its content as the text, {@code isError} for
 * anything but OK, and the status, reason and call id in the attributes (which LangChain4j never
 * sends to the model). Its {@linkplain #hallucinatedToolNameStrategy() hallucinated-name strategy}
 * sends unknown names through the executor too, so they are recorded as {@code unknown_tool} and
 * answered instead of thrown. {@link #configure(AiServices)} wires all of it.
 *
 * <p>Nothing LangChain4j hands it makes it throw: a {@code null} request, {@code null} or blank
 * arguments (run as {@code {}}, then checked against the schema), any name or size. A failure on the
 * application's side (the context function throws or returns {@code null}, the store cannot record)
 * is answered with {@link #NOT_COMPLETED}, with {@code isError}, and the exception in
 * {@link ToolExecutionResult#result()} and its class in the attributes: LangChain4j's default error
 * handler would otherwise send the exception's message to the model.
 *
 * <p>Immutable after {@link Builder#build()}. Thread-safe: LangChain4j may run tools concurrently.
 */
public final class ToolYardToolProvider implements ToolProvider {
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
    /** The invocation of the call LangChain4j is about to run on this thread, for the hallucination strategy. */
    private final ThreadLocal<BeforeToolExecution> pending = new ThreadLocal<>();

    private ToolYardToolProvider(Builder b, List<ToolSpecification> specifications) {
        this.executor = b.executor;
        this.contexts = b.contexts;
        this.specifications = List.copyOf(specifications);
    }

    /**
     * @param registry the tools to offer; never {@code null}
     * @param executor the executor every call goes through; never {@code null}
     * @param contexts the ToolYard context of each call, from the AI service's invocation; never
     *     {@code null}. It is always given a non-null {@link InvocationContext} whose
     *     {@link InvocationContext#invocationId()} is non-null (a fresh one where LangChain4j gave
     *     none); it is called once per tool call and should be cheap.
     * @return a builder offering every registered tool unless {@link Builder#tools} narrows it
     */
    public static Builder builder(ToolRegistry registry, ToolExecutor executor,
            Function<InvocationContext, ToolContext> contexts) {
        return new Builder(registry, executor, contexts);
    }

    /**
     * Wires this provider into an AI service: {@code toolProvider}, {@code hallucinatedToolNameStrategy}
     * and {@code beforeToolExecution} (which this provider needs to record an unknown name under its
     * invocation; chain your own hook through {@link #beforeToolExecution(Consumer)} instead of
     * setting it afterwards).
     *
     * @param services the AI service builder; never {@code null}
     * @param <T> the AI service type
     * @return the same builder
     */
    public <T> AiServices<T> configure(AiServices<T> services) {
        Objects.requireNonNull(services, "services");
        return services.toolProvider(this)
                .hallucinatedToolNameStrategy(hallucinatedToolNameStrategy())
                .beforeToolExecution(beforeToolExecution());
    }

    /** @return the specifications offered to the model, sorted by name; unmodifiable */
    public List<ToolSpecification> toolSpecifications() {
        return specifications;
    }

    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        ToolProviderResult.Builder result = ToolProviderResult.builder();
        for (ToolSpecification spec : specifications) {
            result.add(spec, toolExecutor);
        }
        return result.build();
    }

    /**
     * @return a strategy for {@code AiServices.hallucinatedToolNameStrategy} that runs the unknown
     *     name through the executor (recorded as {@code unknown_tool}) and answers the model with
     *     ToolYard's refusal text. LangChain4j 1.19.0 keeps only that text: the model does not see
     *     {@code isError} for an unknown name, and the attributes are dropped.
     */
    public Function<ToolExecutionRequest, ToolExecutionResultMessage> hallucinatedToolNameStrategy() {
        return request -> {
            BeforeToolExecution before = pending.get();
            pending.remove();
            InvocationContext invocation = before != null && before.request() == request
                    ? before.invocationContext() : null;
            ToolExecutionResult result = execute(request, invocation);
            return ToolExecutionResultMessage.builder()
                    .id(request == null ? null : request.id())
                    .toolName(request == null ? null : request.name())
                    .text(result.resultText())
                    .isError(result.isError())
                    .attributes(result.attributes())
                    .build();
        };
    }

    /**
     * @return a hook for {@code AiServices.beforeToolExecution} that remembers, on the calling thread,
     *     the invocation of the call about to run, so an unknown name is recorded under its
     *     invocation rather than a fresh one
     */
    public Consumer<BeforeToolExecution> beforeToolExecution() {
        return pending::set;
    }

    /**
     * @param then the application's own hook, run after this provider's; never {@code null}
     * @return a hook doing both
     */
    public Consumer<BeforeToolExecution> beforeToolExecution(Consumer<BeforeToolExecution> then) {
        Objects.requireNonNull(then, "then");
        return beforeToolExecution().andThen(then);
    }

    /**
     * Runs one call through the executor. Never throws.
     *
     * @param request the call as LangChain4j received it; may be {@code null}
     * @param invocation the AI service invocation; may be {@code null}
     * @return the result for the model; never {@code null}
     */
    ToolExecutionResult execute(ToolExecutionRequest request, InvocationContext invocation) {
        pending.remove(); // the call it was kept for is this one, or one that never reached the strategy
        String name = request == null || request.name() == null ? "" : request.name();
        String arguments = request == null || request.arguments() == null || request.arguments().isBlank()
                ? "{}" : request.arguments();
        ToolResult result;
        try {
            ToolContext context = contexts.apply(withId(invocation));
            if (context == null) {
                throw new IllegalStateException("the context function returned null");
            }
            result = executor.execute(ToolCallRequest.of(name, arguments)
                    .withCallId(request == null ? null : request.id()), context);
        } catch (RuntimeException e) {
            Map<String, Object> attributes = new LinkedHashMap<>();
            attributes.put(ATTRIBUTE_STATUS, "NOT_COMPLETED");
            attributes.put(ATTRIBUTE_ERROR, e.getClass().getName());
            return ToolExecutionResult.builder().isError(true).resultText(NOT_COMPLETED).result(e)
                    .attributes(attributes).build();
        }
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
