package dev.toolyard.contracts;

import dev.toolyard.contracts.internal.TargetHosts;
import dev.toolyard.contracts.internal.ManifestReader;
import dev.toolyard.contracts.internal.ScopeRules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The targets a contract's {@code scope_check = true} arguments may name, from a ToolClad scope file,
 * always given explicitly by the application (never discovered from the environment or the working
 * directory). {@link #none()} is the absent scope: binding a manifest that has a {@code scope_check}
 * argument to it fails at bind time, so a missing scope is never a pass.
 *
 * <pre>
 * [scope]
 * allowed_domains = ["example.com", "*.example.com"]
 * allowed_cidrs   = ["10.0.1.0/24"]
 * blocked_domains = []
 * blocked_cidrs   = []
 * </pre>
 *
 * Blocked rules win; {@code *.example.com} matches strict subdomains only. Unknown keys are refused.
 * Immutable. Thread-safe.
 */
public final class Scope {
    private static final Scope NONE = new Scope(ScopeRules.NONE);
    private static final Set<String> KEYS = Set.of("allowed_domains", "allowed_cidrs", "blocked_domains", "blocked_cidrs");

    private final ScopeRules rules;

    private Scope(ScopeRules rules) {
        this.rules = rules;
    }

    /** @return the absent scope; never {@code null} */
    public static Scope none() {
        return NONE;
    }

    /**
     * @param file a scope file
     * @return its scope
     * @throws ContractException naming the file and key if it is not a valid scope file
     * @throws UncheckedIOException if it cannot be read
     */
    public static Scope load(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            return parse(file.getFileName().toString(), Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read scope file " + file, e);
        }
    }

    /**
     * @param name the file name used in messages
     * @param text the scope file's text
     * @return its scope
     * @throws ContractException naming the key if it is not a valid scope file
     */
    public static Scope parse(String name, String text) {
        ObjectNode root = ManifestReader.parse(name, text);
        for (String k : root.propertyNames()) {
            if (!k.equals("scope")) {
                throw new ContractException(name + ": key '" + k + "' is not a known key (a scope file has [scope])");
            }
        }
        JsonNode scope = root.get("scope");
        if (scope == null || !scope.isObject()) {
            throw new ContractException(name + ": [scope] is missing");
        }
        for (String k : scope.propertyNames()) {
            if (!KEYS.contains(k)) {
                throw new ContractException(name + ": [scope] key '" + k + "' is not a known key (known: "
                        + new java.util.TreeSet<>(KEYS) + ")");
            }
        }
        return new Scope(new ScopeRules(domains(name, scope, "allowed_domains"), cidrs(name, scope, "allowed_cidrs"),
                domains(name, scope, "blocked_domains"), cidrs(name, scope, "blocked_cidrs"), true));
    }

    private static List<String> strings(String name, JsonNode scope, String key) {
        JsonNode n = scope.get(key);
        List<String> out = new ArrayList<>();
        if (n == null) {
            return out;
        }
        if (!n.isArray()) {
            throw new ContractException(name + ": [scope] " + key + " must be an array of strings");
        }
        for (JsonNode item : n) {
            if (!item.isString()) {
                throw new ContractException(name + ": [scope] " + key + " must be an array of strings");
            }
            out.add(item.stringValue());
        }
        return out;
    }

    private static List<String> domains(String name, JsonNode scope, String key) {
        List<String> out = new ArrayList<>();
        List<String> raw = strings(name, scope, key);
        for (int i = 0; i < raw.size(); i++) {
            String d = raw.get(i).toLowerCase(Locale.ROOT);
            String host = d.startsWith("*.") ? d.substring(2) : d;
            if (!TargetHosts.hostname(host)) {
                throw new ContractException(name + ": [scope] " + key + "[" + i + "] '" + raw.get(i)
                        + "' is not a host name or *.host name");
            }
            out.add(d);
        }
        return out;
    }

    private static List<TargetHosts.Cidr> cidrs(String name, JsonNode scope, String key) {
        List<TargetHosts.Cidr> out = new ArrayList<>();
        List<String> raw = strings(name, scope, key);
        for (int i = 0; i < raw.size(); i++) {
            TargetHosts.Cidr c = TargetHosts.cidr(raw.get(i));
            if (c == null) {
                byte[] ip = TargetHosts.ip(raw.get(i));
                if (ip == null) {
                    throw new ContractException(name + ": [scope] " + key + "[" + i + "] '" + raw.get(i)
                            + "' is not a CIDR range or IP address");
                }
                c = new TargetHosts.Cidr(ip, ip.length * 8);
            }
            out.add(c);
        }
        return out;
    }

    ScopeRules rules() {
        return rules;
    }

    /** @return whether this is a scope file's scope rather than {@link #none()} */
    public boolean isPresent() {
        return rules.present();
    }

    @Override
    public String toString() {
        // Counts only: the members are an allowlist, never shown.
        return rules.present() ? "Scope[" + rules.allowedDomains().size() + " domains, " + rules.allowedCidrs().size()
                + " ranges allowed; " + (rules.blockedDomains().size() + rules.blockedCidrs().size()) + " blocked]"
                : "Scope[none]";
    }
}
