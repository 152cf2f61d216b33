package dev.toolyard.contracts.internal;

import dev.toolyard.contracts.ContractException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Reads a {@code .clad.toml} manifest and refuses, naming the file and key, everything ToolYard will
 * not run: an unknown key in any section, {@code timeout_seconds} below 1, a shell or interpreter as
 * argv[0] without {@code allow_interpreter = true}, a custom parser or executor script, a placeholder
 * that is not a whole exec element (or is quoted in a template), a placeholder naming nothing, a
 * network-target argument without {@code block_internal} in a manifest that reaches the network, and
 * the {@code [mcp]}, {@code [session]} and {@code [browser]} backends. Stateless. Thread-safe.
 */
public final class ManifestReader {
    private static final TomlMapper TOML = TomlMapper.builder().build();
    private static final Pattern NAME = Pattern.compile("^[a-z][a-z0-9_]{1,63}$");
    private static final Pattern ARG_NAME = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");
    private static final Set<String> TOP = Set.of("tool", "args", "command", "http", "output", "mcp", "session", "browser");
    private static final Set<String> TOOL = Set.of("name", "version", "binary", "description", "timeout_seconds",
            "risk_tier", "human_approval", "dispatch", "mode", "network_egress", "allow_interpreter", "cedar",
            "evidence", "limits");
    private static final Set<String> CEDAR = Set.of("resource", "action");
    private static final Set<String> EVIDENCE = Set.of("output_dir", "capture", "hash");
    private static final Set<String> LIMITS = Set.of("nproc", "nofile", "fsize_bytes", "address_space_bytes", "cpu_seconds");
    /** Keys an argument or a custom type may carry. */
    static final Set<String> ARG = Set.of("position", "required", "type", "description", "default", "allowed",
            "pattern", "sanitize", "min", "max", "clamp", "min_float", "max_float", "schemes", "scope_check",
            "block_internal", "allow_whitespace", "allow_leading_dash");
    private static final Set<String> COMMAND = Set.of("exec", "template", "executor", "end_of_options", "defaults",
            "mappings", "conditionals");
    private static final Set<String> CONDITIONAL = Set.of("when", "template", "exec");
    private static final Set<String> HTTP = Set.of("method", "url", "headers", "body_template", "success_status",
            "error_status");
    private static final Set<String> OUTPUT = Set.of("format", "parser", "envelope", "max_bytes", "schema");
    private static final Set<String> PARSERS = Set.of("text", "json", "jsonl", "csv", "xml");
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
    /** Shells and interpreters, and programs that run another program from their arguments. */
    private static final Set<String> INTERPRETERS = Set.of("sh", "bash", "dash", "zsh", "ksh", "mksh", "csh",
            "tcsh", "fish", "ash", "busybox", "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby",
            "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "tclsh", "wish", "expect", "env", "xargs",
            "awk", "gawk", "mawk", "nawk", "java", "jshell", "groovy", "scala", "Rscript", "R", "pwsh",
            "powershell", "osascript", "nohup", "timeout", "nice", "ionice", "sudo", "su", "doas", "runuser",
            "setsid", "stdbuf", "strace", "ltrace", "gdb", "chroot", "nsenter", "unshare", "flock", "watch",
            "script", "time", "command", "exec", "eval", "parallel", "find", "make", "ssh", "vim", "vi", "emacs");
    private static final Pattern VERSIONED_INTERPRETER =
            Pattern.compile("^(python|python[23]|perl|ruby|php|lua|pypy|node|tclsh|wish)[0-9.]*$");
    /** Binaries that reach the network: their network-target arguments need block_internal. */
    private static final Set<String> EGRESS_BINARIES = Set.of("curl", "wget", "nmap", "masscan", "ssh", "scp",
            "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "dig", "host", "nslookup", "whois", "ping",
            "ping6", "traceroute", "nikto", "hydra", "sqlmap", "rsync", "httpie", "http", "aria2c", "openssl");
    private static final long DEFAULT_MAX_BYTES = 8L << 20;
    private static final Pattern PLACEHOLDER_AT = Pattern.compile("\\{(?:_?[a-z][a-z0-9_]{0,63}|_secret:[a-z0-9_]{1,64})\\}");

    private ManifestReader() {}

