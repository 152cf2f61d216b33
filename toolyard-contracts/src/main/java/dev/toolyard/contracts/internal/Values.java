package dev.toolyard.contracts.internal;

import dev.toolyard.Reason;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.StringNode;

/**
 * ToolClad's value hygiene and its 15 types. Every value is checked in ToolClad's order before its
 * type's own parsing: (1) NUL, for every type, {@code enum} included; (2) control characters
 * (U+0000-U+001F, U+007F; also C1 controls and invisible format characters such as bidirectional
 * overrides, stricter than ToolClad); (3) {@code '}, {@code "} and {@code \}; (4) whitespace, unless
 * the argument sets {@code allow_whitespace} in a manifest that declares {@code command.exec}
 * ({@code msf_options} is exempt: a space separates its key and value); (5) a leading {@code -} or
 * {@code +} unless {@code allow_leading_dash}; numeric types apply this rule to the value after
 * clamping. String-derived types then refuse the shell metacharacters {@code ;|&$`(){}[]<>!}.
 *
 * <p>Choices where ToolClad's runtimes disagree: values are never trimmed (a space is refused, not
 * removed); {@code True} is accepted and normalised to {@code true}; integers print in plain decimal
 * without sign for positives ({@code +5} becomes {@code 5}); numbers print as the shortest plain
 * decimal ({@code 1.50} becomes {@code 1.5}, {@code 2.0} becomes {@code 2}); URL schemes default to
 * http and https. A refusal names the rule and never echoes the value. Stateless. Thread-safe.
 */
