package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.AddressClass;
import dev.toolyard.Reason;
import dev.toolyard.builtins.Resolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import okhttp3.HttpUrl;

/**
 * Every check {@code http_fetch} makes before it opens a socket, for the first URL and for each
 * redirect hop. The URL is parsed by OkHttp's own {@link HttpUrl} (the parser whose result is
 * connected to), and every decision about the host is made on {@link HttpUrl#host()}. Checks on the
 * raw text come first and only ever add refusals: they catch what other parsers would read
 * differently (a backslash, user info, a percent-encoded host) and link-local addresses in spellings
 * OkHttp does not even parse. A fragment, which never goes on the wire, is dropped before the host is
 * read.
 *
 * <p>Host names reach the {@link Resolver} only after they passed the allowlist, once per host per
 * fetch (the answers are kept in the map the caller passes), and every answer is classified. The
 * result names the exact addresses that may be connected to. Thread-safe; holds no state of its own.
 */
final class FetchTargetCheck {
    /** Longest URL accepted, in characters (code points). */
    static final int MAX_URL_CHARS = 2048;

    private final HostAllowlist allowlist;
    private final Resolver resolver;

    FetchTargetCheck(HostAllowlist allowlist, Resolver resolver) {
        this.allowlist = Objects.requireNonNull(allowlist, "allowlist");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
    }

    /** A URL that passed every check, and the only addresses its host may be reached at. */
    record Target(HttpUrl url, List<InetAddress> addresses) {}

    /**
     * Checks a URL in full, with its fragment (from the first {@code #} on) dropped: the result is the URL
     * that is sent.
     *
     * @param raw the URL as the model (or a redirect) gave it
     * @param resolved answers already checked in this fetch, by host; filled in here
     * @return the checked target
     * @throws FetchProblem with the first reason that applies
     */
    Target check(String raw, Map<String, List<InetAddress>> resolved) throws FetchProblem {
        HttpUrl url = parse(raw);
        String host = url.host();
        if (host.indexOf(':') >= 0) {
            byte[] address = IpLiterals.ipv6(host);
            if (address == null) {
                throw malformed("the host is not a valid IPv6 address");
            }
            return new Target(url, List.of(literal(host, address)));
        }
        byte[] v4 = IpLiterals.canonicalIpv4(host);
        if (v4 != null) {
            return new Target(url, List.of(literal(host, v4)));
        }
        if (IpLiterals.endsInNumber(host)) {
            throw numeric(host);
        }
        if (!allowlist.admitsName(host)) {
            throw notAllowed(host);
        }
        List<InetAddress> answers = resolved.get(host);
        if (answers == null) {
            answers = resolve(host);
            resolved.put(host, answers);
        }
        return new Target(url, answers);
    }

    /**
     * Checks a redirect: the Location's text, that it stays on the same host and either keeps the scheme
     * or upgrades {@code http} to {@code https}, and then the resulting URL in full. Its fragment, which is
     * never sent, is dropped.
     *
     * @param from the URL that answered with the redirect
     * @param location the Location header's value; {@code null} when absent
     * @param resolved answers already checked in this fetch, by host
     * @return the checked target of the next hop
     * @throws FetchProblem with the first reason that applies
     */
    Target redirect(HttpUrl from, String location, Map<String, List<InetAddress>> resolved) throws FetchProblem {
        if (location == null || location.isEmpty()) {
            throw new FetchProblem(Reason.HTTP_STATUS, "the server redirected without a Location header");
        }
        checkCharacters(location, "redirect location");
        HttpUrl next = from.resolve(location);
        if (next == null) {
            String scheme = scheme(location);
            if (scheme != null && !scheme.equals("http") && !scheme.equals("https")) {
                throw new FetchProblem(Reason.SCHEME_NOT_ALLOWED,
                        "the server redirected to scheme '" + clip(scheme) + "'; only http and https are fetched");
            }
            throw malformed("the server redirected to a location that is not a valid URL");
        }
        if (next.fragment() != null) {
            next = next.newBuilder().fragment(null).build();
        }
        if (!next.host().equals(from.host())) {
            throw new FetchProblem(Reason.CROSS_HOST_REDIRECT,
                    "the server redirected to another host ('" + clip(next.host()) + "'); a redirect must keep the"
                            + " host");
        }
        // Same host: the one change of scheme followed is the upgrade http -> https (how most sites answer
        // plain HTTP). It is then checked in full like any hop, so it is followed only where the tool
        // permits https for that host. Anything else, https -> http above all, stays refused; the reason
        // stays cross_host_redirect (scheme and host together are the origin) and the detail names the change.
        if (!next.scheme().equals(from.scheme()) && !(from.scheme().equals("http") && next.scheme().equals("https"))) {
            throw new FetchProblem(Reason.CROSS_HOST_REDIRECT,
                    "the server redirected from " + from.scheme() + " to " + next.scheme() + " on the same host; the"
                            + " only change of scheme a redirect may make is the upgrade from http to https");
        }
        return check(next.toString(), resolved);
    }