    /**
     * @param file the name used in messages
     * @param text the manifest
     * @param customTypes custom types by name (from {@code toolclad.toml}); never {@code null}
     * @return the checked manifest
     * @throws ContractException naming the file and key of the first problem
     */
    public static Manifest read(String file, String text, Map<String, ObjectNode> customTypes) {
        ObjectNode root = parse(file, text);
        Reader r = new Reader(file);
        r.only(root, "", TOP);
        for (String unsupported : List.of("mcp", "session", "browser")) {
            if (root.has(unsupported)) {
                throw r.fail("[" + unsupported + "]", "is parsed by ToolClad but not executable by ToolYard; only"
                        + " [command] and [http] backends (and dispatch = \"callback\") are supported");
            }
        }
        Manifest.ToolInfo tool = r.tool(r.table(root, "tool", true));
        boolean hasCommand = root.has("command");
        boolean hasHttp = root.has("http");
        if (hasCommand && hasHttp) {
            throw r.fail("[command]", "and [http] are both declared; a manifest has one backend");
        }
        ObjectNode commandTable = hasCommand ? r.table(root, "command", true) : null;
        // allow_whitespace is honoured where no argv is split: exec arrays, and callback-only contracts.
        boolean declaredExec = commandTable != null ? commandTable.has("exec") : tool.callback() && !hasHttp;
        List<ArgDef> args = r.args(r.table(root, "args", false), customTypes, declaredExec);
        CommandPlan command = commandTable == null ? null : r.command(commandTable, args, tool);
        Manifest.Http http = hasHttp ? r.http(r.table(root, "http", true), args) : null;
        Manifest.Output output = root.has("output") ? r.output(r.table(root, "output", true)) : null;
        if (!tool.callback()) {
            if (command == null && http == null) {
                throw r.fail("[command]", "is missing: dispatch = \"exec\" (the default) needs a [command] or [http]"
                        + " backend; use dispatch = \"callback\" for a validator-only contract");
            }
            if (output == null) {
                throw r.fail("[output]", "is missing: dispatch = \"exec\" needs an [output] table");
            }
        }
        boolean egress = tool.networkEgress() || http != null || EGRESS_BINARIES.contains(basename(tool.binary()))
                || (command != null && command.elements().get(0) instanceof CommandPlan.Fixed f
                        && EGRESS_BINARIES.contains(basename(f.text())));
        if (egress) {
            for (ArgDef a : args) {
                if (a.type().networkTarget() && !a.blockInternal()) {
                    throw r.fail("[args." + a.name() + "] block_internal", "must be true: this tool reaches the network"
                            + " (network_egress, an [http] backend or the egress binary '" + basename(tool.binary())
                            + "'), so every network-target argument must refuse internal targets");
                }
            }
        }
        return new Manifest(file, tool, args, command, http, output, r.warnings);
    }

    /**
     * Reads a TOML document for the scope file and {@code toolclad.toml} readers.
     *
     * @param file the name used in messages
     * @param text the document
     * @return its root table
     * @throws ContractException when it is not TOML
     */
    public static ObjectNode parse(String file, String text) {
        try {
            JsonNode n = TOML.readTree(text);
            if (n == null || !n.isObject()) {
                throw new ContractException(file + ": not a TOML document");
            }
            return (ObjectNode) n;
        } catch (JacksonException e) {
            String m = e.getOriginalMessage();
            throw new ContractException(file + ": not valid TOML: " + (m == null ? e.getClass().getSimpleName()
                    : m.length() > 300 ? m.substring(0, 300) + "…" : m));
        }
    }

    static String basename(String binary) {
        return binary == null ? "" : binary.substring(binary.lastIndexOf('/') + 1);
    }

    /** The checks, with the file name and the warnings gathered while reading. */
    static final class Reader {
        final String file;
        final List<String> warnings = new ArrayList<>();

        Reader(String file) {
            this.file = file;
        }

        ContractException fail(String key, String problem) {
            return new ContractException(file + ": " + key + " " + problem);
        }

        void only(ObjectNode table, String where, Set<String> keys) {
            for (String k : table.propertyNames()) {
                if (!keys.contains(k)) {
                    throw fail(where.isEmpty() ? "key '" + k + "'" : where + " key '" + k + "'",
                            "is not a known key (unknown keys are refused; known: " + new java.util.TreeSet<>(keys) + ")");
                }
            }
        }

        ObjectNode table(ObjectNode parent, String key, boolean required) {
            JsonNode n = parent.get(key);
            if (n == null) {
                if (required) {
                    throw fail("[" + key + "]", "is missing");
                }
                return parent.objectNode();
            }
            if (!n.isObject()) {
                throw fail("[" + key + "]", "must be a table");
            }
            return (ObjectNode) n;
        }

        String string(ObjectNode t, String where, String key, String dflt) {
            JsonNode n = t.get(key);
            if (n == null) {
                if (dflt == null) {
                    throw fail(where + " " + key, "is missing");
                }
                return dflt;
            }
            if (!n.isString()) {
                throw fail(where + " " + key, "must be a string");
            }
            return n.stringValue();
        }

        boolean bool(ObjectNode t, String where, String key) {
            JsonNode n = t.get(key);
            if (n == null) {
                return false;
            }
            if (!n.isBoolean()) {
                throw fail(where + " " + key, "must be true or false");
            }
            return n.booleanValue();
        }

