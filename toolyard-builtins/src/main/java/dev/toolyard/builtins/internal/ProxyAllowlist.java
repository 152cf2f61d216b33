package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.AddressClass;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The hosts and ports a sandboxed command may reach through {@link CommandProxy}, checked and
 * normalised once, when the tool is built.
 *
 * <p>An entry is a host name ({@code pypi.test}), a suffix name ({@code *.example.test}: any name
 * ending in {@code .example.test}, not {@code example.test} itself), a dotted quad or an IPv6 literal
 * ({@code [::1]} or {@code ::1}), each optionally followed by {@code :port} (IPv6 in brackets then),
 * which admits that port only; an entry without a port admits the default ports. Names are normalised
 * as {@code http_fetch}'s are ({@link HostAllowlist#nameEntry}). A literal entry also lets a listed
 * name reach that address when it is loopback or private, as {@code http_fetch}'s does. Immutable.
 * Thread-safe.
 */
final class ProxyAllowlist {
    private static final String PARAMETER = "hosts";

    private final Map<String, Set<Integer>> names;
    private final Map<String, Set<Integer>> suffixes;
    private final Map<InetAddress, Set<Integer>> literals;

    private ProxyAllowlist(Map<String, Set<Integer>> names, Map<String, Set<Integer>> suffixes,
            Map<InetAddress, Set<Integer>> literals) {
        this.names = Map.copyOf(names);
        this.suffixes = Map.copyOf(suffixes);
        this.literals = Map.copyOf(literals);
    }

    /**
     * @param entries the application's entries; at least one
     * @param defaultPorts the ports an entry without its own admits; at least one
     * @return the checked allowlist
     * @throws IllegalArgumentException naming {@code hosts[i]} for an entry that is not one of the forms
     *     above, or is a link-local, unspecified, multicast or broadcast address
     */
    static ProxyAllowlist of(List<String> entries, Set<Integer> defaultPorts) {
        Objects.requireNonNull(entries, PARAMETER);
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(PARAMETER + " must name at least one host; a command without "
                    + "network needs no CommandNetwork");
        }
        Map<String, Set<Integer>> names = new HashMap<>();
        Map<String, Set<Integer>> suffixes = new HashMap<>();
        Map<InetAddress, Set<Integer>> literals = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            String where = PARAMETER + "[" + i + "]";
            String entry = Objects.requireNonNull(entries.get(i), where);
            String host = entry;
            Set<Integer> ports = defaultPorts;
            int close = entry.indexOf(']');
            int colon = close >= 0 ? entry.indexOf(':', close) : entry.indexOf(':');
            boolean bareIpv6 = close < 0 && colon >= 0 && entry.indexOf(':', colon + 1) >= 0;
            if (colon >= 0 && !bareIpv6) {
                host = entry.substring(0, colon);
                ports = Set.of(port(where, entry, entry.substring(colon + 1)));
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            byte[] address = host.indexOf(':') >= 0 ? IpLiterals.ipv6(host) : IpLiterals.canonicalIpv4(host);
            if (host.indexOf(':') >= 0 && address == null) {
                throw new IllegalArgumentException(where + " '" + entry + "' is neither a host name nor an IPv6 address");
            }
            if (address != null) {
                AddressClass cls = AddressClass.of(address);
                if (cls == AddressClass.LINK_LOCAL || cls == AddressClass.NEVER) {
                    throw new IllegalArgumentException(where + " '" + entry + "' is a link-local, unspecified, multicast,"
                            + " broadcast or reserved address, which a command is never let reach");
                }
                merge(literals, plain(address), ports);
                continue;
            }
            if (IpLiterals.endsInNumber(host)) {
                throw new IllegalArgumentException(where + " '" + entry + "' is a number but not a dotted quad in canonical"
                        + " form (a.b.c.d, each 0-255, no leading zeros); write the address that way");
            }
            boolean suffix = host.startsWith("*.");
            String bare = suffix ? host.substring(2) : host;
            HostAllowlist.checkBare(where, bare);
            String ascii = HostAllowlist.nameEntry(where, bare);
            merge(suffix ? suffixes : names, ascii, ports);
        }
        return new ProxyAllowlist(names, suffixes, literals);
    }

    /**
     * @param name a host name in lower-case ASCII
     * @return the ports the name may be reached on; empty when it is not listed at all
     */
    Set<Integer> portsForName(String name) {
        Set<Integer> ports = new TreeSet<>(names.getOrDefault(name, Set.of()));
        for (int dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
            ports.addAll(suffixes.getOrDefault(name.substring(dot + 1), Set.of()));
        }
        return ports;
    }

    /**
     * @param address an address literal the command named
     * @return the ports it may be reached on; empty when it is not listed
     */
    Set<Integer> portsForLiteral(InetAddress address) {
        return literals.getOrDefault(plain(address.getAddress()), Set.of());
    }

    /**
     * @param answer an address a listed name resolved to
     * @return whether that address is itself listed, which lets a name reach a loopback or private one
     */
    boolean listsAddress(InetAddress answer) {
        return literals.containsKey(plain(answer.getAddress()));
    }

    @Override
    public String toString() {
        // Counts only, as HostAllowlist: the members are not shown.
        return "ProxyAllowlist[" + names.size() + " names, " + suffixes.size() + " suffixes, " + literals.size()
                + " addresses]";
    }

    private static int port(String where, String entry, String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(where + " '" + entry + "' has a port that is not a number 1-65535");
        }
        int port = Integer.parseInt(text);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(where + " '" + entry + "' has a port that is not a number 1-65535");
        }
        return port;
    }

    private static <K> void merge(Map<K, Set<Integer>> into, K key, Set<Integer> ports) {
        Set<Integer> merged = new TreeSet<>(into.getOrDefault(key, Set.of()));
        merged.addAll(ports);
        into.put(key, Set.copyOf(merged));
    }

    /** The address alone: an IPv4-mapped IPv6 address as IPv4, no name, no scope. */
    static InetAddress plain(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }
}
