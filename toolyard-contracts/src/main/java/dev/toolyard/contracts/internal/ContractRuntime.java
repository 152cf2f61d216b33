package dev.toolyard.contracts.internal;

import dev.toolyard.Reason;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolOutput;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.HttpEgress;
import dev.toolyard.spi.Json;
import dev.toolyard.spi.Text;
import dev.toolyard.spi.IsolatedRunner;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What runs when a contract's tool is called: every argument validated and normalised
 * ({@link Values}), then the argv built ({@link CommandPlan}) and run on the sandbox, or the request
 * built and sent through {@code http_fetch}'s egress checks, or the application's callback called
 * with the normalised arguments. The output is parsed, checked against {@code [output.schema]} and
 * wrapped in the evidence envelope, which is what the model sees and what the record keeps.
 * Immutable. Thread-safe.
 */
public final class ContractRuntime {
    /** The child's whole environment, as run_command's. */
    public static final Map<String, String> ENV = Map.of("PATH", "/usr/local/bin:/usr/bin:/bin");
    private static final Duration SANDBOX_MARGIN = Duration.ofSeconds(1);
    private static final int STDERR_CHARS = 4096;

    private final Manifest manifest;
    private final ScopeRules scope;
    private final Map<String, BoundedPattern> patterns;
    private final Map<String, ArgDef> args;

    /**
     * @param manifest the manifest
     * @param scope the application's scope ({@link ScopeRules#NONE} when none was given)
     */
    public ContractRuntime(Manifest manifest, ScopeRules scope) {
        this.manifest = manifest;
        this.scope = scope;
        Map<String, BoundedPattern> p = new HashMap<>();
        Map<String, ArgDef> a = new LinkedHashMap<>();
        for (ArgDef def : manifest.args()) {
            a.put(def.name(), def);
            if (def.pattern() != null) {
                p.put(def.name(), BoundedPattern.anchor(def.pattern()));
            }
        }
        this.patterns = Map.copyOf(p);
        this.args = a;
    }

    /**
     * Validated arguments.
     *
     * @param texts the normalised text of each given or defaulted argument
     * @param json the normalised arguments, as the callback sees them
     * @param given the arguments the model gave (not defaulted)
     */
    public record Prepared(Map<String, String> texts, ObjectNode json, Set<String> given) {}

    /**
     * Validates every argument.
     *
     * @param raw the arguments as the executor validated them against the wire schema
     * @param workspace the write root for {@code credential_file}; may be {@code null}
     * @return the normalised arguments
     * @throws ValueProblem naming the first argument refused
     */
    public Prepared prepare(ObjectNode raw, Path workspace) throws ValueProblem {
        Values.Checks checks = new Values.Checks(scope, workspace, patterns);
        Map<String, String> texts = new LinkedHashMap<>();
        ObjectNode json = Json.MAPPER.createObjectNode();
        Set<String> given = new java.util.HashSet<>();
        for (String name : raw.propertyNames()) {
            if (!args.containsKey(name)) {
                throw new ValueProblem(Reason.ARGS_INVALID, "argument '" + clip(name, 64) + "' is not declared");
            }
        }
        for (ArgDef def : manifest.args()) {
            JsonNode v = raw.get(def.name());
            boolean present = v != null && !v.isNull();
            if (present) {
                given.add(def.name());
            } else if (def.defaultValue() != null) {
                v = def.defaultValue();
            } else if (def.required()) {
                throw new ValueProblem(Reason.ARGS_INVALID, "argument '" + def.name() + "' is required");
            } else {
                continue;
            }
            if (v.isString() && v.stringValue().isEmpty() && !present) {
                texts.put(def.name(), "");
                json.put(def.name(), "");
                continue;
            }
            Values.Valid valid = Values.check(def, v, checks);
            texts.put(def.name(), valid.text());
            json.set(def.name(), valid.json());
        }
        return new Prepared(texts, json, given);
    }

    /**
     * @param prepared validated arguments
     * @return the argv the command backend runs (before any limits prefix)
     */
    public List<String> argv(Prepared prepared) {
        return manifest.command().argv(prepared.texts(), prepared.given());
    }