    private HttpUrl parse(String raw) throws FetchProblem {
        int length = raw.codePointCount(0, raw.length());
        if (length == 0 || length > MAX_URL_CHARS) {
            throw malformed("the URL must be 1-" + MAX_URL_CHARS + " characters, got " + length);
        }
        checkCharacters(raw, "URL");
        String scheme = scheme(raw);
        if (scheme == null) {
            throw malformed("the URL must be absolute, starting with http:// or https://");
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new FetchProblem(Reason.SCHEME_NOT_ALLOWED,
                    "scheme '" + clip(scheme) + "' is not allowed; only http and https are fetched");
        }
        // A fragment is never sent; it starts at the first '#' for OkHttp as for every WHATWG parser (a
        // '#' inside the authority ends the authority too), so everything from there on is dropped before
        // any host is read, and the checks below judge exactly the URL that goes on the wire.
        int hash = raw.indexOf('#');
        String sent = hash < 0 ? raw : raw.substring(0, hash);
        // The authority as OkHttp delimits it: after the scheme and any slashes, up to '/' or '?'.
        int start = scheme.length() + 1;
        while (start < sent.length() && sent.charAt(start) == '/') {
            start++;
        }
        int end = start;
        while (end < sent.length() && "/?".indexOf(sent.charAt(end)) < 0) {
            end++;
        }
        String authority = sent.substring(start, end);
        String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
        String rawHost = rawHost(hostAndPort);
        if (rawHost.isEmpty()) {
            throw new FetchProblem(Reason.NO_HOST, "the URL has no host");
        }
        refuseLinkLocalSpellings(rawHost);
        if (authority.indexOf('@') >= 0) {
            throw malformed("the URL has user info ('@' before the host); credentials are never sent, remove them");
        }
        if (rawHost.indexOf('%') >= 0) {
            throw malformed("the host is percent-encoded; write it plainly");
        }
        HttpUrl url = HttpUrl.parse(sent);
        if (url == null) {
            throw malformed("the URL is not a valid http(s) URL");
        }
        if (!url.username().isEmpty() || !url.password().isEmpty() || url.fragment() != null) {
            throw malformed("the URL has user info or a fragment");
        }
        return url;
    }

