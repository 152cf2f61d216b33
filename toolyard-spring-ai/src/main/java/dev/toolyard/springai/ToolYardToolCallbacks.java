package dev.toolyard.springai;

import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The registry's tools as Spring AI {@link ToolCallback}s, each running its calls through a ToolYard
 * {@link ToolExecutor} and answering with the {@link ToolResult}'s content: the output for OK, and
 * ToolYard's refusal or failure text otherwise (Spring AI's callback returns only a string, so the
 * model reads the status from the text). Attach them with {@code ChatClient.prompt().tools(this)}; use
 * {@link ToolYardToolCallingManager} as well so that call ids and unknown names reach ToolYard.
 *
 * <p>Nothing Spring AI or the model hands a callback makes it throw: {@code null} or blank arguments
 * (run as {@code {}}, as Spring AI's own manager does, then checked against the schema), any size, a
 * {@code null} tool context. A failure on the application's side (the resolver throws or returns
 * {@code null}, the store cannot record) is answered with {@link #NOT_COMPLETED}, never with the
 * exception's message.
 *
 * <p>Immutable after {@link Builder#build()}. Thread-safe.
 */
public final class ToolYardToolCallbacks implements ToolCallbackProvider {
    /** What the model is told when the application, not the model, kept a call from completing. */
    public static final String NOT_COMPLETED = "The tool call could not be completed.";

    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private final ToolExecutor executor;
    private final ToolContextResolver resolver;
    private final List<ToolYardToolCallback> callbacks;
    private final Set<String> names;
    private final ApplicationFailures failures = new ApplicationFailures();

    private ToolYardToolCallbacks(Builder b, List<String> chosen) {
        this.executor = b.executor;
        this.resolver = b.resolver;
        List<ToolYardToolCallback> list = new ArrayList<>();
        JsonNode definitions = MAPPER.readTree(b.registry.wireDefinitions(chosen));
        for (JsonNode definition : definitions) {
            JsonNode parameters = definition.get("parameters");
            if (parameters instanceof ObjectNode root) {
                root.remove(List.of("$schema", "$id")); // never present in a valid ToolSpec; a provider may choke on them
            }
            list.add(new ToolYardToolCallback(this, definition.get("name").stringValue(),
                    definition.get("description").stringValue(), MAPPER.writeValueAsString(parameters)));
        }
        this.callbacks = List.copyOf(list);
        this.names = Set.copyOf(chosen);
    }

    /**
     * @param registry the tools to offer; never {@code null}
     * @param executor the executor every call goes through; never {@code null}
     * @param resolver the ToolYard context of each call; never {@code null}
     * @return a builder offering every registered tool unless {@link Builder#tools} narrows it
     */
    public static Builder builder(ToolRegistry registry, ToolExecutor executor, ToolContextResolver resolver) {
        return new Builder(registry, executor, resolver);
    }

    /** @return the callbacks, sorted by name; a new array each time */
    @Override
    public ToolCallback[] getToolCallbacks() {
        return callbacks.toArray(new ToolCallback[0]);
    }

    /** @return the names of the tools offered, unmodifiable */
    public Set<String> toolNames() {
        return names;
    }

    boolean owns(ToolCallback callback) {
        return callback instanceof ToolYardToolCallback own && own.owner() == this;
    }

    /**
     * Runs one call. Never throws.
     *
     * @param name the tool name the model sent; may be {@code null}
     * @param callId the model's id of the call; may be {@code null}
     * @param arguments the raw arguments; may be {@code null}
     * @param toolContext the request's Spring AI tool context; may be {@code null}
     * @param narrowTo tool names the call is limited to (the ToolYard tools attached to the request), or
     *     {@code null} for no narrowing beyond the resolver's context
     * @return the text for the model; never {@code null}
     */
    String call(String name, String callId, String arguments, org.springframework.ai.chat.model.ToolContext toolContext,
            Set<String> narrowTo) {
        return round(List.of(request(name, callId, arguments)), toolContext, narrowTo).get(0);
    }

    /**
     * Runs one model turn's ToolYard calls as one round of {@link ToolExecutor#executeRound}: the
     * executor's {@code maxCallsPerRound} applies to them, the rest are refused {@code round_limit}. The
     * resolver is asked once for the whole turn. Never throws.
     *
     * @param requests the turn's calls, in the model's order; never {@code null}
     * @param toolContext the request's Spring AI tool context; may be {@code null}
     * @param narrowTo as for {@link #call}
     * @return one text per request, in request order; never {@code null}
     */
    List<String> round(List<ToolCallRequest> requests, org.springframework.ai.chat.model.ToolContext toolContext,
            Set<String> narrowTo) {
        List<String> texts = new ArrayList<>(requests.size());
        try {
            ToolContext context = resolver.resolve(toolContext == null
                    ? new org.springframework.ai.chat.model.ToolContext(Map.of()) : toolContext);
            if (context == null) {
                failures.resolverReturnedNull();
                return notCompleted(requests.size());
            }
            if (narrowTo != null) {
                context = narrowed(context, narrowTo);
            }
            for (ToolResult result : executor.executeRound(requests, context)) {
                texts.add(result.content());
            }
            return texts;
        } catch (RuntimeException e) {
            failures.failed(e);
            return notCompleted(requests.size());
        }
    }

    /** @return the request the model sent, {@code null} or blank arguments as {@code {}} */
    static ToolCallRequest request(String name, String callId, String arguments) {
        String json = arguments == null || arguments.isBlank() ? "{}" : arguments;
        return ToolCallRequest.of(name == null ? "" : name, json).withCallId(callId);
    }

    private static List<String> notCompleted(int count) {
        return java.util.Collections.nCopies(count, NOT_COMPLETED);
    }

    private static ToolContext narrowed(ToolContext context, Set<String> narrowTo) {
        Set<String> approved = new HashSet<>(narrowTo);
        context.approvedTools().ifPresent(approved::retainAll);
        // Everything the resolver set carries over (budgets and agent included), only the approved set narrows.
        ToolContext.Builder narrowed = ToolContext.builder(context.invocationId(), context.workspace())
                .timeout(context.timeout())
                .egressCeiling(context.egressCeiling())
                .clock(context.clock())
                .approvedTools(approved);
        context.callBudget().ifPresent(narrowed::callBudget);
        context.timeBudget().ifPresent(narrowed::timeBudget);
        context.agent().ifPresent(narrowed::agent);
        return narrowed.build();
    }

    /** Builds {@link ToolYardToolCallbacks}. Not thread-safe. */
    public static final class Builder {
        private final ToolRegistry registry;
        private final ToolExecutor executor;
        private final ToolContextResolver resolver;
        private Set<String> names;

        private Builder(ToolRegistry registry, ToolExecutor executor, ToolContextResolver resolver) {
            this.registry = Objects.requireNonNull(registry, "registry");
            this.executor = Objects.requireNonNull(executor, "executor");
            this.resolver = Objects.requireNonNull(resolver, "resolver");
        }

        /**
         * Offers only these tools to the model (the executor's allowlist still decides what runs).
         * Default: every tool registered when {@link #build()} runs.
         *
         * @param names registered tool names; never {@code null}; may be empty (offer nothing)
         * @return this builder
         */
        public Builder tools(Collection<String> names) {
            Set<String> chosen = new TreeSet<>();
            for (String n : Objects.requireNonNull(names, "names")) {
                chosen.add(Objects.requireNonNull(n, "tool name"));
            }
            this.names = chosen;
            return this;
        }

        /**
         * @return the callbacks
         * @throws IllegalArgumentException if a name given to {@link #tools} is not registered
         */
        public ToolYardToolCallbacks build() {
            List<String> chosen = new ArrayList<>(names == null ? registry.names() : names);
            for (String name : chosen) {
                if (registry.lookup(name).isEmpty()) {
                    throw new IllegalArgumentException("tools names '" + name + "', which is not registered");
                }
            }
            return new ToolYardToolCallbacks(this, chosen);
        }
    }
}
