package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.AddressClass;
import java.net.IDN;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import okhttp3.HttpUrl;

/**
 * The hosts an application allowed {@code http_fetch} to reach, checked and normalised once, when the
 * tool is built, and compared exactly with the host OkHttp's {@link HttpUrl} produced.
 *
 * <p>An entry is a host name, a dotted quad or an IPv6 literal (with or without brackets); nothing
 * else (no scheme, port, path, user info, wildcard or trailing dot). A name is lower-cased and turned
 * into ASCII with {@link IDN#toASCII(String)}; it is accepted only when OkHttp normalises it to the
 * same ASCII string, so that no name means one thing to the allowlist and another on the wire (for
 * example {@code faß.de}: {@code fass.de} under IDNA 2003, {@code xn--fa-hia.de} under UTS #46). A
 * link-local, unspecified, multicast or broadcast literal is refused: those are never fetched.
 *
 * <p>An empty allowlist means loopback only: the name {@code localhost}, 127.0.0.0/8 and {@code ::1}.
 * Immutable. Thread-safe.
 */
final class HostAllowlist {
    private static final String PARAMETER = "allowedHosts";
    private static final String FORBIDDEN = "/\\@?#%*[]";

    private final Set<String> names;
    private final Set<String> literals;
    private final Set<InetAddress> addresses;
    private final boolean loopbackOnly;

    private HostAllowlist(Set<String> names, Set<String> literals, Set<InetAddress> addresses) {
        this.names = Set.copyOf(names);
        this.literals = Set.copyOf(literals);
        this.addresses = Set.copyOf(addresses);
        this.loopbackOnly = names.isEmpty() && literals.isEmpty();
    }

