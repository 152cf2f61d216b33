package dev.toolyard.builtins.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The head of one request a command sent the proxy: {@code CONNECT host:port HTTP/1.1} (a tunnel; TLS
 * passes through untouched) or a plain HTTP request in absolute form ({@code GET http://host:port/path
 * HTTP/1.1}), which is forwarded in origin form with {@code Connection: close} and without the
 * {@code Proxy-*} headers. Anything else is a {@link Malformed} request. Immutable.
 *
 * @param connect whether it is a CONNECT
 * @param host the host, without brackets
 * @param port the port
 * @param forwarded for plain HTTP, the head to send the server; for CONNECT, empty
 */
record ProxyRequest(boolean connect, String host, int port, byte[] forwarded) {
    /** The longest request head the proxy reads. */
    static final int MAX_HEAD_BYTES = 16 * 1024;

    /** A request the proxy cannot forward; {@link #getMessage()} says why, for the 400 body. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * @param head the bytes up to and including the blank line that ends the head
     * @return the request
     * @throws Malformed if it is not a CONNECT or an absolute-form {@code http} request
     */
    static ProxyRequest parse(byte[] head) throws Malformed {
        String text = new String(head, StandardCharsets.ISO_8859_1);
        int eol = text.indexOf("\r\n");
        if (eol < 0) {
            throw new Malformed("the request line does not end in CRLF");
        }
        String[] line = text.substring(0, eol).split(" ", -1);
        if (line.length != 3 || !line[2].startsWith("HTTP/1.")) {
            throw new Malformed("the request line is not 'METHOD TARGET HTTP/1.x'");
        }
        String method = line[0];
        if (method.isEmpty() || !method.chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
            throw new Malformed("the method is not an upper-case token");
        }
        if (method.equals("CONNECT")) {
            Authority a = authority(line[1], -1);
            return new ProxyRequest(true, a.host(), a.port(), new byte[0]);
        }
        String target = line[1];
        if (!target.regionMatches(true, 0, "http://", 0, 7)) {
            throw new Malformed(target.regionMatches(true, 0, "https://", 0, 8)
                    ? "an https URL goes through CONNECT, which is how clients send it through a proxy"
                    : "a plain request to the proxy must name an absolute http:// URL");
        }
        int pathStart = target.indexOf('/', 7);
        int queryOrFragment = firstOf(target, 7, '?', '#');
        int end = pathStart < 0 ? (queryOrFragment < 0 ? target.length() : queryOrFragment)
                : (queryOrFragment >= 0 && queryOrFragment < pathStart ? queryOrFragment : pathStart);
        String authority = target.substring(7, end);
        if (authority.indexOf('@') >= 0) {
            throw new Malformed("user info in the URL is not forwarded");
        }
        Authority a = authority(authority, 80);
        String path = end == target.length() ? "/" : target.substring(end);
        if (path.charAt(0) != '/') {
            path = "/" + path;
        }
        StringBuilder out = new StringBuilder(head.length);
        out.append(method).append(' ').append(path).append(' ').append(line[2]).append("\r\n");
        boolean host = false;
        for (String header : text.substring(eol + 2).split("\r\n", -1)) {
            if (header.isEmpty()) {
                continue;
            }
            int colon = header.indexOf(':');
            if (colon <= 0) {
                throw new Malformed("a header line has no name");
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (name.startsWith("proxy-") || name.equals("connection") || name.equals("keep-alive")) {
                continue;
            }
            host |= name.equals("host");
            out.append(header).append("\r\n");
        }
        if (!host) {
            out.append("Host: ").append(authority).append("\r\n");
        }
        out.append("Connection: close\r\n\r\n");
        return new ProxyRequest(false, a.host(), a.port(), out.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private record Authority(String host, int port) {}

    private static Authority authority(String s, int defaultPort) throws Malformed {
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new Malformed("an IPv6 host lacks its closing bracket");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new Malformed("text follows the IPv6 host");
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else {
            int colon = s.lastIndexOf(':');
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
            if (host.indexOf(':') >= 0) {
                throw new Malformed("an IPv6 host must be in brackets");
            }
        }
        int p;
        if (port == null) {
            if (defaultPort < 0) {
                throw new Malformed("CONNECT needs host:port");
            }
            p = defaultPort;
        } else {
            if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new Malformed("the port is not a number 1-65535");
            }
            p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw new Malformed("the port is not a number 1-65535");
            }
        }
        if (host.isEmpty()) {
            throw new Malformed("the host is empty");
        }
        return new Authority(host, p);
    }

    private static int firstOf(String s, int from, char a, char b) {
        int i = s.indexOf(a, from);
        int j = s.indexOf(b, from);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }
}
