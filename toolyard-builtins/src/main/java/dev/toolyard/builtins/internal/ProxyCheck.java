package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.AddressClass;
import dev.toolyard.builtins.Resolver;
import java.net.IDN;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The proxy's decision for one destination a command asked for, {@code host:port}: refused with a
 * reason, or allowed with the addresses it checked, which are the only ones the proxy then connects
 * to. The same rules as {@code http_fetch}'s {@link EgressCheck}: the name must be listed (exactly or
 * by suffix) with this port; a bare IP literal only if it is listed itself; the name is resolved here,
 * through the application's {@link Resolver}, once; any link-local answer (cloud metadata) refuses it,
 * and so does an unspecified, multicast or reserved one; a loopback or private (CGNAT included) answer
 * refuses it unless that address is listed. Immutable. Thread-safe.
 */
final class ProxyCheck {
    /** Why a destination was refused: the reason header's value and the record's word. */
    enum Refusal {
        /** The name is not on the list (exactly or by suffix). */
        HOST_NOT_ALLOWED("host_not_allowed"),
        /** The name or literal is listed, but not with this port. */
        PORT_NOT_ALLOWED("port_not_allowed"),
        /** An IP literal (in any spelling) that is not itself listed. */
        IP_LITERAL_NOT_ALLOWED("ip_literal_not_allowed"),
        /** The name resolved to a link-local address (169.254.0.0/16, fe80::/10). */
        LINK_LOCAL_ADDRESS("link_local_address"),
        /** The name resolved to a loopback or private address that is not listed, or one never reached. */
        ADDRESS_NOT_ALLOWED("address_not_allowed"),
        /** The resolver had no answer. */
        DID_NOT_RESOLVE("did_not_resolve"),
        /** The request was not one the proxy understands. */
        BAD_REQUEST("bad_request"),
        /** The call has opened as many connections as it may. */
        CONNECTION_LIMIT("connection_limit"),
        /** The call has moved as many bytes as it may. */
        BYTE_LIMIT("byte_limit"),
        /** Every checked address refused the connect. */
        CONNECT_FAILED("connect_failed");

        final String wire;

        Refusal(String wire) {
            this.wire = wire;
        }
    }

    /** What the check decided. */
    sealed interface Decision permits Allowed, Refused {}

    /**
     * @param host the host as recorded (lower-case ASCII name, or the literal)
     * @param port the port
     * @param addresses the checked addresses, in the order to try; at least one
     */
    record Allowed(String host, int port, List<InetAddress> addresses) implements Decision {}

    /**
     * @param host the host as recorded (clipped)
     * @param port the port
     * @param refusal why
     * @param detail a sentence for the command's error body; never names the allowlist
     * @param addresses the answers that were refused, when the name resolved; else empty
     */
    record Refused(String host, int port, Refusal refusal, String detail, List<InetAddress> addresses)
            implements Decision {}

    private final ProxyAllowlist allowlist;
    private final Resolver resolver;

    ProxyCheck(ProxyAllowlist allowlist, Resolver resolver) {
        this.allowlist = Objects.requireNonNull(allowlist, "allowlist");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
    }

    /**
     * @param rawHost the host of a CONNECT authority or an absolute URI, without brackets
     * @param port the port, 1-65535
     * @return the decision; never {@code null}
     */
    Decision check(String rawHost, int port) {
        String shown = clip(rawHost);
        if (rawHost.isEmpty() || rawHost.length() > 253 || !printableAscii(rawHost)) {
            return new Refused(shown, port, Refusal.BAD_REQUEST, "the host is empty, too long or not printable ASCII",
                    List.of());
        }
        byte[] literal = rawHost.indexOf(':') >= 0 ? IpLiterals.ipv6(rawHost) : IpLiterals.canonicalIpv4(rawHost);
        if (literal != null) {
            InetAddress a = ProxyAllowlist.plain(literal);
            Set<Integer> ports = allowlist.portsForLiteral(a);
            if (ports.isEmpty()) {
                return new Refused(shown, port, Refusal.IP_LITERAL_NOT_ALLOWED, "the address " + shown
                        + " is not allowed; ask for a host name the application allowed", List.of(a));
            }
            if (!ports.contains(port)) {
                return portRefused(shown, port);
            }
            return new Allowed(a.getHostAddress(), port, List.of(a));
        }
        if (rawHost.indexOf(':') >= 0 || IpLiterals.endsInNumber(rawHost)) {
            // 2130706433, 0x7f.1, 127.1: numbers some resolvers read as addresses.
            return new Refused(shown, port, Refusal.IP_LITERAL_NOT_ALLOWED, "the host " + shown
                    + " reads as an IP address; ask for a host name the application allowed", List.of());
        }
        String name;
        try {
            String h = rawHost.endsWith(".") ? rawHost.substring(0, rawHost.length() - 1) : rawHost;
            name = IDN.toASCII(h).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return new Refused(shown, port, Refusal.BAD_REQUEST, "the host " + shown + " is not a valid host name",
                    List.of());
        }
        Set<Integer> ports = allowlist.portsForName(name);
        if (ports.isEmpty()) {
            return new Refused(clip(name), port, Refusal.HOST_NOT_ALLOWED, "the host " + clip(name)
                    + " is not allowed for this command", List.of());
        }
        if (!ports.contains(port)) {
            return portRefused(clip(name), port);
        }
        return resolve(name, port);
    }

    private Decision resolve(String name, int port) {
        List<InetAddress> answers;
        try {
            answers = resolver.resolve(name);
        } catch (UnknownHostException e) {
            answers = null;
        }
        if (answers == null || answers.isEmpty()) {
            return new Refused(name, port, Refusal.DID_NOT_RESOLVE, "the host " + name + " did not resolve", List.of());
        }
        List<InetAddress> checked = new ArrayList<>(answers.size());
        Refused refusal = null;
        for (InetAddress answer : answers) {
            Objects.requireNonNull(answer, "the resolver answered a null address");
            InetAddress a = ProxyAllowlist.plain(answer.getAddress());
            checked.add(a);
            AddressClass cls = AddressClass.of(a);
            if (cls == AddressClass.LINK_LOCAL) {
                // The most specific reason wins, whatever order the answers came in.
                return new Refused(name, port, Refusal.LINK_LOCAL_ADDRESS, "the host " + name + " resolves to a link-local"
                        + " address (169.254.0.0/16 or fe80::/10, where cloud metadata lives), which is never reached",
                        List.copyOf(checked));
            }
            boolean refused = cls == AddressClass.NEVER
                    || ((cls == AddressClass.LOOPBACK || cls == AddressClass.PRIVATE) && !allowlist.listsAddress(a));
            if (refused && refusal == null) {
                refusal = new Refused(name, port, Refusal.ADDRESS_NOT_ALLOWED, "the host " + name + " resolves to a "
                        + (cls == AddressClass.NEVER ? "unspecified, multicast or reserved" : "loopback or private")
                        + " address the application did not allow", List.of());
            }
        }
        if (refusal != null) {
            return new Refused(refusal.host(), port, refusal.refusal(), refusal.detail(), List.copyOf(checked));
        }
        return new Allowed(name, port, List.copyOf(checked));
    }

    private static Refused portRefused(String host, int port) {
        return new Refused(host, port, Refusal.PORT_NOT_ALLOWED, "port " + port + " of " + host
                + " is not allowed for this command", List.of());
    }

    private static boolean printableAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    static String clip(String s) {
        String t = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        StringBuilder b = new StringBuilder(t.length());
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            b.append(c < 0x20 || c >= 0x7f ? '?' : c);
        }
        return b.toString();
    }
}
