package dev.toolyard.contracts;

import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.HttpEgress;
import dev.toolyard.EgressClass;
import dev.toolyard.InvalidToolSpecException;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.Tool;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolSpec;
import dev.toolyard.contracts.internal.ArgDef;
import dev.toolyard.contracts.internal.ArgType;
import dev.toolyard.contracts.internal.ContractRuntime;
import dev.toolyard.contracts.internal.Manifest;
import dev.toolyard.contracts.internal.ManifestReader;
import dev.toolyard.contracts.internal.Reasons;
import dev.toolyard.contracts.internal.ValueProblem;
import dev.toolyard.contracts.internal.Values;
import dev.toolyard.spi.Json;
import dev.toolyard.Schemas;
import dev.toolyard.spi.Sandbox;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A ToolClad manifest ({@code .clad.toml}) loaded as a ToolYard tool contract: the model sees typed,
 * constrained parameters (the generated, closed argument schema), every value is validated and
 * normalised by its ToolClad type, and the command's argv or the HTTP request is built from the
 * manifest's template, never from model text. Bind it to a backend to get a {@link Tool} to register:
 * {@link #bindCommand} runs {@code [command]} on the sandbox's isolation ladder, {@link #bindHttp}
 * sends {@code [http]} through {@code http_fetch}'s egress checks, {@link #bindCallback} hands the
 * normalised arguments of a {@code dispatch = "callback"} manifest to the application.
 *
 * <p>Load and bind problems are configuration errors and throw {@link ContractException} naming the
 * file and key; what a model sends never throws: it comes back as {@code args_invalid},
 * {@code out_of_scope} or, for output that breaks {@code [output.schema]}, {@code result_invalid}.
 * Immutable. Thread-safe.
 */
public final class ToolContract {
    /** The reason a value outside the application's scope (or an always-blocked target) is refused with. */
    public static final Reason OUT_OF_SCOPE = Reasons.OUT_OF_SCOPE;
    /** The reason a run whose output breaks {@code [output.schema]} fails with ({@code FAILED}). */
    public static final Reason RESULT_INVALID = Reasons.RESULT_INVALID;

    private final Manifest manifest;
    private final ToolSpec spec;

    private ToolContract(Manifest manifest, ToolSpec spec) {
        this.manifest = manifest;
        this.spec = spec;
    }

    /**
     * @param manifestText a manifest's text
     * @return the contract, with no custom types
     * @throws ContractException naming the key of the first problem
     */
    public static ToolContract parse(String manifestText) {
        return parse("manifest", manifestText, CustomTypes.none());
    }

    /**
     * @param fileName the name used in messages
     * @param manifestText a manifest's text
     * @param customTypes custom types from a {@code toolclad.toml}; never {@code null}
     * @return the contract
     * @throws ContractException naming the file and key of the first problem
     */
    public static ToolContract parse(String fileName, String manifestText, CustomTypes customTypes) {
        Objects.requireNonNull(manifestText, "manifestText");
        Objects.requireNonNull(customTypes, "customTypes");
        Manifest m = ManifestReader.read(fileName, manifestText, customTypes.types());
        return new ToolContract(m, spec(fileName, m, m.http() != null ? EgressClass.ALLOWLISTED : EgressClass.NONE));
    }

    private static ToolSpec spec(String fileName, Manifest m, EgressClass egress) {
        try {
            return ToolSpec.builder(m.tool().name())
                    .description(m.tool().description())
                    .argsSchema(inputSchema(m).toString())
                    .riskClass(m.http() != null ? (m.http().method().equals("GET") || m.http().method().equals("HEAD")
                            ? RiskClass.READ_ONLY : RiskClass.WRITE) : m.command() != null ? RiskClass.EXECUTE
                            : RiskClass.WRITE)
                    .egress(egress)
                    .requiresIsolation(m.command() != null)
                    // ToolClad's default gate denies these unless approved: here the executor's approval gate asks
                    .requiresApproval(m.tool().humanApproval() || m.tool().riskTier().equals("high")
                            || m.tool().riskTier().equals("critical"))
                    .reasons(Reasons.OUT_OF_SCOPE, Reasons.RESULT_INVALID) // its registry checks them against other tools'
                    .build();
        } catch (InvalidToolSpecException e) {
            throw new ContractException(fileName + ": the generated tool spec is invalid: " + e.getMessage());
        }
    }

    /**
     * @param file a manifest file
     * @param customTypes custom types; never {@code null}
     * @return the contract
     * @throws ContractException naming the file and key of the first problem
     * @throws UncheckedIOException if the file cannot be read
     */
    public static ToolContract load(Path file, CustomTypes customTypes) {
        try {
            return parse(file.getFileName().toString(), Files.readString(file), customTypes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read manifest " + file, e);
        }
    }

    /** @return the tool's name; never {@code null} */
    public String name() {
        return spec.name();
    }

    /** @return the spec every binding registers (name, description, the generated argument schema) */
    public ToolSpec spec() {
        return spec;
    }

    /** @return the MCP-style input schema (the spec's argument schema), as JSON text */
    public String inputSchema() {
        return spec.argsSchema();
    }

    /**
     * @return the MCP-style output schema: the evidence envelope, whose {@code results} is the manifest's
     *     {@code [output.schema]} (empty when it declares none), as JSON text
     */
    public String outputSchema() {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "object");
        ObjectNode p = s.putObject("properties");
        p.putObject("status").put("type", "string");
        p.putObject("tool").put("type", "string");
        if (manifest.http() != null) {
            p.putObject("command").put("type", "string");
            p.putObject("http_status").put("type", "integer");
        } else {
            p.putObject("argv").put("type", "array").putObject("items").put("type", "string");
            p.putObject("exit_code").put("type", "integer");
            p.putObject("tier").put("type", "string");
            p.putObject("network").put("type", "array").putObject("items").put("type", "string");
        }
        p.putObject("started_at").put("type", "string");
        p.putObject("ended_at").put("type", "string");
        p.putObject("duration_ms").put("type", "integer");
        p.putObject("output_hash").put("type", "string");
        p.putObject("output_bytes").put("type", "integer");
        p.putObject("output_truncated").put("type", "boolean");
        p.putObject("stderr").put("type", "string");
        Manifest.Output out = manifest.output();
        if (out != null && out.schema() != null) {
            p.set("results", out.schema().deepCopy());
        } else {
            p.putObject("results");
        }
        s.putArray("required").add("status").add("tool").add("results");
        return s.toString();
    }

    /** @return what loaded but should change (a deprecated template, an ignored key); never {@code null} */
    public List<String> warnings() {
        return manifest.warnings();
    }

    /** @return which backend the manifest declares: {@code command}, {@code http} or {@code callback} */
    public String backend() {
        return manifest.command() != null ? "command" : manifest.http() != null ? "http" : "callback";
    }

    /**
     * Binds a {@code dispatch = "callback"} manifest (or any manifest, as a validator only) to the
     * application's handler, which receives the normalised arguments (defaults filled in, numbers as
     * JSON numbers, booleans as JSON booleans).
     *
     * @param handler the application's handler; never {@code null}
     * @return the tool to register
     * @throws ContractException if an argument sets {@code scope_check} (use {@link #bindCallback(ToolHandler, Scope)})
     */
    public Tool bindCallback(ToolHandler handler) {
        return bindCallback(handler, Scope.none());
    }

    /**
     * @param handler the application's handler; never {@code null}
     * @param scope the scope for {@code scope_check} arguments; never {@code null}
     * @return the tool to register
     * @throws ContractException if an argument sets {@code scope_check} and the scope is {@link Scope#none()}
     */
    public Tool bindCallback(ToolHandler handler, Scope scope) {
        Objects.requireNonNull(handler, "handler");
        return new Tool(spec, runtime(scope).callback(handler));
    }

    /**
     * Binds the {@code [command]} backend: the argv runs on the sandbox's isolation ladder (the spec
     * requires isolation, so a host with no tier refuses the call), with no network, in the workspace's
     * write root, with {@code PATH} as its only environment variable and the manifest's timeout. A
     * {@code [tool.limits]} is applied inside the sandbox with {@code prlimit}, below the sandbox's own.
     *
     * @param sandbox the sandbox; never {@code null}
     * @param scope the scope for {@code scope_check} arguments; never {@code null}
     * @return the tool to register
     * @throws ContractException if the manifest has no {@code [command]}, needs a scope it was not given,
     *     or sets limits and this host has no {@code prlimit}
     */
    public Tool bindCommand(Sandbox sandbox, Scope scope) {
        Objects.requireNonNull(sandbox, "sandbox");
        if (manifest.command() == null) {
            throw new ContractException(manifest.file() + ": [command] is missing, so it cannot be bound to a sandbox");
        }
        return new Tool(spec, runtime(scope).command(sandbox, limitsPrefix()));
    }

    /**
     * Binds the {@code [command]} backend as {@link #bindCommand(Sandbox, Scope)} does, with network
     * through {@code network}: the command reaches the hosts it allows, and nothing else, through the
     * proxy {@code run_command} uses (see {@link CommandNetwork}); the proxy variables are added to its
     * environment, and the envelope's {@code network} lists each destination it reached or was refused,
     * as the call's record does. The tool's egress class is {@link EgressClass#ALLOWLISTED}, so an
     * invocation whose egress ceiling is {@code NONE} refuses it before it runs. A host where the sandbox
     * cannot give a command network refuses each call with {@code isolation_unavailable}.
     *
     * @param sandbox the sandbox; never {@code null}
     * @param scope the scope for {@code scope_check} arguments; never {@code null}
     * @param network where the command may connect; never {@code null}
     * @return the tool to register
     * @throws ContractException as {@link #bindCommand(Sandbox, Scope)}
     * @throws NullPointerException if an argument is {@code null}
     */
    public Tool bindCommand(Sandbox sandbox, Scope scope, CommandNetwork network) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(network, "network");
        if (manifest.command() == null) {
            throw new ContractException(manifest.file() + ": [command] is missing, so it cannot be bound to a sandbox");
        }
        return new Tool(spec(manifest.file(), manifest, EgressClass.ALLOWLISTED),
                runtime(scope).command(sandbox, limitsPrefix(), network));
    }

    /**
     * Binds the {@code [http]} backend: the request is built from the manifest's templates (values
     * percent-encoded in the URL, JSON-escaped in the body) and sent through {@code http_fetch}'s egress
     * checks; redirects are not followed.
     *
     * @param egress where requests may go; never {@code null}
     * @param scope the scope for {@code scope_check} arguments; never {@code null}
     * @return the tool to register
     * @throws ContractException if the manifest has no {@code [http]} or needs a scope it was not given
     */
    public Tool bindHttp(HttpEgress egress, Scope scope) {
        Objects.requireNonNull(egress, "egress");
        if (manifest.http() == null) {
            throw new ContractException(manifest.file() + ": [http] is missing, so it cannot be bound to an egress");
        }
        String type = manifest.http().headerTemplates().getOrDefault("Content-Type", "application/json");
        return new Tool(spec, runtime(scope).http(egress, type));
    }

    /**
     * What a dry run shows: the argv a command contract would run, or the request line of an HTTP one.
     *
     * @param refusal why the arguments were refused; empty when they are valid
     * @param argv the argv, or the HTTP request line as one item; empty when refused
     * @param normalised the normalised arguments; empty object when refused
     */
    public record DryRun(Optional<String> refusal, List<String> argv, String normalised) {}

    /**
     * Validates arguments exactly as a call would (the wire schema, then every type) and builds the argv,
     * running nothing.
     *
     * @param argumentsJson the arguments as a JSON object
     * @param scope the scope; never {@code null}
     * @param workspace the write root for {@code credential_file}; may be {@code null}
     * @return the dry run
     * @throws ContractException if the manifest needs a scope it was not given
     */
    public DryRun dryRun(String argumentsJson, Scope scope, Path workspace) {
        ContractRuntime runtime = runtime(scope);
        JsonNode parsed;
        try {
            parsed = Json.MAPPER.readTree(argumentsJson);
        } catch (RuntimeException e) {
            return new DryRun(Optional.of("args_invalid: not valid JSON"), List.of(), "{}");
        }
        if (parsed == null || !parsed.isObject()) {
            return new DryRun(Optional.of("args_invalid: arguments must be a JSON object"), List.of(), "{}");
        }
        Optional<String> violation = Schemas.firstViolation(spec, parsed);
        if (violation.isPresent()) {
            return new DryRun(Optional.of("args_invalid: " + violation.get()), List.of(), "{}");
        }
        try {
            ContractRuntime.Prepared p = runtime.prepare((ObjectNode) parsed, workspace);
            List<String> argv = manifest.command() != null ? runtime.argv(p)
                    : manifest.http() != null ? List.of(manifest.http().method() + " " + manifest.http().url())
                    : List.of();
            List<String> full = new ArrayList<>(manifest.command() != null ? limitsPrefix() : List.of());
            full.addAll(argv);
            return new DryRun(Optional.empty(), full, p.json().toString());
        } catch (ValueProblem problem) {
            return new DryRun(Optional.of(problem.reason().wireName() + ": " + problem.getMessage()), List.of(), "{}");
        }
    }

    private ContractRuntime runtime(Scope scope) {
        Objects.requireNonNull(scope, "scope");
        if (!scope.isPresent()) {
            for (ArgDef a : manifest.args()) {
                if (a.scopeCheck()) {
                    throw new ContractException(manifest.file() + ": [args." + a.name() + "] scope_check is enabled but"
                            + " no scope was given (pass Scope.load(file)); a missing scope is a refusal, never a pass");
                }
            }
        }
        return new ContractRuntime(manifest, scope.rules());
    }

    private List<String> limitsPrefix() {
        Manifest.Limits l = manifest.tool().limits();
        if (!l.any()) {
            return List.of();
        }
        String prlimit = null;
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            if (Files.isExecutable(Path.of(dir, "prlimit"))) {
                prlimit = dir + File.separator + "prlimit";
                break;
            }
        }
        if (prlimit == null) {
            throw new ContractException(manifest.file() + ": [tool.limits] is set but this host has no prlimit"
                    + " (util-linux) to apply it inside the sandbox");
        }
        List<String> a = new ArrayList<>();
        a.add(prlimit);
        if (l.nproc() != null) {
            a.add("--nproc=" + l.nproc());
        }
        if (l.nofile() != null) {
            a.add("--nofile=" + l.nofile());
        }
        if (l.fsizeBytes() != null) {
            a.add("--fsize=" + l.fsizeBytes());
        }
        if (l.addressSpaceBytes() != null) {
            a.add("--as=" + l.addressSpaceBytes());
        }
        if (l.cpuSeconds() != null) {
            a.add("--cpu=" + l.cpuSeconds());
        }
        a.add("--");
        return List.copyOf(a);
    }

    private static ObjectNode inputSchema(Manifest m) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "object");
        ObjectNode props = s.putObject("properties");
        ArrayNode required = Json.MAPPER.createArrayNode();
        for (ArgDef a : m.args()) {
            ObjectNode p = props.putObject(a.name());
            String hint = hint(a);
            p.put("description", a.description().isEmpty() ? hint : a.description() + " (" + hint + ")");
            switch (a.type()) {
                case INTEGER -> {
                    p.putArray("type").add("integer").add("string");
                    p.put("pattern", "^[+-]?[0-9]{1,19}$");
                    if (!a.clamp()) {
                        if (a.min() != null) {
                            p.put("minimum", a.min());
                        }
                        if (a.max() != null) {
                            p.put("maximum", a.max());
                        }
                    }
                }
                case NUMBER -> {
                    p.putArray("type").add("number").add("string");
                    p.put("pattern", "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]{1,3})?$");
                    if (!a.clamp()) {
                        if (a.minFloat() != null) {
                            p.put("minimum", a.minFloat());
                        }
                        if (a.maxFloat() != null) {
                            p.put("maximum", a.maxFloat());
                        }
                    }
                }
                case PORT -> {
                    p.putArray("type").add("integer").add("string");
                    p.put("pattern", "^[0-9]{1,5}$");
                    p.put("minimum", a.min() != null && !a.clamp() ? a.min() : 1);
                    p.put("maximum", a.max() != null && !a.clamp() ? a.max() : 65535);
                }
                case BOOLEAN -> {
                    p.putArray("type").add("boolean").add("string");
                    p.put("pattern", "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$");
                }
                case ENUM -> {
                    p.put("type", "string");
                    ArrayNode e = p.putArray("enum");
                    a.allowed().forEach(e::add);
                }
                default -> {
                    p.put("type", "string");
                    if (a.required()) {
                        p.put("minLength", 1); // ToolClad refuses an empty required value; so does the schema
                    }
                    p.put("maxLength", a.type() == ArgType.SCOPE_TARGET ? 253 : Values.MAX_CHARS);
                    if (a.pattern() != null) {
                        p.put("pattern", "^(?:" + a.pattern() + ")$");
                    }
                }
            }
            if (a.defaultValue() != null) {
                p.set("default", a.defaultValue());
            }
            if (a.required()) {
                required.add(a.name());
            }
        }
        if (!required.isEmpty()) {
            s.set("required", required);
        }
        s.put("additionalProperties", false);
        return s;
    }

    private static String hint(ArgDef a) {
        String base = switch (a.type()) {
            case STRING -> "text without shell metacharacters, quotes or control characters";
            case INTEGER -> "a whole number" + range(a.min(), a.max(), a.clamp());
            case NUMBER -> "a finite number" + range(a.minFloat(), a.maxFloat(), a.clamp());
            case PORT -> "a port, 1-65535";
            case BOOLEAN -> "true or false";
            case ENUM -> "one of the listed values";
            case SCOPE_TARGET -> "a host name, IPv4/IPv6 address or CIDR range; ASCII only";
            case URL -> "an absolute URL, schemes " + String.join("/", a.schemes()) + ", no user info";
            case PATH -> "a relative path without '..'";
            case IP_ADDRESS -> "an IPv4 or IPv6 address";
            case CIDR -> "a CIDR range, address/prefix";
            case MSF_OPTIONS -> "'KEY VALUE' pairs separated by ';'";
            case CREDENTIAL_FILE -> "a relative path to a file in the workspace";
            case DURATION -> "seconds or h/m/s/ms, e.g. 30, 5m, 1h30m";
            case REGEX_MATCH -> "text matching the pattern";
        };
        StringBuilder b = new StringBuilder(a.typeName().equals(a.type().manifestName()) ? a.typeName()
                : a.typeName() + ", a " + a.type().manifestName());
        b.append(": ").append(base);
        if (a.blockInternal()) {
            b.append("; internal targets refused");
        }
        if (a.scopeCheck()) {
            b.append("; must be in scope");
        }
        return b.toString();
    }

    private static String range(Object min, Object max, boolean clamp) {
        if (min == null && max == null) {
            return "";
        }
        String lo = min == null ? "" : (min instanceof java.math.BigDecimal d ? d.toPlainString() : min.toString());
        String hi = max == null ? "" : (max instanceof java.math.BigDecimal d ? d.toPlainString() : max.toString());
        return (clamp ? ", clamped to " : ", ") + lo + ".." + hi;
    }

    @Override
    public String toString() {
        return "ToolContract[" + name() + ", " + backend() + ", " + manifest.args().size() + " args]";
    }

    /** For tests in this module's internal package: the loaded manifest. */
    Manifest manifest() {
        return manifest;
    }
}