        Long integer(ObjectNode t, String where, String key) {
            JsonNode n = t.get(key);
            if (n == null) {
                return null;
            }
            if (!n.isIntegralNumber() || !n.canConvertToLong()) {
                throw fail(where + " " + key, "must be an integer");
            }
            return n.longValue();
        }

        BigDecimal decimal(ObjectNode t, String where, String key) {
            JsonNode n = t.get(key);
            if (n == null) {
                return null;
            }
            if (!n.isNumber() || (n.isFloatingPointNumber() && !Double.isFinite(n.doubleValue()))) {
                throw fail(where + " " + key, "must be a finite number");
            }
            return n.decimalValue();
        }

        List<String> strings(ObjectNode t, String where, String key) {
            JsonNode n = t.get(key);
            if (n == null) {
                return List.of();
            }
            if (!n.isArray()) {
                throw fail(where + " " + key, "must be an array of strings");
            }
            List<String> out = new ArrayList<>();
            for (JsonNode item : n) {
                if (!item.isString()) {
                    throw fail(where + " " + key, "must be an array of strings");
                }
                out.add(item.stringValue());
            }
            return out;
        }

        Manifest.ToolInfo tool(ObjectNode t) {
            only(t, "[tool]", TOOL);
            String name = string(t, "[tool]", "name", null);
            if (!NAME.matcher(name).matches()) {
                throw fail("[tool] name", "must match ^[a-z][a-z0-9_]{1,63}$ (a ToolYard tool name)");
            }
            String description = string(t, "[tool]", "description", null);
            if (description.isBlank()) {
                throw fail("[tool] description", "must not be empty: the model reads it");
            }
            Long timeout = integer(t, "[tool]", "timeout_seconds");
            if (timeout != null && timeout < 1) {
                throw fail("[tool] timeout_seconds", "must be at least 1, got " + timeout
                        + " (0 would mean no timeout, which ToolYard never allows)");
            }
            if (timeout != null && timeout > 86_400) {
                throw fail("[tool] timeout_seconds", "must be at most 86400, got " + timeout);
            }
            String dispatch = string(t, "[tool]", "dispatch", "exec");
            if (!dispatch.equals("exec") && !dispatch.equals("callback")) {
                throw fail("[tool] dispatch", "must be \"exec\" or \"callback\", got \"" + clip(dispatch) + "\"");
            }
            String mode = string(t, "[tool]", "mode", "oneshot");
            if (!mode.equals("oneshot")) {
                throw fail("[tool] mode", "must be \"oneshot\": session and browser modes are not executable here");
            }
            String risk = string(t, "[tool]", "risk_tier", "low");
            if (!Set.of("low", "medium", "high", "critical").contains(risk)) {
                throw fail("[tool] risk_tier", "must be low, medium, high or critical");
            }
            if (t.has("cedar")) {
                only(table(t, "cedar", true), "[tool.cedar]", CEDAR);
            }
            if (t.has("evidence")) {
                only(table(t, "evidence", true), "[tool.evidence]", EVIDENCE);
            }
            Manifest.Limits limits = Manifest.Limits.NONE;
            if (t.has("limits")) {
                ObjectNode l = table(t, "limits", true);
                only(l, "[tool.limits]", LIMITS);
                limits = new Manifest.Limits(positive(l, "nproc"), positive(l, "nofile"), positive(l, "fsize_bytes"),
                        positive(l, "address_space_bytes"), positive(l, "cpu_seconds"));
            }
            String binary = string(t, "[tool]", "binary", "");
            boolean allowInterpreter = bool(t, "[tool]", "allow_interpreter");
            if (!allowInterpreter && interpreter(binary)) {
                throw fail("[tool] binary", "names a shell or interpreter ('" + clip(basename(binary))
                        + "'), refused unless allow_interpreter = true");
            }
            return new Manifest.ToolInfo(name, string(t, "[tool]", "version", ""), binary, description,
                    timeout == null ? 60 : timeout, risk, bool(t, "[tool]", "human_approval"),
                    dispatch.equals("callback"), bool(t, "[tool]", "network_egress"), allowInterpreter, limits);
        }

        private Long positive(ObjectNode l, String key) {
            Long v = integer(l, "[tool.limits]", key);
            if (v != null && v < 1) {
                throw fail("[tool.limits] " + key, "must be at least 1, got " + v);
            }
            return v;
        }

        List<ArgDef> args(ObjectNode table, Map<String, ObjectNode> customTypes, boolean declaredExec) {
            List<ArgDef> out = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : table.properties()) {
                String name = e.getKey();
                String where = "[args." + name + "]";
                if (!ARG_NAME.matcher(name).matches()) {
                    throw fail(where, "name must match ^[a-z][a-z0-9_]{0,63}$");
                }
                if (!e.getValue().isObject()) {
                    throw fail(where, "must be a table");
                }
                out.add(arg(name, where, (ObjectNode) e.getValue(), customTypes, declaredExec));
            }
            out.sort(Comparator.comparingInt(ArgDef::position).thenComparing(ArgDef::name));
            return out;
        }