public final class Values {
    /** Longest value of any type, in characters: run_command's argv item limit. */
    public static final int MAX_CHARS = 4096;
    private static final String METACHARACTERS = ";|&$`(){}[]<>!";
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]{1,19}");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]{1,40}(?:\\.[0-9]{0,40})?|\\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?");
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,5}");
    private static final Pattern DURATION = Pattern.compile("[0-9]{1,9}|(?=[0-9])(?:[0-9]{1,9}h)?(?:[0-9]{1,9}m(?!s))?(?:[0-9]{1,9}s)?(?:[0-9]{1,9}ms)?");
    private static final Pattern MSF_KEY = Pattern.compile("[A-Z][A-Z0-9_]{0,63}");
    private static final java.util.Set<String> DANGEROUS_SCHEMES = java.util.Set.of(
            "file", "javascript", "data", "vbscript", "jar", "netdoc", "gopher", "dict", "ldap", "ldaps", "ftp",
            "smb", "tftp", "mailto", "telnet");

    /** What the checks need beyond the value: the scope and, for {@code credential_file}, the workspace. */
    public record Checks(ScopeRules scope, Path workspace, Map<String, BoundedPattern> patterns) {}

    /**
     * A valid value: the text that goes into the argv (or request) and the JSON the handler sees.
     *
     * @param text the normalised text
     * @param json the normalised JSON value
     */
    public record Valid(String text, JsonNode json) {}

    private Values() {}

    /**
     * Checks one value.
     *
     * @param def the argument
     * @param raw the model's JSON value (not {@code null}, not JSON null)
     * @param checks the scope, workspace and compiled patterns
     * @return the normalised value
     * @throws ValueProblem {@code args_invalid} naming the argument and rule, or {@code out_of_scope}
     */
    public static Valid check(ArgDef def, JsonNode raw, Checks checks) throws ValueProblem {
        String arg = "argument '" + def.name() + "' (" + def.typeName() + ")";
        String text;
        if (raw.isString()) {
            text = raw.stringValue();
        } else if (def.type().numeric() && raw.isNumber()) {
            if ((raw.isDouble() || raw.isFloat()) && !Double.isFinite(raw.doubleValue())) {
                throw invalid(arg, "must be a finite number"); // 1e400 parses as infinity: no decimal to print
            }
            text = raw.isIntegralNumber() ? raw.bigIntegerValue().toString() : raw.decimalValue().toString();
        } else if (def.type() == ArgType.BOOLEAN && raw.isBoolean()) {
            text = raw.booleanValue() ? "true" : "false";
        } else {
            throw invalid(arg, "must be " + (def.type().numeric() ? "a number or a string holding one"
                    : def.type() == ArgType.BOOLEAN ? "a boolean or the string true or false" : "a string"));
        }
        if (text.length() > MAX_CHARS) {
            throw invalid(arg, "is longer than " + MAX_CHARS + " characters");
        }
        if (text.indexOf('\0') >= 0) {
            throw invalid(arg, "contains a NUL character");
        }
        if (def.type() == ArgType.ENUM) {
            if (!def.allowed().contains(text)) {
                throw invalid(arg, "must be one of the declared values " + clip(def.allowed().toString(), 300));
            }
            return new Valid(text, StringNode.valueOf(text));
        }
        hygiene(def, arg, text);
        switch (def.type()) {
            case INTEGER:
                return integer(def, arg, text);
            case NUMBER:
                return number(def, arg, text);
            case PORT:
                return port(def, arg, text);
            case BOOLEAN: {
                String lower = text.toLowerCase(Locale.ROOT);
                if (!lower.equals("true") && !lower.equals("false")) {
                    throw invalid(arg, "must be true or false");
                }
                return new Valid(lower, BooleanNode.valueOf(lower.equals("true")));
            }
            default:
                break;
        }
        if (def.type() != ArgType.MSF_OPTIONS) {
            refuseMetacharacters(arg, text);
        }
        String out = switch (def.type()) {
            case STRING -> pattern(def, arg, text, checks, false);
            case REGEX_MATCH -> pattern(def, arg, text, checks, true);
            case SCOPE_TARGET -> scopeTarget(def, arg, text, checks.scope());
            case URL -> url(def, arg, text, checks.scope());
            case PATH -> path(arg, text);
            case CREDENTIAL_FILE -> credentialFile(arg, path(arg, text), checks.workspace());
            case IP_ADDRESS -> ipAddress(def, arg, text, checks.scope());
            case CIDR -> cidr(def, arg, text, checks.scope());
            case MSF_OPTIONS -> msfOptions(arg, text);
            case DURATION -> duration(arg, text);
            default -> throw new AssertionError(def.type());
        };
        return new Valid(out, StringNode.valueOf(out));
    }

    private static void hygiene(ArgDef def, String arg, String text) throws ValueProblem {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || Character.getType(cp) == Character.FORMAT
                    || Character.getType(cp) == Character.SURROGATE) {
                throw invalid(arg, "contains a control or invisible character (U+" + String.format("%04X", cp) + ")");
            }
            i += Character.charCount(cp);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"' || c == '\\') {
                throw invalid(arg, "contains a quote or backslash");
            }
        }
        if (def.type() != ArgType.MSF_OPTIONS && !def.allowWhitespace()) {
            for (int i = 0; i < text.length(); ) {
                int cp = text.codePointAt(i);
                if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                    throw invalid(arg, "contains whitespace (the manifest does not allow_whitespace)");
                }
                i += Character.charCount(cp);
            }
        }
        if (!def.type().numeric()) {
            leadingDash(def, arg, text);
        }
    }

    private static void leadingDash(ArgDef def, String arg, String text) throws ValueProblem {
        if (!def.allowLeadingDash() && !text.isEmpty() && (text.charAt(0) == '-' || text.charAt(0) == '+')) {
            throw invalid(arg, "starts with '-' or '+', which a command could read as an option");
        }
    }

    private static void refuseMetacharacters(String arg, String text) throws ValueProblem {
        for (int i = 0; i < text.length(); i++) {
            if (METACHARACTERS.indexOf(text.charAt(i)) >= 0) {
                throw invalid(arg, "contains the shell metacharacter '" + text.charAt(i) + "'");
            }
        }
    }

    private static Valid integer(ArgDef def, String arg, String text) throws ValueProblem {
        if (!INTEGER.matcher(text).matches()) {
            throw invalid(arg, "must be a whole number of at most 19 digits");
        }
        BigInteger big = new BigInteger(text);
        if (big.bitLength() > 63) {
            throw invalid(arg, "is out of the 64-bit range");
        }
        long v = big.longValue();
        v = bounded(def, arg, v, def.min(), def.max());
        String out = Long.toString(v);
        leadingDash(def, arg, out);
        return new Valid(out, LongNode.valueOf(v));
    }

    private static long bounded(ArgDef def, String arg, long v, Long min, Long max) throws ValueProblem {
        if (min != null && v < min) {
            if (!def.clamp()) {
                throw invalid(arg, "must be at least " + min);
            }
            return min;
        }
        if (max != null && v > max) {
            if (!def.clamp()) {
                throw invalid(arg, "must be at most " + max);
            }
            return max;
        }
        return v;
    }

    private static Valid number(ArgDef def, String arg, String text) throws ValueProblem {
        if (!DECIMAL.matcher(text).matches()) {
            throw invalid(arg, "must be a finite decimal number (no NaN or infinity)");
        }
        BigDecimal v = new BigDecimal(text);
        double d = v.doubleValue();
        if (Double.isInfinite(d) || Double.isNaN(d)) {
            throw invalid(arg, "is out of the range of a double");
        }
        if (def.minFloat() != null && v.compareTo(def.minFloat()) < 0) {
            if (!def.clamp()) {
                throw invalid(arg, "must be at least " + def.minFloat().toPlainString());
            }
            v = def.minFloat();
        } else if (def.maxFloat() != null && v.compareTo(def.maxFloat()) > 0) {
            if (!def.clamp()) {
                throw invalid(arg, "must be at most " + def.maxFloat().toPlainString());
            }
            v = def.maxFloat();
        }
        BigDecimal normal = v.signum() == 0 ? BigDecimal.ZERO : v.stripTrailingZeros();
        if (normal.scale() < 0) {
            normal = normal.setScale(0);
        }
        String out = normal.toPlainString();
        if (!DECIMAL.matcher(out).matches()) {
            // 1e-63 written out has 63 decimals: refused here, so what a command receives always re-validates
            throw invalid(arg, "needs more than 40 digits on a side of the decimal point when written out");
        }
        leadingDash(def, arg, out);
        return new Valid(out, DecimalNode.valueOf(normal));
    }

    private static Valid port(ArgDef def, String arg, String text) throws ValueProblem {
        if (!DIGITS.matcher(text).matches()) {
            throw invalid(arg, "must be a port number, 1-65535, digits only");
        }
        int v = Integer.parseInt(text);
        if (v < 1 || v > 65535) {
            throw invalid(arg, "must be a port number, 1-65535");
        }
        long bounded = bounded(def, arg, v, def.min(), def.max());
        return new Valid(Long.toString(bounded), LongNode.valueOf(bounded));
    }

    private static String pattern(ArgDef def, String arg, String text, Checks checks, boolean required)
            throws ValueProblem {
        if (def.pattern() == null) {
            if (required) {
                throw new AssertionError("regex_match without a pattern passed the load checks");
            }
            return text;
        }
        BoundedPattern p = checks.patterns().get(def.name());
        if (p == null || !p.matches(text)) {
            throw invalid(arg, "does not match the declared pattern " + clip(def.pattern(), 200));
        }
        return text;
    }

    private static String scopeTarget(ArgDef def, String arg, String text, ScopeRules scope) throws ValueProblem {
        if (text.isEmpty()) {
            throw invalid(arg, "must not be empty");
        }
        if (text.length() > 253) {
            throw invalid(arg, "is longer than 253 characters");
        }
        if (text.indexOf('*') >= 0 || text.indexOf('?') >= 0) {
            throw invalid(arg, "must not be a wildcard");
        }
        if (text.contains("..") || text.indexOf('%') >= 0) {
            throw invalid(arg, "must not contain '..' or percent-encoding");
        }
        nonAscii(arg, text);
        if (text.indexOf('/') >= 0) {
            TargetHosts.Cidr range = TargetHosts.cidr(text);
            if (range == null) {
                throw invalid(arg, "contains '/' but is not a CIDR range (address/prefix)");
            }
            return range(def, arg, range, scope);
        }
        byte[] ip = TargetHosts.ip(text);
        if (ip != null) {
            return address(def, arg, ip, scope);
        }
        return host(def, arg, text, scope);
    }

    private static void nonAscii(String arg, String text) throws ValueProblem {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7e) {
                throw invalid(arg, "must be ASCII: internationalised names are refused, look-alikes included");
            }
        }
    }

    private static String host(ArgDef def, String arg, String text, ScopeRules scope) throws ValueProblem {
        if (!TargetHosts.hostname(text)) {
            throw invalid(arg, "must be a host name, an IP address or a CIDR range (a number must be a canonical"
                    + " dotted quad)");
        }
        if (TargetHosts.punycode(text)) {
            throw invalid(arg, "must not contain a punycode (xn--) label: internationalised names are refused,"
                    + " look-alikes included");
        }
        String host = text.toLowerCase(Locale.ROOT);
        String why = TargetHosts.nameRefusal(host, def.blockInternal());
        if (why != null) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " " + why);
        }
        if (def.scopeCheck() && !scope.admitsName(host)) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " is not in the application's scope");
        }
        return host;
    }

    private static String address(ArgDef def, String arg, byte[] ip, ScopeRules scope) throws ValueProblem {
        String why = TargetHosts.addressRefusal(ip, def.blockInternal());
        if (why != null) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " " + why);
        }
        if (def.scopeCheck() && !scope.admitsAddress(ip)) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " is not in the application's scope");
        }
        return TargetHosts.format(ip);
    }

    private static String range(ArgDef def, String arg, TargetHosts.Cidr range, ScopeRules scope) throws ValueProblem {
        String why = TargetHosts.rangeRefusal(range, def.blockInternal());
        if (why != null) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " " + why);
        }
        if (def.scopeCheck() && !scope.admitsRange(range)) {
            throw new ValueProblem(Reasons.OUT_OF_SCOPE, arg + " is not wholly in the application's scope");
        }
        return range.text();
    }

    private static String ipAddress(ArgDef def, String arg, String text, ScopeRules scope) throws ValueProblem {
        byte[] ip = TargetHosts.ip(text);
        if (ip == null) {
            throw invalid(arg, "must be an IPv4 address in canonical form (a.b.c.d) or an IPv6 address");
        }
        return address(def, arg, ip, scope);
    }

    private static String cidr(ArgDef def, String arg, String text, ScopeRules scope) throws ValueProblem {
        TargetHosts.Cidr range = TargetHosts.cidr(text);
        if (range == null) {
            throw invalid(arg, "must be a CIDR range, address/prefix");
        }
        return range(def, arg, range, scope);
    }

    private static String url(ArgDef def, String arg, String text, ScopeRules scope) throws ValueProblem {
        int colon = text.indexOf("://");
        if (colon <= 0) {
            throw invalid(arg, "must be an absolute URL, scheme://host/...");
        }
        String scheme = text.substring(0, colon);
        for (int i = 0; i < scheme.length(); i++) {
            char c = scheme.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '.')))) {
                throw invalid(arg, "must have a lower-case scheme");
            }
        }
        if (DANGEROUS_SCHEMES.contains(scheme) || !def.schemes().contains(scheme)) {
            throw invalid(arg, "has a scheme that is not allowed; allowed: " + def.schemes());
        }
        int start = colon + 3;
        int end = start;
        while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        String authority = text.substring(start, end);
        if (authority.indexOf('@') >= 0) {
            throw invalid(arg, "must not carry user info ('@' before the host)");
        }
        String hostPart = authority;
        int portColon = authority.lastIndexOf(':');
        if (portColon >= 0) {
            String port = authority.substring(portColon + 1);
            if (!DIGITS.matcher(port).matches() || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw invalid(arg, "has a port that is not 1-65535");
            }
            hostPart = authority.substring(0, portColon);
        }
        if (hostPart.isEmpty()) {
            throw invalid(arg, "has no host");
        }
        if (hostPart.indexOf('%') >= 0) {
            throw invalid(arg, "has a percent-encoded host");
        }
        nonAscii(arg, text);
        String rest = text.substring(end);
        if (rest.indexOf('#') >= 0) {
            throw invalid(arg, "must not have a fragment");
        }
        String decoded = percentDecoded(rest).toLowerCase(Locale.ROOT);
        if (decoded.contains("/../") || decoded.endsWith("/..") || decoded.contains("\\") || decoded.contains("/./")
                || decoded.endsWith("/.") || decoded.indexOf('\0') >= 0) {
            throw invalid(arg, "has a path with '.' or '..' segments (also percent-encoded)");
        }
        byte[] ip = TargetHosts.ip(hostPart);
        if (ip != null) {
            address(def, arg, ip, scope);
        } else {
            host(def, arg, hostPart, scope);
        }
        return text;
    }

    private static String path(String arg, String text) throws ValueProblem {
        if (text.isEmpty()) {
            throw invalid(arg, "must not be empty");
        }
        if (text.startsWith("/") || (text.length() >= 2 && text.charAt(1) == ':') || text.startsWith("~")) {
            throw invalid(arg, "must be a relative path, not an absolute one");
        }
        for (String segment : text.split("/", -1)) {
            if (segment.equals("..")) {
                throw invalid(arg, "must not have a '..' component");
            }
        }
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") || lower.contains("%00")) {
            throw invalid(arg, "must not hold percent-encoded dots, slashes or NUL");
        }
        return text;
    }

    private static String credentialFile(String arg, String text, Path workspace) throws ValueProblem {
        if (workspace == null) {
            throw invalid(arg, "cannot be checked: no workspace to find the file in");
        }
        try {
            Path root = workspace.toRealPath();
            Path candidate = root.resolve(text);
            if (!Files.exists(candidate, LinkOption.NOFOLLOW_LINKS)) {
                throw invalid(arg, "names no file in the workspace");
            }
            Path real = candidate.toRealPath();
            if (!real.startsWith(root) || !Files.isRegularFile(real)) {
                throw invalid(arg, "must name a regular file inside the workspace");
            }
        } catch (IOException e) {
            throw invalid(arg, "cannot be read in the workspace (" + e.getClass().getSimpleName() + ")");
        }
        return text;
    }

    private static String msfOptions(String arg, String text) throws ValueProblem {
        boolean any = false;
        for (String pair : text.split(";", -1)) {
            String p = pair.strip();
            if (p.startsWith("set ")) {
                p = p.substring(4).strip();
            }
            if (p.isEmpty()) {
                continue;
            }
            int space = p.indexOf(' ');
            if (space <= 0) {
                throw invalid(arg, "must be 'KEY VALUE' pairs separated by ';'");
            }
            String key = p.substring(0, space);
            String value = p.substring(space + 1).strip();
            if (!MSF_KEY.matcher(key).matches()) {
                throw invalid(arg, "has a key that is not upper-case letters, digits and '_'");
            }
            if (value.isEmpty()) {
                throw invalid(arg, "has a key with no value");
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (METACHARACTERS.indexOf(c) >= 0 && c != ';') {
                    throw invalid(arg, "has a value with the shell metacharacter '" + c + "'");
                }
                if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                    throw invalid(arg, "has a value with whitespace");
                }
            }
            any = true;
        }
        if (!any) {
            throw invalid(arg, "must hold at least one 'KEY VALUE' pair");
        }
        return text;
    }

    private static String duration(String arg, String text) throws ValueProblem {
        if (text.isEmpty() || !DURATION.matcher(text).matches()) {
            throw invalid(arg, "must be seconds or h/m/s/ms components, for example 30, 5m, 1h30m, 500ms");
        }
        return text;
    }

    private static String percentDecoded(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0
                    && Character.digit(s.charAt(i + 2), 16) >= 0) {
                sb.append((char) (Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16)));
                i += 2;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static ValueProblem invalid(String arg, String rule) {
        return new ValueProblem(Reason.ARGS_INVALID, arg + " " + rule);
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
