package dev.toolyard.builtins;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into addresses for {@code http_fetch}. The application always supplies one: there
 * is no default, so that where names are resolved is a decision someone made (and a test can script
 * it). The tool asks only about host names that passed its allowlist, never about IP literals, asks at
 * most once per host per fetch, checks every answer, and connects only to the answers it checked.
 *
 * <p>Implementations must be thread-safe: one tool serves concurrent calls.
 */
public interface Resolver {
    /**
     * @param host a host name in lower-case ASCII (an internationalised name arrives in its punycode
     *     form); never {@code null}, never an IP literal
     * @return its addresses, in the order to try them; never {@code null}; an empty list is treated as
     *     a name that did not resolve
     * @throws UnknownHostException if the name does not resolve
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /**
     * The operating system's resolver, through {@link InetAddress#getAllByName(String)}: {@code /etc/hosts},
     * then DNS, with the JVM's own address cache ({@code networkaddress.cache.ttl}). It has no timeout of
     * its own; the fetch's deadline bounds the call that waits for it.
     *
     * @return the system resolver; never {@code null}
     */
    static Resolver system() {
        return SystemResolver.INSTANCE;
    }
}