        ArgDef arg(String name, String where, ObjectNode t, Map<String, ObjectNode> customTypes, boolean declaredExec) {
            only(t, where, ARG);
            String typeName = string(t, where, "type", null);
            ObjectNode merged = t.deepCopy();
            ArgType type = ArgType.byName(typeName).orElse(null);
            if (type == null) {
                ObjectNode custom = customTypes.get(typeName);
                if (custom == null) {
                    throw fail(where + " type", "'" + clip(typeName) + "' is neither a built-in type nor a custom type"
                            + " from toolclad.toml");
                }
                type = ArgType.byName(custom.get("base").stringValue()).orElseThrow();
                for (Map.Entry<String, JsonNode> c : custom.properties()) {
                    if (!c.getKey().equals("base") && !merged.has(c.getKey())) {
                        merged.set(c.getKey(), c.getValue());
                    }
                }
            }
            for (String s : strings(merged, where, "sanitize")) {
                if (!s.equals("injection")) {
                    throw fail(where + " sanitize", "knows only \"injection\" (always applied), got \"" + clip(s) + "\"");
                }
            }
            List<String> allowed = strings(merged, where, "allowed");
            if (type == ArgType.ENUM && allowed.isEmpty()) {
                throw fail(where + " allowed", "must list the enum's values");
            }
            if (type != ArgType.ENUM && !allowed.isEmpty()) {
                throw fail(where + " allowed", "applies only to type enum");
            }
            for (String a : allowed) {
                if (a.isEmpty() || a.indexOf('\0') >= 0 || a.length() > Values.MAX_CHARS) {
                    throw fail(where + " allowed", "values must be 1-" + Values.MAX_CHARS + " characters without NUL");
                }
            }
            String pattern = merged.has("pattern") ? string(merged, where, "pattern", null) : null;
            if (pattern != null && type != ArgType.STRING && type != ArgType.REGEX_MATCH) {
                throw fail(where + " pattern", "applies only to string and regex_match");
            }
            if (type == ArgType.REGEX_MATCH && pattern == null) {
                throw fail(where + " pattern", "is required for regex_match");
            }
            if (pattern != null) {
                try {
                    BoundedPattern.anchor(pattern);
                } catch (IllegalArgumentException ex) {
                    throw fail(where + " pattern", ex.getMessage());
                }
            }
            Long min = integer(merged, where, "min");
            Long max = integer(merged, where, "max");
            if ((min != null || max != null) && type != ArgType.INTEGER && type != ArgType.PORT) {
                throw fail(where + " min/max", "apply only to integer and port (number uses min_float/max_float)");
            }
            BigDecimal minF = decimal(merged, where, "min_float");
            BigDecimal maxF = decimal(merged, where, "max_float");
            if ((minF != null || maxF != null) && type != ArgType.NUMBER) {
                throw fail(where + " min_float/max_float", "apply only to number");
            }
            if ((min != null && max != null && min > max) || (minF != null && maxF != null && minF.compareTo(maxF) > 0)) {
                throw fail(where + " min", "is greater than max");
            }
            List<String> schemes = strings(merged, where, "schemes");
            if (!schemes.isEmpty() && type != ArgType.URL) {
                throw fail(where + " schemes", "applies only to url");
            }
            if (type == ArgType.URL) {
                if (schemes.isEmpty()) {
                    schemes = List.of("http", "https");
                }
                for (String s : schemes) {
                    if (!s.matches("[a-z][a-z0-9+.]{0,31}")
                            || Set.of("file", "javascript", "data", "vbscript", "jar", "netdoc", "gopher", "dict",
                                    "ldap", "ldaps").contains(s)) {
                        throw fail(where + " schemes", "'" + clip(s) + "' is not a scheme that may be allowed");
                    }
                }
            }
            boolean scopeCheck = bool(t, where, "scope_check");
            boolean blockInternal = bool(t, where, "block_internal");
            if ((scopeCheck || blockInternal) && !type.networkTarget()) {
                throw fail(where + (scopeCheck ? " scope_check" : " block_internal"),
                        "applies only to scope_target, url, ip_address and cidr");
            }
            if (!ArgType.byName(typeName).isPresent()
                    && (customTypes.get(typeName).has("scope_check") || customTypes.get(typeName).has("block_internal"))) {
                throw fail(where + " type", "a custom type cannot carry scope_check or block_internal");
            }
            boolean allowWhitespace = bool(merged, where, "allow_whitespace");
            if (allowWhitespace && !declaredExec) {
                warnings.add(where + " allow_whitespace is ignored: it is honoured only with [command] exec (or a"
                        + " callback-only contract)");
                allowWhitespace = false;
            }
            Long position = integer(t, where, "position");
            ArgDef def = new ArgDef(name, type, typeName, t.has("description") ? string(t, where, "description", null)
                    : "", bool(t, where, "required"), position == null ? Integer.MAX_VALUE : (int) Math.max(0,
                    Math.min(Integer.MAX_VALUE, position)), null, allowed, pattern, min, max, minF, maxF,
                    bool(merged, where, "clamp"), schemes, scopeCheck, blockInternal, allowWhitespace,
                    bool(merged, where, "allow_leading_dash"));
            JsonNode dflt = t.get("default");
            if (dflt != null) {
                if (dflt.isContainer()) {
                    throw fail(where + " default", "must be a string, number or boolean");
                }
                if (!(dflt.isString() && dflt.stringValue().isEmpty())) {
                    try {
                        Values.check(def, dflt, new Values.Checks(ScopeRules.NONE, null,
                                pattern == null ? Map.of() : Map.of(name, BoundedPattern.anchor(pattern))));
                    } catch (ValueProblem p) {
                        if (p.reason() != Reasons.OUT_OF_SCOPE || !scopeCheck) {
                            throw fail(where + " default", "is not a valid value: " + p.getMessage());
                        }
                    }
                }
                def = def.withDefault(dflt);
            }
            return def;
        }