    /**
     * @param entries the application's allowlist; may be empty (loopback only); never {@code null}
     * @return the checked allowlist
     * @throws NullPointerException if {@code entries} or one of them is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is not a bare host, is
     *     ambiguous, or is an address that is never fetched
     */
    static HostAllowlist of(List<String> entries) {
        Objects.requireNonNull(entries, PARAMETER);
        Set<String> names = new HashSet<>();
        Set<String> literals = new HashSet<>();
        Set<InetAddress> addresses = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            String where = PARAMETER + "[" + i + "]";
            String entry = Objects.requireNonNull(entries.get(i), where);
            checkBare(where, entry);
            if (entry.indexOf(':') >= 0 || entry.startsWith("[")) {
                String bare = entry.startsWith("[") && entry.endsWith("]")
                        ? entry.substring(1, entry.length() - 1) : entry;
                byte[] address = IpLiterals.ipv6(bare);
                if (address == null) {
                    throw new IllegalArgumentException(where + " '" + entry + "' is neither a host name nor an IPv6"
                            + " address (a port cannot be given)");
                }
                checkFetchable(where, entry, address);
                literals.add(okHttpHost(where, bare));
                addresses.add(address(address));
            } else if (IpLiterals.canonicalIpv4(entry) != null) {
                byte[] address = IpLiterals.canonicalIpv4(entry);
                checkFetchable(where, entry, address);
                literals.add(entry);
                addresses.add(address(address));
            } else if (IpLiterals.endsInNumber(entry)) {
                throw new IllegalArgumentException(where + " '" + entry
                        + "' is a number but not a dotted quad in canonical form (a.b.c.d, each 0-255, no leading"
                        + " zeros); write the address that way");
            } else {
                names.add(nameEntry(where, entry));
            }
        }
        return new HostAllowlist(names, literals, addresses);
    }

    /** @return whether the allowlist is empty, which admits loopback only */
    boolean loopbackOnly() {
        return loopbackOnly;
    }

    /**
     * @param host a host name as {@link HttpUrl#host()} returns it
     * @return whether the name is allowed (in an empty allowlist: only {@code localhost})
     */
    boolean admitsName(String host) {
        return loopbackOnly ? host.equals("localhost") : names.contains(host);
    }

    /**
     * @param host an IP literal as {@link HttpUrl#host()} returns it
     * @param addressClass its class
     * @return whether the literal is allowed (in an empty allowlist: any loopback address)
     */
    boolean admitsLiteral(String host, AddressClass addressClass) {
        return loopbackOnly ? addressClass == AddressClass.LOOPBACK : literals.contains(host);
    }

    /**
     * Whether an address a name resolved to is itself allowlisted as a literal: how an application lets
     * an allowlisted name reach a loopback or private address. IPv4-mapped IPv6 answers count as their
     * IPv4 address.
     *
     * @param answer an answer of the resolver
     * @return whether the address is on the allowlist
     */
    boolean admitsAddress(InetAddress answer) {
        return addresses.contains(address(answer.getAddress()));
    }

    @Override
    public String toString() {
        // Counts only: the members are never shown, not even in a log line.
        return "HostAllowlist[" + (loopbackOnly ? "loopback only" : names.size() + " names, " + literals.size()
                + " addresses") + "]";
    }

    static void checkBare(String where, String entry) {
        if (entry.isEmpty() || entry.length() > 253) {
            throw new IllegalArgumentException(where + " must be 1-253 characters, got " + entry.length());
        }
        for (int i = 0; i < entry.length(); i++) {
            char c = entry.charAt(i);
            if (c <= 0x20 || c == 0x7f || Character.isWhitespace(c) || Character.isISOControl(c)
                    || Character.getType(c) == Character.FORMAT) {
                throw new IllegalArgumentException(where + " contains whitespace or a control character");
            }
            boolean bracket = c == '[' || c == ']';
            if (FORBIDDEN.indexOf(c) >= 0 && !bracket) {
                throw new IllegalArgumentException(where + " '" + entry + "' must be a bare host: no scheme, port,"
                        + " path, user info, percent-encoding or wildcard");
            }
        }
    }

    /** Also the normalisation of {@code run_command}'s proxy allowlist ({@link ProxyAllowlist}). */
    static String nameEntry(String where, String entry) {
        if (entry.endsWith(".")) {
            throw new IllegalArgumentException(where + " '" + entry + "' must not end with a dot: hosts are compared"
                    + " exactly, and a URL's 'name.' is a different host from 'name'");
        }
        String ascii;
        try {
            ascii = IDN.toASCII(entry).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + " '" + entry + "' is not a valid internationalised host name: "
                    + e.getMessage(), e);
        }
        checkLabels(where, entry, ascii);
        String okHttp = okHttpHost(where, entry);
        if (!okHttp.equals(ascii)) {
            throw new IllegalArgumentException(where + " '" + entry + "' is ambiguous: java.net.IDN makes it '" + ascii
                    + "' and OkHttp makes it '" + okHttp + "'; write the ASCII (punycode) form the server uses");
        }
        return ascii;
    }

    private static void checkLabels(String where, String entry, String ascii) {
        if (ascii.isEmpty() || ascii.length() > 253) {
            throw new IllegalArgumentException(where + " '" + entry + "' must be 1-253 characters in ASCII form");
        }
        for (String label : ascii.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) {
                throw new IllegalArgumentException(where + " '" + entry + "' has an empty label or one over 63 characters");
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                throw new IllegalArgumentException(where + " '" + entry + "' has a label that starts or ends with '-'");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                if (!ok) {
                    throw new IllegalArgumentException(where + " '" + entry + "' may contain only letters, digits, '-'"
                            + " and '_' in each label, got '" + c + "'");
                }
            }
        }
    }

    private static void checkFetchable(String where, String entry, byte[] address) {
        AddressClass cls = AddressClass.of(address);
        if (cls == AddressClass.LINK_LOCAL) {
            throw new IllegalArgumentException(where + " '" + entry + "' is a link-local address (cloud metadata lives"
                    + " there); http_fetch never fetches one, allowlisted or not");
        }
        if (cls == AddressClass.NEVER) {
            throw new IllegalArgumentException(where + " '" + entry + "' is an unspecified, multicast, broadcast or"
                    + " reserved address; http_fetch never fetches one");
        }
    }

    /** The address alone: no host name, no scope, and an IPv4-mapped IPv6 address as IPv4. */
    private static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }

    private static String okHttpHost(String where, String host) {
        try {
            return new HttpUrl.Builder().scheme("http").host(host).build().host();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + " '" + host + "' is not a host OkHttp accepts", e);
        }
    }
}