    /**
     * The handler of a callback contract: the application's handler gets the normalised arguments.
     *
     * @param callback the application's handler
     * @return the handler to register
     */
    public ToolHandler callback(ToolHandler callback) {
        return (toolArgs, context) -> {
            Prepared p;
            try {
                p = prepare(toolArgs.json(), context.workspace().realWriteRoot());
            } catch (ValueProblem problem) {
                return ToolOutput.refused(problem.reason(), problem.getMessage());
            }
            return callback.handle(new ToolArgs(p.json(), Map.of()), context);
        };
    }

    /**
     * The handler of a command contract.
     *
     * @param runner the sandbox
     * @param limitsPrefix {@code prlimit ... --} for {@code [tool.limits]}, or empty
     * @return the handler to register
     */
    public ToolHandler command(IsolatedRunner runner, List<String> limitsPrefix) {
        return command(runner, limitsPrefix, null);
    }

    /**
     * The handler of a command contract whose command has network through {@code network}: the proxy
     * variables are added to {@link #ENV}, the destinations it reached or was refused are listed in the
     * envelope's {@code network} and kept with the call's record.
     *
     * @param runner the sandbox
     * @param limitsPrefix {@code prlimit ... --} for {@code [tool.limits]}, or empty
     * @param network the command's network; {@code null} for none
     * @return the handler to register
     */
    public ToolHandler command(IsolatedRunner runner, List<String> limitsPrefix, CommandNetwork network) {
        return (toolArgs, context) -> {
            Prepared p;
            try {
                p = prepare(toolArgs.json(), context.workspace().realWriteRoot());
            } catch (ValueProblem problem) {
                return ToolOutput.refused(problem.reason(), problem.getMessage());
            }
            List<String> argv = new ArrayList<>(limitsPrefix);
            argv.addAll(argv(p));
            Instant started = context.clock().instant();
            Duration timeout = Duration.ofSeconds(manifest.tool().timeoutSeconds());
            Duration outer = context.timeout().plus(SANDBOX_MARGIN);
            Duration deadline = timeout.compareTo(outer) < 0 ? timeout : outer;
            CommandNetwork.Run networked = null;
            SubprocessResult r;
            if (network == null) {
                r = runner.runIsolated(argv, context.workspace(), deadline, ENV);
            } else {
                Optional<String> unavailable = runner.proxyRouteUnavailable();
                if (unavailable.isPresent()) {
                    return ToolOutput.refused(Reason.ISOLATION_UNAVAILABLE, "network for commands is unavailable on this"
                            + " host: " + unavailable.get());
                }
                networked = network.runIsolated(runner, argv, context.workspace(), deadline, ENV);
                r = networked.result();
            }
            Instant ended = context.clock().instant();
            ObjectNode envelope = envelope(r.timedOut() ? "timeout" : r.exitCode() == 0 ? "success" : "error", started, ended);
            ArrayNode a = envelope.putArray("argv");
            argv.forEach(a::add);
            envelope.put("exit_code", r.exitCode());
            envelope.put("tier", r.tier().wireName());
            if (networked == null) {
                return finish(envelope, r.stdout(), r.outputTruncated(), r.stderr(), r.exitCode() == 0 && !r.timedOut());
            }
            ArrayNode lines = envelope.putArray("network");
            networked.lines().forEach(lines::add);
            return finish(envelope, r.stdout(), r.outputTruncated(), r.stderr(), r.exitCode() == 0 && !r.timedOut())
                    .withNetworkRecord(networked.recordJson());
        };
    }