        CommandPlan command(ObjectNode t, List<ArgDef> args, Manifest.ToolInfo tool) {
            only(t, "[command]", COMMAND);
            if (t.has("executor")) {
                throw fail("[command] executor", "names a custom executor script, which ToolYard does not run;"
                        + " declare the argv with exec");
            }
            Map<String, String> defaults = new LinkedHashMap<>();
            if (t.has("defaults")) {
                ObjectNode d = table(t, "defaults", true);
                for (Map.Entry<String, JsonNode> e : d.properties()) {
                    JsonNode v = e.getValue();
                    if (!v.isValueNode() || v.isNull()) {
                        throw fail("[command.defaults] " + e.getKey(), "must be a string, number or boolean");
                    }
                    String text = v.isString() ? v.stringValue() : v.asString();
                    if (text.indexOf('\0') >= 0) {
                        throw fail("[command.defaults] " + e.getKey(), "contains a NUL character");
                    }
                    defaults.put(e.getKey(), text);
                }
            }
            Set<String> argNames = new HashSet<>();
            Map<String, ArgDef> byName = new HashMap<>();
            for (ArgDef a : args) {
                argNames.add(a.name());
                byName.put(a.name(), a);
            }
            Map<String, Map<String, List<String>>> mappings = new LinkedHashMap<>();
            if (t.has("mappings")) {
                ObjectNode m = table(t, "mappings", true);
                for (Map.Entry<String, JsonNode> e : m.properties()) {
                    String where = "[command.mappings." + e.getKey() + "]";
                    ArgDef a = byName.get(e.getKey());
                    if (a == null || a.type() != ArgType.ENUM) {
                        throw fail(where, "must map an enum argument");
                    }
                    if (!e.getValue().isObject()) {
                        throw fail(where, "must be a table of strings");
                    }
                    Map<String, List<String>> tokens = new LinkedHashMap<>();
                    for (Map.Entry<String, JsonNode> v : e.getValue().properties()) {
                        if (!a.allowed().contains(v.getKey())) {
                            throw fail(where + " " + v.getKey(), "is not one of the argument's allowed values");
                        }
                        tokens.put(v.getKey(), mappingTokens(where + " " + v.getKey(), v.getValue()));
                    }
                    for (String allowed : a.allowed()) {
                        if (!tokens.containsKey(allowed)) {
                            throw fail(where, "has no entry for the allowed value '" + clip(allowed) + "'");
                        }
                    }
                    mappings.put(e.getKey(), tokens);
                }
            }
            boolean declaredExec = t.has("exec");
            List<String> exec;
            if (declaredExec) {
                exec = strings(t, "[command]", "exec");
                if (t.has("template")) {
                    warnings.add("[command] template is ignored: exec takes precedence");
                }
            } else if (t.has("template")) {
                warnings.add("[command] template is deprecated: it was tokenised into an exec array at load; declare"
                        + " exec instead");
                exec = tokenize("[command] template", string(t, "[command]", "template", null));
            } else {
                throw fail("[command] exec", "is missing");
            }
            if (exec.isEmpty()) {
                throw fail("[command] exec", "must have at least one element");
            }
            if (exec.size() > 256) {
                throw fail("[command] exec", "has more than 256 elements");
            }
            Map<String, CommandPlan.Conditional> conditionals = new LinkedHashMap<>();
            if (t.has("conditionals")) {
                ObjectNode c = table(t, "conditionals", true);
                for (Map.Entry<String, JsonNode> e : c.properties()) {
                    String where = "[command.conditionals." + e.getKey() + "]";
                    if (!e.getValue().isObject()) {
                        throw fail(where, "must be a table with when and template (or exec)");
                    }
                    ObjectNode ct = (ObjectNode) e.getValue();
                    only(ct, where, CONDITIONAL);
                    List<CommandPlan.Clause> when = when(where + " when", string(ct, where, "when", null), argNames);
                    List<String> tokens = ct.has("exec") ? strings(ct, where, "exec")
                            : tokenize(where + " template", string(ct, where, "template", null));
                    List<CommandPlan.Element> elements = new ArrayList<>();
                    for (int i = 0; i < tokens.size(); i++) {
                        CommandPlan.Element el = element(where + " element " + i, tokens.get(i), argNames, defaults,
                                Map.of(), Map.of());
                        if (!(el instanceof CommandPlan.Fixed) && !(el instanceof CommandPlan.Value)) {
                            throw fail(where, "may hold only literals and argument placeholders");
                        }
                        elements.add(el);
                    }
                    conditionals.put(e.getKey(), new CommandPlan.Conditional(e.getKey(), when, elements));
                }
            }
            List<CommandPlan.Element> elements = new ArrayList<>();
            for (int i = 0; i < exec.size(); i++) {
                elements.add(element("[command] exec[" + i + "]", exec.get(i), argNames, defaults, mappings,
                        conditionals));
            }
            if (!(elements.get(0) instanceof CommandPlan.Fixed first) || first.text().isEmpty()) {
                throw fail("[command] exec[0]", "must be a literal program name, never a placeholder");
            }
            if (!tool.allowInterpreter() && interpreter(first.text())) {
                throw fail("[command] exec[0]", "is a shell or interpreter ('" + clip(basename(first.text()))
                        + "'), refused unless [tool] allow_interpreter = true");
            }
            String eoo = t.has("end_of_options") ? string(t, "[command]", "end_of_options", null) : null;
            if (eoo != null && !eoo.equals("--")) {
                throw fail("[command] end_of_options", "accepts only \"--\"");
            }
            return new CommandPlan(elements, eoo != null, declaredExec);
        }

