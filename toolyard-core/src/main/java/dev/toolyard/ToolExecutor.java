package dev.toolyard;

import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.FailFastAssertionException;
import com.networknt.schema.path.NodePath;
import dev.toolyard.internal.Deadlines;
import dev.toolyard.internal.Json;
import dev.toolyard.internal.JsonValues;
import dev.toolyard.internal.Text;
import dev.toolyard.spi.IsolatedRunner;
import dev.toolyard.spi.PathPolicy;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs every tool call a model asks for, and records it. {@link #execute} walks a fixed sequence of
 * checks: registry, allowlist (not allowlisted, then not approved), schema, egress, containment
 * (isolation, then paths). The first check that fails names the reason; only a call that passes all
 * of them reaches its handler, with its path arguments resolved. The handler runs under a mandatory
 * deadline (see {@link HandlerMode}); its output is capped; its exceptions become
 * {@code handler_error}. Every call is recorded, refusals included.
 *
 * <p>Nothing a model sends makes {@code execute} throw. It throws only {@link StoreFailureException},
 * when the store cannot record, and {@link NullPointerException} for {@code null} arguments.
 *
 * <p>Thread-safe; the hot path takes no lock of its own. Defaults: content cap 65,536 UTF-8 bytes,
 * summary cap 4,096 bytes, arguments up to 1 MiB, {@link HandlerMode#HANDOFF}.
 */
public final class ToolExecutor {
    /** Default cap on the content a model sees, in UTF-8 bytes, truncation label included. */
    public static final int DEFAULT_MAX_CONTENT_BYTES = 65_536;
    /** Default cap on the summary a record keeps, in UTF-8 bytes. */
    public static final int DEFAULT_MAX_SUMMARY_BYTES = 4_096;
    /** Default cap on the arguments accepted, in UTF-8 bytes. */
    public static final int DEFAULT_MAX_ARGUMENT_BYTES = 1 << 20;
    /** Arguments above this size are kept in records as their size and digest only. */
    public static final int RECORD_ARGUMENT_BYTES = 16_384;
    /** The floor of any configured cap, so the truncation label always fits. */
    public static final int MIN_CAP_BYTES = 256;

    private static final int MAX_NAME_CHARS = 128;
    private static final int MAX_DETAIL_CHARS = 1024;
    private static final ExecutionConfig VALIDATION = ExecutionConfig.builder()
            .formatAssertionsEnabled(false)
            .failFast(true) // the first violation is the reason; collecting the rest is work a refusal does not need

            .maxEvaluationDepth(Json.MAX_DEPTH * 2)
            .maxEvaluationSteps(2_000_000)
            .build();

    /** The checks, in the order they run. Loading fails if the positions are not exactly 0..n-1. */
    enum Rung {
        REGISTRY(0),
        ALLOWLIST(1),
        SCHEMA(2),
        EGRESS(3),
        CONTAINMENT(4);

        final int position;

        Rung(int position) {
            this.position = position;
        }
    }

    private static final Rung[] SEQUENCE = sequence(Rung.values());

    private static Rung[] sequence(Rung[] declared) {
        int[] positions = new int[declared.length];
        for (int i = 0; i < declared.length; i++) {
            positions[i] = declared[i].position;
        }
        int[] order = order(positions);
        Rung[] ordered = new Rung[declared.length];
        for (int i = 0; i < order.length; i++) {
            ordered[i] = declared[order[i]];
        }
        return ordered;
    }

    /**
     * @param positions the declared position of each check
     * @return the index of the check at each position
     * @throws IllegalStateException unless the positions are exactly 0..n-1, which fails class loading
     */
    static int[] order(int[] positions) {
        int[] order = new int[positions.length];
        java.util.Arrays.fill(order, -1);
        for (int i = 0; i < positions.length; i++) {
            int p = positions[i];
            if (p < 0 || p >= positions.length || order[p] != -1) {
                throw new IllegalStateException("refusal sequence positions must be exactly 0.."
                        + (positions.length - 1) + ", got " + java.util.Arrays.toString(positions));
            }
            order[p] = i;
        }
        return order;
    }

    private static final System.Logger LOG = System.getLogger(ToolExecutor.class.getName());

    private final ToolRegistry registry;
    private final PathPolicy sandbox;
    private final IsolationTier hostTier;
    private final ToolCallObserver[] observers;
    private final Set<String> allowlist;
    private final ToolCallStore store;
    private final int maxContentBytes;
    private final int maxSummaryBytes;
    private final int maxArgumentBytes;
    private final HandlerMode mode;
    private final ExecutorService workers;

    private ToolExecutor(Builder b) {
        this.registry = b.registry;
        this.sandbox = b.sandbox;
        this.hostTier = b.sandbox instanceof IsolatedRunner runner ? runner.isolationTier() : IsolationTier.UNAVAILABLE;
        this.observers = b.observers.toArray(new ToolCallObserver[0]);
        this.allowlist = Set.copyOf(b.allowlist);
        this.store = b.store;
        this.maxContentBytes = b.maxContentBytes;
        this.maxSummaryBytes = b.maxSummaryBytes;
        this.maxArgumentBytes = b.maxArgumentBytes;
        this.mode = b.mode;
        this.workers = mode == HandlerMode.HANDOFF ? Workers.POOL : null;
    }

    /**
     * @param registry the tools; never {@code null}
     * @param sandbox the containment port: a {@link PathContainment}, or a whole
     *     {@link dev.toolyard.spi.Sandbox} such as {@code TieredSandbox}, whose isolation tier then decides
     *     whether tools that require isolation may run (with only a path policy they are refused);
     *     never {@code null}
     * @return a builder; {@link Builder#allowlist} and {@link Builder#store} are required
     */
    public static Builder builder(ToolRegistry registry, PathPolicy sandbox) {
        return new Builder(registry, sandbox);
    }

    /**
     * Runs one call. Never throws for anything the model controls.
     *
     * @param request the call as the model asked for it; never {@code null}
     * @param context the invocation's context; never {@code null}
     * @return how the call ended; never {@code null}
     * @throws StoreFailureException if the store cannot record the call
     */
    public ToolResult execute(ToolCallRequest request, ToolContext context) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(context, "context");
        Call call = new Call(request, context, System.nanoTime());
        for (Rung rung : SEQUENCE) {
            Refusal refusal = check(rung, call);
            if (refusal != null) {
                return refuse(call, refusal);
            }
        }
        return run(call);
    }

    private Refusal check(Rung rung, Call call) {
        switch (rung) {
            case REGISTRY:
                call.tool = registry.get(call.request.name());
                return call.tool == null ? new Refusal(Reason.UNKNOWN_TOOL, "no tool of that name is registered") : null;
            case ALLOWLIST:
                String name = call.tool.spec().name();
                if (!allowlist.contains(name)) {
                    return new Refusal(Reason.NOT_ALLOWLISTED, "the tool is not on this application's allowlist");
                }
                Set<String> approved = call.context.approvedTools().orElse(null);
                if (approved != null && !approved.contains(name)) {
                    return new Refusal(Reason.NOT_APPROVED, "the tool is not approved for this invocation");
                }
                return null;
            case SCHEMA:
                return checkArguments(call);
            case EGRESS:
                EgressClass egress = call.tool.spec().egress();
                EgressClass ceiling = call.context.egressCeiling();
                return ceiling.permits(egress) ? null : new Refusal(Reason.EGRESS_NOT_PERMITTED,
                        "the tool's egress class " + egress + " is above this invocation's ceiling " + ceiling);
            case CONTAINMENT:
                return checkContainment(call);
            default:
                throw new AssertionError(rung);
        }
    }

    private Refusal checkArguments(Call call) {
        if (call.notJson != null) {
            return new Refusal(Reason.ARGS_INVALID, call.notJson);
        }
        if (call.argumentBytes > maxArgumentBytes) {
            return new Refusal(Reason.ARGS_INVALID,
                    "arguments are " + call.argumentBytes + " bytes, over the limit of " + maxArgumentBytes);
        }
        if (call.node == null) {
            JsonNode parsed;
            try {
                parsed = Json.MAPPER.readTree(call.argumentsText);
            } catch (JacksonException e) {
                return new Refusal(Reason.ARGS_INVALID, "not valid JSON: " + Text.clip(
                        String.valueOf(e.getOriginalMessage()), 300));
            } catch (RuntimeException | StackOverflowError e) {
                return new Refusal(Reason.ARGS_INVALID, "not valid JSON: " + e.getClass().getSimpleName());
            }
            if (parsed == null || !parsed.isObject()) {
                return new Refusal(Reason.ARGS_INVALID, "arguments must be a JSON object");
            }
            call.node = (ObjectNode) parsed;
        }
        List<Error> errors;
        try {
            // A context of our own: the validator's default one builds a fresh configuration per call.
            ExecutionContext validation = new ExecutionContext(VALIDATION);
            try {
                call.tool.spec().validator().validate(validation, call.node);
            } catch (FailFastAssertionException first) {
                validation.setErrors(first.getErrors());
            }
            if (validation.isEvaluationAborted()) {
                return new Refusal(Reason.ARGS_INVALID, "the arguments are too complex to validate");
            }
            errors = validation.getErrors();
        } catch (RuntimeException | StackOverflowError e) {
            return new Refusal(Reason.ARGS_INVALID, "the arguments are too complex to validate ("
                    + e.getClass().getSimpleName() + ")");
        }
        if (errors.isEmpty()) {
            return null;
        }
        return new Refusal(Reason.ARGS_INVALID, describe(errors.get(0)));
    }

    /**
     * The first violation, from its parts: location, keyword, property and the keyword's own value when
     * it is a plain value. The validator's formatted messages cost more to build than a whole success.
     */
    private static String describe(Error e) {
        StringBuilder b = new StringBuilder(128).append('$');
        NodePath at = e.getInstanceLocation();
        for (int i = 0, n = Math.min(at.getNameCount(), 16); i < n; i++) {
            Object element = at.getElement(i);
            if (element instanceof Integer index) {
                b.append('[').append(index.intValue()).append(']');
            } else {
                b.append('.').append(Text.clip(String.valueOf(element), 64));
            }
        }
        b.append(": fails \"").append(e.getKeyword()).append('"');
        if (e.getProperty() != null) {
            b.append(" for property '").append(Text.clip(e.getProperty(), 64)).append('\'');
        }
        JsonNode expected = e.getSchemaNode();
        if (expected != null && (expected.isString() || expected.isNumber() || expected.isBoolean())) {
            // Rendered by hand: JsonNode.toString() runs a whole serializer.
            b.append(" (");
            if (expected.isString()) {
                b.append('"').append(Text.clip(expected.stringValue(), 80)).append('"');
            } else {
                b.append(expected.isBoolean() ? String.valueOf(expected.booleanValue()) : expected.numberValue());
            }
            b.append(')');
        }
        return b.toString();
    }

    private Refusal checkContainment(Call call) {
        ToolSpec spec = call.tool.spec();
        if (spec.requiresIsolation() && hostTier == IsolationTier.UNAVAILABLE) {
            return new Refusal(Reason.ISOLATION_UNAVAILABLE,
                    "the tool runs commands and this host has no isolation tier (container or bubblewrap)");
        }
        if (spec.pathArgs().isEmpty()) {
            call.paths = Map.of();
            return null;
        }
        Map<String, Path> paths = new HashMap<>();
        for (Map.Entry<String, PathAccess> e : spec.pathArgs().entrySet()) {
            JsonNode value = call.node.get(e.getKey());
            if (value == null || value.isNull()) {
                continue;
            }
            String argument = e.getKey();
            if (!value.isString()) {
                return new Refusal(Reason.PATH_ESCAPE, "argument '" + argument + "' is not a valid path");
            }
            PathDecision decision;
            try {
                decision = e.getValue() == PathAccess.READ
                        ? sandbox.resolveRead(value.stringValue(), call.context.workspace())
                        : sandbox.resolveWrite(value.stringValue(), call.context.workspace());
            } catch (RuntimeException ex) {
                decision = PathDecision.escape("could not be resolved");
            }
            if (!decision.isInside()) {
                return new Refusal(Reason.PATH_ESCAPE, "argument '" + argument + "' " + decision.refusal());
            }
            paths.put(argument, decision.path());
        }
        for (Map.Entry<String, Path> p : paths.entrySet()) {
            call.node.put(p.getKey(), p.getValue().toString());
        }
        call.paths = paths;
        return null;
    }

    private ToolResult refuse(Call call, Refusal refusal) {
        String detail = Text.clip(refusal.detail, MAX_DETAIL_CHARS);
        String content = Text.cap(problemText(call.displayName, refusal.reason, detail), maxContentBytes).text();
        Duration duration = Duration.ofNanos(System.nanoTime() - call.startNanos);
        ToolCallRecord record = new ToolCallRecord(call.callId, call.context.invocationId(), call.displayName,
                ToolStatus.REFUSED, refusal.reason, detail, call.recordedArguments(), call.digest,
                call.redacted(), Text.cap(content, maxSummaryBytes).text(), call.startedAt, duration,
                call.requestCallId);
        try {
            store.append(record);
        } catch (RuntimeException e) {
            endObserved(call, record);
            throw storeFailure("append", e);
        }
        endObserved(call, record);
        return new ToolResult(call.callId, call.displayName, ToolStatus.REFUSED, refusal.reason, detail, content,
                false, duration);
    }

    private ToolResult run(Call call) {
        ToolCallStart start = new ToolCallStart(call.callId, call.context.invocationId(), call.displayName,
                call.recordedArguments(), call.digest, call.redacted(), call.startedAt, call.requestCallId);
        try {
            store.markStarted(start);
        } catch (RuntimeException e) {
            throw storeFailure("mark as started", e);
        }
        if (observers.length > 0) {
            ToolCallEvent event = call.event();
            for (ToolCallObserver o : observers) {
                try {
                    o.onStart(event);
                } catch (Throwable t) {
                    ignore(o, "onStart", t);
                }
            }
        }
        ToolArgs args = new ToolArgs(call.node, call.paths);
        ToolHandler handler = call.tool.handler();
        long limitNanos = call.context.timeout().toNanos();
        Outcome outcome = mode == HandlerMode.HANDOFF
                ? runHandedOff(handler, args, call.context, limitNanos)
                : runOnCaller(handler, args, call.context, limitNanos);
        Duration duration = Duration.ofNanos(System.nanoTime() - call.startNanos);

        ToolStatus status;
        Reason reason;
        String detail;
        String content;
        String summary;
        boolean truncated = false;
        if (outcome.timedOut) {
            reason = Reason.TIMEOUT;
            status = ToolStatus.TIMEOUT;
            detail = "ran " + outcome.elapsedNanos / 1_000_000 + " ms against a limit of "
                    + call.context.timeout().toMillis() + " ms";
            content = problemText(call.displayName, reason, detail);
            summary = content;
        } else if (outcome.thrown != null) {
            reason = Reason.HANDLER_ERROR;
            status = ToolStatus.FAILED;
            detail = outcome.thrown.getClass().getName();
            content = problemText(call.displayName, reason, detail);
            summary = content;
        } else if (outcome.output == null) {
            reason = Reason.HANDLER_ERROR;
            status = ToolStatus.FAILED;
            detail = "the handler returned null";
            content = problemText(call.displayName, reason, detail);
            summary = content;
        } else if (outcome.output.reason().isPresent()) {
            reason = outcome.output.reason().get();
            status = reason.status();
            detail = Text.clip(outcome.output.reasonDetail(), MAX_DETAIL_CHARS);
            content = problemText(call.displayName, reason, detail);
            summary = content;
        } else {
            reason = null;
            status = ToolStatus.OK;
            detail = "";
            String raw = outcome.output.content();
            Text.Capped capped = Text.cap(raw, maxContentBytes);
            content = capped.text();
            truncated = capped.truncated();
            String ownSummary = outcome.output.summary().orElse(null);
            // The summary is usually the content itself: reuse its byte count rather than count a large text twice.
            summary = ownSummary != null ? ownSummary
                    : capped.totalBytes() >= 0 ? Text.cap(raw, capped.totalBytes(), maxSummaryBytes).text() : raw;
        }
        if (status != ToolStatus.OK) {
            content = Text.cap(content, maxContentBytes).text();
        }
        ToolCallRecord record = new ToolCallRecord(call.callId, call.context.invocationId(), call.displayName,
                status, reason, detail, start.arguments(), start.argumentsSha256(), start.argumentsRedacted(),
                Text.cap(summary, maxSummaryBytes).text(), call.startedAt, duration, call.requestCallId);
        try {
            store.complete(record);
        } catch (RuntimeException e) {
            endObserved(call, record);
            throw storeFailure("complete", e);
        }
        endObserved(call, record);
        return new ToolResult(call.callId, call.displayName, status, reason, detail, content, truncated, duration);
    }

    private Outcome runHandedOff(ToolHandler handler, ToolArgs args, ToolContext context, long limitNanos) {
        long begin = System.nanoTime();
        Future<ToolOutput> future;
        try {
            future = workers.submit(() -> handler.handle(args, context));
        } catch (RuntimeException e) {
            return Outcome.thrown(e);
        }
        try {
            return Outcome.returned(future.get(limitNanos, TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
            return Outcome.thrown(e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            future.cancel(true);
            return Outcome.timedOut(System.nanoTime() - begin);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return Outcome.thrown(e);
        }
    }

    private Outcome runOnCaller(ToolHandler handler, ToolArgs args, ToolContext context, long limitNanos) {
        long begin = System.nanoTime();
        Deadlines deadlines = Deadlines.shared(); // its watchdog thread starts on first use of this mode
        Deadlines.Slot slot = deadlines.arm(limitNanos);
        Outcome outcome;
        try {
            outcome = Outcome.returned(handler.handle(args, context));
        } catch (Throwable t) {
            outcome = Outcome.thrown(t);
        }
        long elapsed = System.nanoTime() - begin;
        boolean fired = deadlines.disarm(slot);
        return fired || elapsed > limitNanos ? Outcome.timedOut(elapsed) : outcome;
    }

    private void endObserved(Call call, ToolCallRecord record) {
        if (observers.length == 0) {
            return;
        }
        ToolCallEvent event = call.event();
        for (ToolCallObserver o : observers) {
            try {
                o.onEnd(event, record);
            } catch (Throwable t) {
                ignore(o, "onEnd", t);
            }
        }
    }

    private static void ignore(ToolCallObserver observer, String method, Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
        LOG.log(System.Logger.Level.WARNING, () -> "observer " + observer.getClass().getName() + "." + method
                + " threw " + t.getClass().getName() + "; ignored, the call goes on", t);
    }

    private static StoreFailureException storeFailure(String what, RuntimeException e) {
        if (e instanceof StoreFailureException sfe) {
            return sfe;
        }
        return new StoreFailureException("the call store failed to " + what + " a call: " + e, e);
    }

    private static String problemText(String toolName, Reason reason, String detail) {
        return "Tool '" + toolName + "' - " + reason.wireName() + ": " + detail; // ASCII keeps the text Latin-1: half the bytes
    }

    /** The state of one call as it walks the checks. Confined to the calling thread. */
    private final class Call {
        final ToolCallRequest request;
        final ToolContext context;
        final long startNanos;
        final Instant startedAt;
        final String callId;
        final String displayName;
        final String argumentsText;
        final long argumentBytes;
        final String digest;
        final String requestCallId;
        ToolCallEvent event;
        String notJson;
        ObjectNode node;
        Tool tool;
        Map<String, Path> paths;

        Call(ToolCallRequest request, ToolContext context, long startNanos) {
            this.request = request;
            this.context = context;
            this.startNanos = startNanos;
            this.startedAt = context.clock().instant();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            this.callId = new UUID((random.nextLong() & ~0xF000L) | 0x4000L,
                    (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L).toString();
            this.displayName = Text.clip(request.name(), MAX_NAME_CHARS);
            this.requestCallId = request.callId().isPresent() ? Text.clip(request.callId().get(), MAX_NAME_CHARS) : "";
            if (request.argumentsJson() != null) {
                this.argumentsText = request.argumentsJson();
            } else {
                String text;
                try {
                    node = JsonValues.toObject(request.argumentsMap());
                    text = Json.MAPPER.writeValueAsString(node);
                } catch (JsonValues.NotJson e) {
                    notJson = e.getMessage();
                    text = String.valueOf(request.argumentsMap().keySet());
                }
                this.argumentsText = text;
            }
            byte[] utf8 = argumentsText.getBytes(StandardCharsets.UTF_8);
            this.argumentBytes = utf8.length;
            this.digest = Text.sha256(utf8);
        }

        ToolCallEvent event() {
            if (event == null) {
                ToolSpec spec = tool == null ? null : tool.spec();
                IsolationTier tier = spec != null && spec.requiresIsolation() ? hostTier : IsolationTier.NONE;
                event = ToolCallEvent.of(callId, requestCallId, displayName, spec, context.invocationId(), startedAt,
                        tier);
            }
            return event;
        }

        boolean redacted() {
            return tool != null && tool.spec().redactArgs();
        }

        String recordedArguments() {
            if (redacted()) {
                return "{\"redacted\":true}";
            }
            if (argumentBytes > RECORD_ARGUMENT_BYTES) {
                return "{\"omitted\":true,\"bytes\":" + argumentBytes + "}";
            }
            return argumentsText;
        }
    }

    private record Refusal(Reason reason, String detail) {}

    private record Outcome(ToolOutput output, Throwable thrown, boolean timedOut, long elapsedNanos) {
        static Outcome returned(ToolOutput output) {
            return new Outcome(output, null, false, 0);
        }

        static Outcome thrown(Throwable t) {
            return new Outcome(null, t, false, 0);
        }

        static Outcome timedOut(long elapsedNanos) {
            return new Outcome(null, null, true, elapsedNanos);
        }
    }

    /** Worker threads shared by every executor: created on first use, daemon, never holding the JVM open. */
    private static final class Workers {
        static final AtomicLong COUNTER = new AtomicLong();
        static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "toolyard-handler-" + COUNTER.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Builds a {@link ToolExecutor}. The allowlist and the store are required: a security setting has
     * no silent default. Not thread-safe.
     */
    public static final class Builder {
        private final ToolRegistry registry;
        private final PathPolicy sandbox;
        private final List<ToolCallObserver> observers = new ArrayList<>();
        private Set<String> allowlist;
        private ToolCallStore store;
        private int maxContentBytes = DEFAULT_MAX_CONTENT_BYTES;
        private int maxSummaryBytes = DEFAULT_MAX_SUMMARY_BYTES;
        private int maxArgumentBytes = DEFAULT_MAX_ARGUMENT_BYTES;
        private HandlerMode mode = HandlerMode.HANDOFF;

        private Builder(ToolRegistry registry, PathPolicy sandbox) {
            this.registry = Objects.requireNonNull(registry, "registry");
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        }

        /**
         * @param allowlist the tools this application lets a model call; never {@code null}; may be empty
         * @return this builder
         */
        public Builder allowlist(Set<String> allowlist) {
            this.allowlist = Set.copyOf(Objects.requireNonNull(allowlist, "allowlist"));
            return this;
        }

        /**
         * @param store where every call is recorded; never {@code null}
         * @return this builder
         */
        public Builder store(ToolCallStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * @param bytes cap on the content a model sees, at least 256; default 65,536
         * @return this builder
         */
        public Builder maxContentBytes(int bytes) {
            this.maxContentBytes = atLeastFloor("maxContentBytes", bytes);
            return this;
        }

        /**
         * @param bytes cap on the summary a record keeps, at least 256; default 4,096
         * @return this builder
         */
        public Builder maxSummaryBytes(int bytes) {
            this.maxSummaryBytes = atLeastFloor("maxSummaryBytes", bytes);
            return this;
        }

        /**
         * @param bytes cap on the arguments accepted, at least 256; default 1 MiB
         * @return this builder
         */
        public Builder maxArgumentBytes(int bytes) {
            this.maxArgumentBytes = atLeastFloor("maxArgumentBytes", bytes);
            return this;
        }

        /**
         * Adds an observer of every call. Repeatable: observers are called in the order added. Default none,
         * and with none the executor does no work and allocates nothing for observation.
         *
         * @param observer the observer; never {@code null}
         * @return this builder
         */
        public Builder observer(ToolCallObserver observer) {
            observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * @param mode where handlers run; default {@link HandlerMode#HANDOFF}
         * @return this builder
         */
        public Builder handlerMode(HandlerMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        private static int atLeastFloor(String parameter, int bytes) {
            if (bytes < MIN_CAP_BYTES) {
                throw new IllegalArgumentException(parameter + " must be at least " + MIN_CAP_BYTES + ", got " + bytes);
            }
            return bytes;
        }

        /**
         * @return the executor
         * @throws IllegalStateException if the allowlist or the store was not given
         * @throws IllegalArgumentException if the allowlist names a tool that is not registered
         */
        public ToolExecutor build() {
            if (allowlist == null) {
                throw new IllegalStateException("allowlist is required (an empty set refuses every tool)");
            }
            if (store == null) {
                throw new IllegalStateException("store is required: every call is recorded");
            }
            for (String name : allowlist) {
                if (registry.get(name) == null) {
                    throw new IllegalArgumentException("allowlist names '" + name + "', which is not registered");
                }
            }
            return new ToolExecutor(this);
        }
    }
}
