package dev.toolyard.contracts.internal;

import dev.toolyard.builtins.AddressClass;
import dev.toolyard.builtins.IpLiterals;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Host names, IP literals and CIDR ranges as network-target arguments read them, and the host policy
 * applied to them. Addresses are read by {@code http_fetch}'s own {@link IpLiterals} and classified by
 * its own {@link AddressClass}: one implementation, so a target {@code block_internal} lets through is
 * one {@code http_fetch} would classify the same way.
 *
 * <p>Always refused, whatever the manifest says: link-local addresses (cloud metadata lives there), a
 * host that is a number but not a canonical dotted quad (some parser reads it as an address), a host
 * name that embeds a link-local address, well-known metadata names, IPv4 ranges wider than /8 and IPv6
 * ranges wider than /16 or inside a prefix that embeds IPv4. With {@code block_internal}: also
 * loopback, private, CGNAT, unspecified, multicast and reserved addresses and ranges overlapping them,
 * internal name suffixes, and any host name that embeds an IPv4 address. Stateless.
 */
public final class TargetHosts {
    private static final Set<String> INTERNAL_SUFFIXES = Set.of(
            "localhost", "local", "internal", "intranet", "lan", "home", "corp", "private", "localdomain",
            "home.arpa", "in-addr.arpa", "ip6.arpa");
    private static final Set<String> METADATA_NAMES = Set.of(
            "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal");
    private static final Pattern DASHED_IPV4 =
            Pattern.compile("(?:^|[^0-9])([0-9]{1,3})-([0-9]{1,3})-([0-9]{1,3})-([0-9]{1,3})(?:[^0-9]|$)");

    private TargetHosts() {}

    /** A CIDR range: its address as written (host bits kept) and its prefix length. */
    public record Cidr(byte[] address, int prefix) {
        /** @return whether {@code ip} (of the same family) lies in this range */
        public boolean contains(byte[] ip) {
            return ip.length == address.length && samePrefix(address, ip, prefix);
        }

        /** @return whether {@code other} lies wholly inside this range */
        public boolean containsRange(Cidr other) {
            return other.address.length == address.length && other.prefix >= prefix
                    && samePrefix(address, other.address, prefix);
        }

        /** @return whether the two ranges share an address */
        public boolean overlaps(Cidr other) {
            return other.address.length == address.length
                    && samePrefix(address, other.address, Math.min(prefix, other.prefix));
        }

        /** @return the range written canonically, {@code address/prefix} */
        public String text() {
            return format(address) + "/" + prefix;
        }
    }

    /**
     * @param s a value
     * @return its 4 or 16 bytes when it is a canonical dotted quad or an IPv6 literal (no brackets, no
     *     zone), else {@code null}
     */
    public static byte[] ip(String s) {
        if (s.indexOf(':') >= 0) {
            return s.indexOf('%') >= 0 || s.indexOf('[') >= 0 ? null : IpLiterals.ipv6(s);
        }
        return IpLiterals.canonicalIpv4(s);
    }

    /**
     * @param s a value
     * @return the range when it is {@code address/prefix} with a prefix in range for the family and no
     *     leading zeros, else {@code null}
     */
    public static Cidr cidr(String s) {
        int slash = s.indexOf('/');
        if (slash <= 0 || slash != s.lastIndexOf('/') || slash == s.length() - 1) {
            return null;
        }
        byte[] address = ip(s.substring(0, slash));
        String p = s.substring(slash + 1);
        if (address == null || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')) {
            return null;
        }
        for (int i = 0; i < p.length(); i++) {
            if (p.charAt(i) < '0' || p.charAt(i) > '9') {
                return null;
            }
        }
        int prefix = Integer.parseInt(p);
        return prefix > address.length * 8 ? null : new Cidr(address, prefix);
    }