    /**
     * The handler of an HTTP contract.
     *
     * @param client the egress client
     * @param bodyType the request body's content type
     * @return the handler to register
     */
    public ToolHandler http(HttpEgress client, String bodyType) {
        Manifest.Http http = manifest.http();
        return (toolArgs, context) -> {
            Prepared p;
            try {
                p = prepare(toolArgs.json(), context.workspace().realWriteRoot());
            } catch (ValueProblem problem) {
                return ToolOutput.refused(problem.reason(), problem.getMessage());
            }
            String url = fill(http.urlParts(), p.texts(), Fill.URL);
            Map<String, String> headers = new LinkedHashMap<>();
            http.headers().forEach((k, parts) -> headers.put(k, fill(parts, p.texts(), Fill.PLAIN)));
            String body = http.body() == null ? null : fill(http.body(), p.texts(), Fill.JSON);
            Instant started = context.clock().instant();
            long deadline = System.nanoTime()
                    + Math.min(context.timeout().toNanos(), Duration.ofSeconds(manifest.tool().timeoutSeconds()).toNanos());
            HttpEgress.Answer answer;
            try {
                answer = client.send(http.method(), url, headers, body, bodyType, deadline);
            } catch (HttpEgress.Stopped stopped) {
                return stopped.toOutput();
            }
            Instant ended = context.clock().instant();
            int code = answer.status();
            boolean ok = http.successStatus().isEmpty() ? code >= 200 && code <= 299 : http.successStatus().contains(code);
            String status = ok ? "success" : code >= 300 && code <= 399 ? "redirect_blocked"
                    : code >= 400 && code <= 499 ? "client_error" : code >= 500 ? "server_error" : "error";
            ObjectNode envelope = envelope(status, started, ended);
            envelope.put("command", http.method() + " " + http.url());
            envelope.put("http_status", code);
            return finish(envelope, answer.body(), false, "", ok);
        };
    }

    private ObjectNode envelope(String status, Instant started, Instant ended) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("status", status);
        e.put("tool", manifest.tool().name());
        e.put("started_at", started.toString());
        e.put("ended_at", ended.toString());
        e.put("duration_ms", Duration.between(started, ended).toMillis());
        return e;
    }

    private ToolOutput finish(ObjectNode envelope, String rawOutput, boolean truncated, String stderr, boolean parse) {
        Manifest.Output out = manifest.output();
        String output = rawOutput;
        if (Text.utf8Length(output) > out.maxBytes()) {
            output = Text.prefixWithin(output, out.maxBytes());
            truncated = true;
        }
        String hash = "sha256:" + Text.sha256(rawOutput);
        envelope.put("output_hash", hash);
        envelope.put("output_bytes", Text.utf8Length(rawOutput));
        envelope.put("output_truncated", truncated);
        if (!stderr.isEmpty()) {
            envelope.put("stderr", Text.clip(stderr, STDERR_CHARS));
        }
        JsonNode results;
        if (parse) {
            try {
                results = OutputParsers.parse(out.parser(), output);
            } catch (OutputParsers.Unparseable e) {
                return resultInvalid("$: " + e.getMessage(), hash, rawOutput);
            }
            if (out.schema() != null) {
                String violation = OutputSchema.check(out.schema()).violation(results);
                if (violation != null) {
                    return resultInvalid(violation, hash, rawOutput);
                }
            }
        } else {
            ObjectNode raw = Json.MAPPER.createObjectNode();
            raw.put("raw_output", output);
            results = raw;
        }
        envelope.set("results", results);
        String text = envelope.toString();
        return ToolOutput.of(text);
    }

    /**
     * The model learns where the output broke its contract, never the output itself (it is not the valid
     * result the contract promises); the record keeps the raw output whole, up to the executor's content cap.
     */
    private static ToolOutput resultInvalid(String violation, String hash, String raw) {
        return ToolOutput.failedWithRecordedOutput(Reasons.RESULT_INVALID, violation + "; raw output " + hash + ", "
                + Text.utf8Length(raw) + " bytes, kept in the call record", raw);
    }

    /** How a value is written into an HTTP template. */
    private enum Fill { URL, JSON, PLAIN }

    private static String fill(List<CommandPlan.Part> parts, Map<String, String> values, Fill how) {
        StringBuilder b = new StringBuilder();
        for (CommandPlan.Part part : parts) {
            if (part instanceof CommandPlan.Literal l) {
                b.append(l.text());
            } else {
                String v = values.getOrDefault(((CommandPlan.Placeholder) part).name(), "");
                switch (how) {
                    case URL -> b.append(URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20"));
                    case JSON -> {
                        String quoted = Json.MAPPER.getNodeFactory().stringNode(v).toString();
                        b.append(quoted, 1, quoted.length() - 1);
                    }
                    default -> b.append(v);
                }
            }
        }
        return b.toString();
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