    /**
     * Reads the raw host the way any parser might (percent-decoded, brackets and zone id removed, every
     * numeric reading) and refuses it if any reading is link-local. This runs before OkHttp's parse, so a
     * spelling OkHttp rejects or reads as a name is still named for what it is.
     */
    private static void refuseLinkLocalSpellings(String rawHost) throws FetchProblem {
        String h = percentDecode(rawHost).toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            h = h.substring(1, h.endsWith("]") ? h.length() - 1 : h.length());
        }
        int zone = h.indexOf('%');
        if (zone >= 0) {
            h = h.substring(0, zone);
        }
        if (h.indexOf(':') >= 0) {
            byte[] v6 = IpLiterals.ipv6(h);
            if (v6 != null && AddressClass.of(v6) == AddressClass.LINK_LOCAL) {
                throw linkLocal(rawHost);
            }
            return;
        }
        for (byte[] reading : IpLiterals.numericReadings(h)) {
            if (AddressClass.of(reading) == AddressClass.LINK_LOCAL) {
                throw linkLocal(rawHost);
            }
        }
    }

    private InetAddress literal(String host, byte[] address) throws FetchProblem {
        AddressClass cls = AddressClass.of(address);
        if (cls == AddressClass.LINK_LOCAL) {
            throw linkLocal(host);
        }
        if (cls == AddressClass.NEVER || !allowlist.admitsLiteral(host, cls)) {
            throw notAllowed(host);
        }
        try {
            return InetAddress.getByAddress(address);
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }

    private List<InetAddress> resolve(String host) throws FetchProblem {
        List<InetAddress> answers;
        try {
            answers = resolver.resolve(host);
        } catch (UnknownHostException e) {
            throw new FetchProblem(Reason.TRANSPORT_ERROR, "host '" + clip(host) + "' did not resolve");
        }
        if (answers == null || answers.isEmpty()) {
            throw new FetchProblem(Reason.TRANSPORT_ERROR, "host '" + clip(host) + "' did not resolve");
        }
        boolean localhost = host.equals("localhost");
        List<InetAddress> copy = new ArrayList<>(answers.size());
        FetchProblem refusal = null;
        for (InetAddress a : answers) {
            Objects.requireNonNull(a, "the resolver answered a null address");
            AddressClass cls = AddressClass.of(a);
            if (cls == AddressClass.LINK_LOCAL) {
                // The most specific reason wins, whatever order the answers came in.
                throw new FetchProblem(Reason.LINK_LOCAL_ADDRESS, "host '" + clip(host) + "' resolves to a"
                        + " link-local address (169.254.0.0/16 or fe80::/10), which is never fetched");
            }
            if (refusal == null) {
                refusal = refusal(host, localhost, a, cls);
            }
            copy.add(a);
        }
        if (refusal != null) {
            throw refusal;
        }
        return Collections.unmodifiableList(copy);
    }

    private FetchProblem refusal(String host, boolean localhost, InetAddress answer, AddressClass cls) {
        switch (cls) {
            case PUBLIC:
                return localhost ? new FetchProblem(Reason.HOST_NOT_ALLOWED,
                        "host 'localhost' resolves to an address that is not loopback") : null;
            case LOOPBACK:
            case PRIVATE:
                if ((localhost && cls == AddressClass.LOOPBACK) || allowlist.admitsAddress(answer)) {
                    return null;
                }
                return new FetchProblem(Reason.HOST_NOT_ALLOWED, "host '" + clip(host) + "' resolves to a loopback"
                        + " or private address that is not itself on this tool's allowlist");
            case NEVER:
                return new FetchProblem(Reason.HOST_NOT_ALLOWED, "host '" + clip(host) + "' resolves to an"
                        + " unspecified, multicast, broadcast or reserved address, which is never fetched");
            default:
                throw new AssertionError(cls);
        }
    }

    /**
     * Refuses whitespace, control and format characters (zero-width and bidirectional marks, the
     * invisible tag characters U+E0000-U+E007F) and unpaired surrogates anywhere, and backslashes,
     * which parsers read differently.
     */
    private static void checkCharacters(String s, String what) throws FetchProblem {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int type = Character.getType(cp);
            if (cp <= 0x20 || Character.isISOControl(cp) || Character.isWhitespace(cp) || Character.isSpaceChar(cp)
                    || type == Character.FORMAT) {
                throw malformed("the " + what + " contains whitespace or a control or invisible character");
            }
            if (type == Character.SURROGATE) {
                throw malformed("the " + what + " contains an unpaired surrogate");
            }
            if (cp == '\\') {
                throw malformed("the " + what + " contains a backslash, which parsers read differently; use '/'");
            }
            i += Character.charCount(cp);
        }
    }

    /** @return the lower-case scheme when {@code s} starts with one followed by ':', else {@code null} */
    private static String scheme(String s) {
        int colon = s.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        for (int i = 0; i < colon; i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                    || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
            if (!ok) {
                return null;
            }
        }
        return s.substring(0, colon).toLowerCase(Locale.ROOT);
    }

    private static String rawHost(String hostAndPort) {
        if (hostAndPort.startsWith("[")) {
            int close = hostAndPort.indexOf(']');
            return close < 0 ? hostAndPort : hostAndPort.substring(0, close + 1);
        }
        int colon = hostAndPort.indexOf(':');
        return colon < 0 ? hostAndPort : hostAndPort.substring(0, colon);
    }

    private static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0
                    && Character.digit(s.charAt(i + 2), 16) >= 0) {
                out.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static FetchProblem numeric(String host) {
        for (byte[] reading : IpLiterals.numericReadings(host)) {
            if (AddressClass.of(reading) == AddressClass.LINK_LOCAL) {
                return linkLocal(host);
            }
        }
        return new FetchProblem(Reason.HOST_NOT_ALLOWED, "host '" + clip(host) + "' is a number but not an address"
                + " in canonical form (a.b.c.d); such hosts are never fetched");
    }

    private static FetchProblem notAllowed(String host) {
        return new FetchProblem(Reason.HOST_NOT_ALLOWED, "host '" + clip(host) + "' is not on this tool's allowlist");
    }

    private static FetchProblem linkLocal(String host) {
        return new FetchProblem(Reason.LINK_LOCAL_ADDRESS, "host '" + clip(host) + "' is a link-local address"
                + " (169.254.0.0/16 or fe80::/10, where cloud metadata lives), which is never fetched");
    }

    private static FetchProblem malformed(String detail) {
        return new FetchProblem(Reason.MALFORMED_URL, detail);
    }

    private static String clip(String s) {
        return s.length() <= 255 ? s : s.substring(0, 255) + "…";
    }
}
