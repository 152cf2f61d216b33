package dev.toolyard.builtins;

import java.net.InetAddress;

/**
 * What kind of destination an IP address is, as far as the egress policy cares. Declared from the
 * least to the most restricted, so that {@link #worst} of two readings of one address is the one to
 * act on. An IPv6 address that embeds an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated,
 * NAT64, 6to4, Teredo) is classified as the worse of itself and the embedded address, because some
 * network stack on the way may route it to the embedded one.
 *
 * <p>Public only for {@code dev.toolyard.contracts}, whose {@code block_internal} must classify an
 * address exactly as {@code http_fetch} does; this package is exported to that module alone.
 */
public enum AddressClass {
    /** Anything not listed below. */
    PUBLIC,
    /** 127.0.0.0/8 and ::1. */
    LOOPBACK,
    /**
     * 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), 192.0.0.0/24, 198.18/15, fc00::/7 (ULA) and
     * fec0::/10 (site-local), and the local-use NAT64 prefix 64:ff9b:1::/48.
     */
    PRIVATE,
    /**
     * 0.0.0.0/8 (connecting to 0.0.0.0 reaches the local host), ::, multicast (224/4, ff00::/8), 240/4
     * including the broadcast address 255.255.255.255, and the discard prefix 100::/64.
     */
    NEVER,
    /** 169.254.0.0/16 and fe80::/10: where cloud metadata services live. */
    LINK_LOCAL;

    /** Byte offsets of the IPv4 address for NAT64 prefixes of length 32, 40, 48, 56, 64 and 96 (RFC 6052). */
    private static final int[][] NAT64_LAYOUTS =
            {{4, 5, 6, 7}, {5, 6, 7, 9}, {6, 7, 9, 10}, {7, 9, 10, 11}, {9, 10, 11, 12}, {12, 13, 14, 15}};

    /**
     * @param other another reading of the same address
     * @return the more restricted of the two
     */
    public AddressClass worst(AddressClass other) {
        return other.ordinal() > ordinal() ? other : this;
    }

    /**
     * @param address an address
     * @return its class
     */
    public static AddressClass of(InetAddress address) {
        return of(address.getAddress());
    }

    /**
     * @param address 4 or 16 bytes, network order
     * @return its class
     * @throws IllegalArgumentException for any other length
     */
    public static AddressClass of(byte[] address) {
        if (address.length == 4) {
            return ofIpv4(u(address[0]), u(address[1]), u(address[2]), u(address[3]));
        }
        if (address.length == 16) {
            return ofIpv6(address);
        }
        throw new IllegalArgumentException("an IP address has 4 or 16 bytes, got " + address.length);
    }

    private static AddressClass ofIpv4(int a, int b, int c, int d) {
        if (a == 169 && b == 254) {
            return LINK_LOCAL;
        }
        if (a == 0 || a >= 224) {
            return NEVER;
        }
        if (a == 127) {
            return LOOPBACK;
        }
        if (a == 10
                || (a == 172 && b >= 16 && b <= 31)
                || (a == 192 && b == 168)
                || (a == 100 && b >= 64 && b <= 127)
                || (a == 192 && b == 0 && c == 0)
                || (a == 198 && (b == 18 || b == 19))) {
            return PRIVATE;
        }
        return PUBLIC;
    }

    private static AddressClass ofIpv6(byte[] a) {
        if (zeros(a, 0, 10)) {
            int w5 = word(a, 5);
            if (w5 == 0xffff) {
                return embedded(a, 12, PUBLIC);                 // ::ffff:a.b.c.d, IPv4-mapped
            }
            if (w5 == 0) {
                if (zeros(a, 10, 16)) {
                    return NEVER;                               // ::
                }
                if (zeros(a, 10, 15) && a[15] == 1) {
                    return LOOPBACK;                            // ::1
                }
                return embedded(a, 12, PUBLIC);                 // ::a.b.c.d, IPv4-compatible
            }
        }
        if (zeros(a, 0, 8) && word(a, 4) == 0xffff && word(a, 5) == 0) {
            return embedded(a, 12, PUBLIC);                     // ::ffff:0:a.b.c.d, IPv4-translated
        }
        int w0 = word(a, 0);
        int w1 = word(a, 1);
        if (w0 == 0x0064 && w1 == 0xff9b) {
            if (zeros(a, 4, 12)) {
                return embedded(a, 12, PUBLIC);                 // 64:ff9b::/96, the well-known NAT64 prefix
            }
            // 64:ff9b:1::/48 is for local-use translators (RFC 8215), and the rest of 64:ff9b::/32 is
            // treated alike: an operator's translator, internal by definition. The IPv4 address sits
            // wherever the operator's prefix length puts it (RFC 6052), so every layout is read, and any
            // link-local reading makes the address link-local.
            for (int[] l : NAT64_LAYOUTS) {
                if (ofIpv4(u(a[l[0]]), u(a[l[1]]), u(a[l[2]]), u(a[l[3]])) == LINK_LOCAL) {
                    return LINK_LOCAL;
                }
            }
            return PRIVATE;
        }
        if (w0 == 0x2002) {
            return embedded(a, 2, PUBLIC);                      // 6to4
        }
        if (w0 == 0x2001 && w1 == 0) {                          // Teredo: server, then the obfuscated client
            return embedded(a, 4, PUBLIC)
                    .worst(ofIpv4(u(a[12]) ^ 0xff, u(a[13]) ^ 0xff, u(a[14]) ^ 0xff, u(a[15]) ^ 0xff));
        }
        int b0 = u(a[0]);
        int b1 = u(a[1]);
        if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
            return LINK_LOCAL;                                  // fe80::/10
        }
        if (b0 == 0xff) {
            return NEVER;                                       // multicast
        }
        if (w0 == 0x0100 && zeros(a, 2, 8)) {
            return NEVER;                                       // 100::/64, discard
        }
        if ((b0 == 0xfe && (b1 & 0xc0) == 0xc0) || (b0 & 0xfe) == 0xfc) {
            return PRIVATE;                                     // fec0::/10 site-local, fc00::/7 unique local
        }
        return PUBLIC;
    }

    private static AddressClass embedded(byte[] a, int offset, AddressClass floor) {
        return floor.worst(ofIpv4(u(a[offset]), u(a[offset + 1]), u(a[offset + 2]), u(a[offset + 3])));
    }

    private static boolean zeros(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static int word(byte[] a, int index) {
        return (u(a[2 * index]) << 8) | u(a[2 * index + 1]);
    }

    private static int u(byte b) {
        return b & 0xff;
    }
}