    /**
     * @param s a value, any case
     * @return whether it is a DNS host name: 1-253 characters, labels of 1-63 ASCII letters, digits and
     *     inner hyphens, and not ending in a number (a number is an address or nothing)
     */
    public static boolean hostname(String s) {
        if (s.isEmpty() || s.length() > 253 || s.endsWith(".")) {
            return false;
        }
        for (String label : s.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                return false;
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) {
                    return false;
                }
            }
        }
        return !IpLiterals.endsInNumber(s);
    }

    /** @return whether any label is an IDNA A-label ({@code xn--}), which may spell a look-alike */
    public static boolean punycode(String host) {
        for (String label : host.split("\\.", -1)) {
            if (label.regionMatches(true, 0, "xn--", 0, 4)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Applies the host policy to a host name (lower case).
     *
     * @param host the name
     * @param blockInternal whether internal targets are refused too
     * @return {@code null} when allowed, else why not (no value echoed)
     */
    public static String nameRefusal(String host, boolean blockInternal) {
        if (METADATA_NAMES.contains(host)) {
            return "is a cloud metadata name, which is never a target";
        }
        for (byte[] embedded : embeddedIpv4(host)) {
            AddressClass cls = AddressClass.of(embedded);
            if (cls == AddressClass.LINK_LOCAL) {
                return "embeds a link-local address, which is never a target";
            }
            if (blockInternal) {
                return "embeds an IPv4 address in the host name, refused with block_internal";
            }
        }
        if (blockInternal) {
            for (String suffix : INTERNAL_SUFFIXES) {
                if (host.equals(suffix) || host.endsWith("." + suffix)) {
                    return "is an internal name (." + suffix + "), refused with block_internal";
                }
            }
        }
        return null;
    }

    /**
     * Applies the host policy to an address.
     *
     * @param address 4 or 16 bytes
     * @param blockInternal whether internal targets are refused too
     * @return {@code null} when allowed, else why not
     */
    public static String addressRefusal(byte[] address, boolean blockInternal) {
        AddressClass cls = AddressClass.of(address);
        if (cls == AddressClass.LINK_LOCAL) {
            return "is a link-local address (169.254.0.0/16, fe80::/10, where cloud metadata lives), never a target";
        }
        if (blockInternal && cls != AddressClass.PUBLIC) {
            return "is a loopback, private, shared, unspecified, multicast or reserved address, refused with"
                    + " block_internal";
        }
        return null;
    }

    /**
     * Applies the host policy to a range: every /24 of an IPv4 range is classified (every non-public
     * class is a union of whole /24s), an IPv6 range by its first and last address.
     *
     * @param range the range
     * @param blockInternal whether ranges overlapping internal ones are refused too
     * @return {@code null} when allowed, else why not
     */
    public static String rangeRefusal(Cidr range, boolean blockInternal) {
        byte[] a = range.address();
        if (a.length == 4) {
            if (range.prefix() < 8) {
                return "is wider than /8, which is never a target";
            }
            long base = ((a[0] & 0xffL) << 24 | (a[1] & 0xffL) << 16 | (a[2] & 0xffL) << 8 | (a[3] & 0xffL))
                    & (0xffff_ffffL << (32 - range.prefix())) & 0xffff_ffffL;
            long blocks = range.prefix() >= 24 ? 1 : 1L << (24 - range.prefix());
            for (long i = 0; i < blocks; i++) {
                long v = base + (i << 8);
                byte[] b = {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
                String why = addressRefusal(b, blockInternal);
                if (why != null) {
                    return "overlaps a range that " + why.substring(3);
                }
            }
            return null;
        }
        if (range.prefix() < 16) {
            return "is wider than /16, which is never a target";
        }
        int w0 = (a[0] & 0xff) << 8 | (a[1] & 0xff);
        int w1 = (a[2] & 0xff) << 8 | (a[3] & 0xff);
        if (w0 == 0 || w0 == 0x0064 || w0 == 0x2002 || (w0 == 0x2001 && w1 == 0) || w0 == 0x0100) {
            return "lies in an IPv6 prefix that embeds IPv4 addresses; give the IPv4 range instead";
        }
        if (blockInternal && range.prefix() < 48) {
            return "is wider than /48, too wide to be checked for internal addresses with block_internal";
        }
        byte[] first = a.clone();
        byte[] last = a.clone();
        for (int bit = range.prefix(); bit < 128; bit++) {
            first[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
            last[bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
        String why = addressRefusal(first, blockInternal);
        if (why == null) {
            why = addressRefusal(last, blockInternal);
        }
        return why == null ? null : "overlaps a range that " + why.substring(3);
    }

    /** Every IPv4 address a host name spells in four dotted or dashed decimal labels. */
    static java.util.List<byte[]> embeddedIpv4(String host) {
        java.util.List<byte[]> out = new java.util.ArrayList<>();
        String[] labels = host.split("\\.", -1);
        for (int i = 0; i + 4 <= labels.length; i++) {
            byte[] b = IpLiterals.canonicalIpv4(labels[i] + "." + labels[i + 1] + "." + labels[i + 2] + "." + labels[i + 3]);
            if (b != null) {
                out.add(b);
            }
        }
        java.util.regex.Matcher m = DASHED_IPV4.matcher(host);
        int from = 0;
        while (from < host.length() && m.find(from)) {
            byte[] b = IpLiterals.canonicalIpv4(m.group(1) + "." + m.group(2) + "." + m.group(3) + "." + m.group(4));
            if (b != null) {
                out.add(b);
            }
            from = m.start(1) + 1;
        }
        return out;
    }

    /** @return the address in canonical text: a dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as ::) */
    public static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = (a[2 * i] & 0xff) << 8 | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (w[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && w[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(w[i]));
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }

    private static boolean samePrefix(byte[] a, byte[] b, int bits) {
        for (int bit = 0; bit < bits; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }
}
