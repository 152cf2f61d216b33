package dev.toolyard.builtins;

import dev.toolyard.Tool;
import dev.toolyard.builtins.internal.HttpFetch;
import java.util.List;
import javax.net.SocketFactory;

/**
 * Factories of the built-in tools, each a spec and its handler for
 * {@link dev.toolyard.ToolRegistry#register(Tool)}. Every factory checks its configuration at once and
 * throws, naming the parameter, when it is wrong. Stateless. Thread-safe; the tools are too.
 */
public final class BuiltinTools {
    private BuiltinTools() {}

    /**
     * {@code http_fetch} with the default {@link FetchLimits}. See
     * {@link #httpFetch(List, Resolver, FetchLimits, SocketFactory)}.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver) {
        return httpFetch(allowedHosts, resolver, FetchLimits.defaults());
    }

    /**
     * {@code http_fetch} with the given caps. See {@link #httpFetch(List, Resolver, FetchLimits, SocketFactory)}.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default
     * @param limits body, redirect and timeout caps; never {@code null}
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver, FetchLimits limits) {
        return httpFetch(allowedHosts, resolver, limits, SocketFactory.getDefault());
    }

    /**
     * {@code http_fetch}: GET one {@code http} or {@code https} URL from an allowlisted host and return its
     * body as text. Schema {@code {"url": string, 1-2,048 characters}}, closed; risk
     * {@link dev.toolyard.RiskClass#READ_ONLY}; egress {@link dev.toolyard.EgressClass#ALLOWLISTED}.
     *
     * <p>{@code allowedHosts} entries are host names (internationalised names allowed), dotted quads and
     * IPv6 literals; each is normalised once (lower case, IDNA to ASCII) and compared exactly with the
     * URL's host as OkHttp parses it. An empty list admits loopback only ({@code localhost}, 127.0.0.0/8,
     * {@code ::1}). A name reaching a loopback or private address is fetched only if that address is on
     * the list too; link-local, unspecified, multicast and broadcast addresses never are. The full policy
     * is in {@code docs/security-egress.md}. Refusals never list the allowlist.
     *
     * <p>{@code socketFactory} creates every socket the tool opens (TLS is layered on top of it). The
     * two shorter overloads use {@link SocketFactory#getDefault()}. Pass another to bind to an interface,
     * or, in tests, to refuse any connect that is not to loopback, so that no test can send a packet off
     * the machine even if a check were broken. The factory only ever sees addresses that passed the checks.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default (an
     *     explicit {@link Resolver#system()} is fine)
     * @param limits body, redirect and timeout caps; never {@code null}
     * @param socketFactory creates every plain socket; never {@code null}; not an SSL socket factory
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is not a bare host, is
     *     ambiguous between IDNA 2003 and UTS #46, or is a link-local, unspecified, multicast or broadcast
     *     address; or if {@code socketFactory} is an SSL socket factory
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        return HttpFetch.tool(allowedHosts, resolver, limits, socketFactory);
    }
}