        private List<String> mappingTokens(String where, JsonNode v) {
            List<String> out = new ArrayList<>();
            if (v.isString()) {
                for (String s : v.stringValue().trim().split("\\s+")) {
                    if (!s.isEmpty()) {
                        out.add(s);
                    }
                }
            } else if (v.isArray()) {
                for (JsonNode item : v) {
                    if (!item.isString()) {
                        throw fail(where, "must be a string or an array of strings");
                    }
                    out.add(item.stringValue());
                }
            } else {
                throw fail(where, "must be a string or an array of strings");
            }
            for (String s : out) {
                if (s.indexOf('{') >= 0 || s.indexOf('}') >= 0 || s.indexOf('\0') >= 0) {
                    throw fail(where, "must hold literal flags only (no placeholders, no NUL)");
                }
            }
            return out;
        }

        private CommandPlan.Element element(String where, String token, Set<String> args, Map<String, String> defaults,
                Map<String, Map<String, List<String>>> mappings, Map<String, CommandPlan.Conditional> conditionals) {
            List<CommandPlan.Part> parts = parts(where, token);
            if (parts.isEmpty()) {
                return new CommandPlan.Fixed("");
            }
            boolean placeholder = parts.stream().anyMatch(p -> p instanceof CommandPlan.Placeholder);
            if (!placeholder) {
                return new CommandPlan.Fixed(((CommandPlan.Literal) parts.get(0)).text());
            }
            if (parts.size() != 1) {
                throw fail(where, "mixes a placeholder with other text; a placeholder must be a whole element"
                        + " (split it: [\"--flag\", \"{value}\"])");
            }
            String name = ((CommandPlan.Placeholder) parts.get(0)).name();
            if (args.contains(name)) {
                return new CommandPlan.Value(name);
            }
            if (defaults.containsKey(name)) {
                return new CommandPlan.Fixed(defaults.get(name));
            }
            if (name.startsWith("_secret:")) {
                throw fail(where, "uses a secret placeholder, which ToolYard does not resolve");
            }
            if (name.equals("_conditional_flags")) {
                return new CommandPlan.Conditionals(new ArrayList<>(conditionals.values()));
            }
            if (name.startsWith("_")) {
                String stem = name.substring(1);
                String bare = stem.endsWith("_flags") ? stem.substring(0, stem.length() - 6) : stem;
                for (String candidate : List.of(bare, bare + "_type", stem)) {
                    if (mappings.containsKey(candidate)) {
                        return new CommandPlan.Mapped(candidate, mappings.get(candidate));
                    }
                    if (conditionals.containsKey(candidate)) {
                        return conditionals.get(candidate);
                    }
                }
            }
            throw fail(where, "placeholder {" + clip(name) + "} names no argument, default, mapping or conditional"
                    + " (executor-injected placeholders such as {_output_file} are not supported)");
        }

