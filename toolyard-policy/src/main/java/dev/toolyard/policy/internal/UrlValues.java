package dev.toolyard.policy.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * URL argument values as a policy compares them: scheme and host in lower case, and the path with dot
 * segments removed. Only plain {@code http}/{@code https} URLs with a host, no user information, no
 * backslash and no whitespace or control character have parts; anything else is never inside a URL
 * constraint. The port is not part of a policy (the egress allowlist of {@code http_fetch} is by host
 * too). Stateless.
 */
public final class UrlValues {
    private UrlValues() {}

    /**
     * The parts of a URL.
     *
     * @param scheme lower case
     * @param host lower case, IPv6 literals in brackets
     * @param path starting with {@code /}; {@code /} when the URL had none
     */
    public record Parts(String scheme, String host, String path) {}

    /**
     * @param value a URL as a model sent it
     * @return its parts, or {@code null} when it is not a plain http(s) URL
     */
    public static Parts parse(String value) {
        if (value == null || value.isEmpty() || value.length() > 2048) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= 0x20 || c == 0x7f || c == '\\' || c > 0x7e) {
                return null;
            }
        }
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            return null;
        }
        String scheme = uri.getScheme();
        if (scheme == null || uri.isOpaque() || uri.getRawUserInfo() != null || uri.getHost() == null) {
            return null;
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return null;
        }
        String authority = uri.getRawAuthority();
        if (authority == null || authority.contains("@")) {
            return null;
        }
        String path = uri.normalize().getRawPath();
        if (path == null || path.isEmpty()) {
            path = "/";
        }
        if (!path.startsWith("/") || path.startsWith("/..")) {
            return null;
        }
        return new Parts(scheme, uri.getHost().toLowerCase(Locale.ROOT), path);
    }

    /**
     * @param path a URL path
     * @param prefix a path prefix, starting with {@code /}
     * @return whether the path is the prefix or below it by whole segments ({@code /} covers every path)
     */
    public static boolean under(String path, String prefix) {
        if (prefix.equals("/")) {
            return true;
        }
        return path.equals(prefix) || path.startsWith(prefix + "/");
    }
}