        /** Splits template text into literals and placeholders; {@code {{} and {@code }}} are literal braces. */
        List<CommandPlan.Part> parts(String where, String s) {
            return parts(where, s, false);
        }

        /**
         * As {@link #parts(String, String)}; {@code lenient} (HTTP templates, whose JSON bodies hold
         * braces) reads a brace that does not open {@code {name}} as literal text.
         */
        List<CommandPlan.Part> parts(String where, String s, boolean lenient) {
            List<CommandPlan.Part> out = new ArrayList<>();
            StringBuilder lit = new StringBuilder();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '{' && i + 1 < s.length() && s.charAt(i + 1) == '{') {
                    lit.append('{');
                    i++;
                } else if (c == '}' && i + 1 < s.length() && s.charAt(i + 1) == '}') {
                    lit.append('}');
                    i++;
                } else if (c == '{' && lenient && !PLACEHOLDER_AT.matcher(s).region(i, s.length()).lookingAt()) {
                    lit.append(c);
                } else if (c == '{') {
                    int close = s.indexOf('}', i);
                    if (close < 0) {
                        throw fail(where, "has an unclosed '{' (write {{ for a literal brace)");
                    }
                    String name = s.substring(i + 1, close);
                    if (!name.matches("_?[a-z][a-z0-9_]{0,63}|_secret:[a-z0-9_]{1,64}")) {
                        throw fail(where, "has a placeholder that is not a name: {" + clip(name) + "}");
                    }
                    if (lit.length() > 0) {
                        out.add(new CommandPlan.Literal(lit.toString()));
                        lit.setLength(0);
                    }
                    out.add(new CommandPlan.Placeholder(name));
                    i = close;
                } else if (c == '}' && !lenient) {
                    throw fail(where, "has a lone '}' (write }} for a literal brace)");
                } else {
                    lit.append(c);
                }
            }
            if (lit.length() > 0 || out.isEmpty()) {
                out.add(new CommandPlan.Literal(lit.toString()));
            }
            return out;
        }

        /**
         * The deprecated template form: split on whitespace, single or double quotes group a token. A
         * quoted placeholder is refused: a placeholder must be a whole, unquoted token.
         */
        List<String> tokenize(String where, String template) {
            List<String> out = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            boolean inToken = false;
            for (int i = 0; i < template.length(); i++) {
                char c = template.charAt(i);
                if (c == '\'' || c == '"') {
                    int close = template.indexOf(c, i + 1);
                    if (close < 0) {
                        throw fail(where, "has an unclosed quote");
                    }
                    String quoted = template.substring(i + 1, close);
                    if (parts(where, quoted).stream().anyMatch(p -> p instanceof CommandPlan.Placeholder)) {
                        throw fail(where, "quotes a placeholder; a placeholder must be a whole, unquoted token");
                    }
                    cur.append(quoted.replace("\\\\", "\\"));
                    inToken = true;
                    i = close;
                } else if (Character.isWhitespace(c)) {
                    if (inToken) {
                        out.add(cur.toString());
                        cur.setLength(0);
                        inToken = false;
                    }
                } else {
                    cur.append(c);
                    inToken = true;
                }
            }
            if (inToken) {
                out.add(cur.toString());
            }
            return out;
        }

        private List<CommandPlan.Clause> when(String where, String text, Set<String> args) {
            List<CommandPlan.Clause> out = new ArrayList<>();
            for (String clause : text.trim().split("\\s+and\\s+")) {
                java.util.regex.Matcher m = Pattern
                        .compile("^\\s*([a-z][a-z0-9_]*)\\s*(==|!=)\\s*(?:'([^']*)'|\"([^\"]*)\"|([A-Za-z0-9_.:/-]+))\\s*$")
                        .matcher(clause);
                if (!m.matches()) {
                    throw fail(where, "must be clauses 'arg == value' or 'arg != value' joined by 'and'");
                }
                if (!args.contains(m.group(1))) {
                    throw fail(where, "names '" + clip(m.group(1)) + "', which is not an argument");
                }
                String literal = m.group(3) != null ? m.group(3) : m.group(4) != null ? m.group(4) : m.group(5);
                out.add(new CommandPlan.Clause(m.group(1), m.group(2).equals("=="), literal));
            }
            return out;
        }

        Manifest.Http http(ObjectNode t, List<ArgDef> args) {
            only(t, "[http]", HTTP);
            String method = string(t, "[http]", "method", "GET").toUpperCase(Locale.ROOT);
            if (!METHODS.contains(method)) {
                throw fail("[http] method", "must be one of " + METHODS);
            }
            Set<String> argNames = new HashSet<>();
            for (ArgDef a : args) {
                argNames.add(a.name());
            }
            String url = string(t, "[http]", "url", null);
            List<CommandPlan.Part> urlParts = httpParts("[http] url", url, argNames);
            // The first literal must hold the scheme and the whole authority, ended by '/', '?' or the
            // template's end, so no value can reach the host, the port or user info.
            if (!(urlParts.get(0) instanceof CommandPlan.Literal first)
                    || !(first.text().matches("(?s)https?://[^/?#{}]+[/?].*")
                            || (urlParts.size() == 1 && first.text().matches("https?://[^/?#{}]+")))) {
                throw fail("[http] url", "must start with a literal http:// or https:// scheme and host; a model's value"
                        + " never chooses the host");
            }
            Map<String, List<CommandPlan.Part>> headers = new LinkedHashMap<>();
            Map<String, String> headerTemplates = new LinkedHashMap<>();
            if (t.has("headers")) {
                ObjectNode h = table(t, "headers", true);
                for (Map.Entry<String, JsonNode> e : h.properties()) {
                    if (!e.getValue().isString() || !e.getKey().matches("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}")) {
                        throw fail("[http.headers] " + clip(e.getKey()), "must be a header name with a string value");
                    }
                    headers.put(e.getKey(), httpParts("[http.headers] " + e.getKey(), e.getValue().stringValue(), argNames));
                    headerTemplates.put(e.getKey(), e.getValue().stringValue());
                }
            }
            List<CommandPlan.Part> body = t.has("body_template")
                    ? httpParts("[http] body_template", string(t, "[http]", "body_template", null), argNames) : null;
            Set<Integer> success = new LinkedHashSet<>();
            for (String key : List.of("success_status", "error_status")) {
                JsonNode n = t.get(key);
                if (n == null) {
                    continue;
                }
                if (!n.isArray()) {
                    throw fail("[http] " + key, "must be an array of status codes");
                }
                for (JsonNode s : n) {
                    if (!s.isIntegralNumber() || s.intValue() < 100 || s.intValue() > 599) {
                        throw fail("[http] " + key, "must hold status codes 100-599");
                    }
                    if (key.equals("success_status")) {
                        success.add(s.intValue());
                    }
                }
            }
            return new Manifest.Http(method, url, urlParts, headers, headerTemplates, body, success);
        }

        private List<CommandPlan.Part> httpParts(String where, String s, Set<String> args) {
            List<CommandPlan.Part> parts = parts(where, s, true);
            for (CommandPlan.Part p : parts) {
                if (p instanceof CommandPlan.Placeholder ph) {
                    if (ph.name().startsWith("_secret:")) {
                        throw fail(where, "uses a secret placeholder, which ToolYard does not resolve yet");
                    }
                    if (!args.contains(ph.name())) {
                        throw fail(where, "placeholder {" + clip(ph.name()) + "} names no argument");
                    }
                }
            }
            return parts;
        }

        Manifest.Output output(ObjectNode t) {
            only(t, "[output]", OUTPUT);
            String format = string(t, "[output]", "format", "text");
            String parser = string(t, "[output]", "parser", "builtin:" + format);
            if (!parser.startsWith("builtin:")) {
                throw fail("[output] parser", "names a custom parser script; custom output parsers are not supported"
                        + " (use builtin:text, builtin:json, builtin:jsonl, builtin:csv or builtin:xml)");
            }
            String name = parser.substring("builtin:".length());
            if (!PARSERS.contains(name)) {
                throw fail("[output] parser", "must be builtin:text, builtin:json, builtin:jsonl, builtin:csv or"
                        + " builtin:xml");
            }
            if (!PARSERS.contains(format)) {
                throw fail("[output] format", "must be text, json, jsonl, csv or xml");
            }
            Long max = integer(t, "[output]", "max_bytes");
            if (max != null && (max < 256 || max > (64L << 20))) {
                throw fail("[output] max_bytes", "must be 256 to 67108864, got " + max);
            }
            if (t.has("envelope") && !bool(t, "[output]", "envelope")) {
                warnings.add("[output] envelope = false is ignored: the evidence envelope is what the model sees and"
                        + " what is recorded");
            }
            ObjectNode schema = null;
            if (t.has("schema")) {
                schema = table(t, "schema", true);
                try {
                    OutputSchema.check(schema);
                } catch (IllegalArgumentException e) {
                    throw fail("[output.schema]", e.getMessage());
                }
            }
            return new Manifest.Output(name, max == null ? DEFAULT_MAX_BYTES : max, true, schema);
        }
    }

    static boolean interpreter(String binary) {
        String base = basename(binary);
        return !base.isEmpty() && (INTERPRETERS.contains(base) || VERSIONED_INTERPRETER.matcher(base).matches());
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }
}
