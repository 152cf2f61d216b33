package dev.toolyard.builtins;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads IP addresses out of host strings, by hand, so that no text ever reaches
 * {@link java.net.InetAddress#getByName} (which would resolve a name it cannot parse).
 *
 * <p>Two kinds of reading. The strict ones ({@link #canonicalIpv4}, {@link #ipv6}) accept exactly the
 * forms OkHttp connects to without asking its {@code Dns}: a dotted quad and an IPv6 literal. The
 * lenient one ({@link #numericReadings}) returns every address that some parser on some system might
 * take a numeric host for (inet_aton's octal and hexadecimal parts, the one-, two- and three-part
 * short forms, Java's decimal-only reading, and the value wrapped to 32 bits), so that the policy can
 * classify every one of them.
 *
 * <p>Public only for {@code dev.toolyard.contracts}, which must read addresses exactly as
 * {@code http_fetch} does. Stateless.
 */
public final class IpLiterals {
    private static final BigInteger MASK32 = BigInteger.valueOf(0xffff_ffffL);

    private IpLiterals() {}

    /**
     * @param s a host
     * @return the 4 bytes when {@code s} is a dotted quad in canonical form (four decimal parts, 0-255,
     *     no leading zeros), else {@code null}
     */
    public static byte[] canonicalIpv4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')) {
                return null;
            }
            int v = 0;
            for (int j = 0; j < p.length(); j++) {
                char c = p.charAt(j);
                if (c < '0' || c > '9') {
                    return null;
                }
                v = v * 10 + (c - '0');
            }
            if (v > 255) {
                return null;
            }
            out[i] = (byte) v;
        }
        return out;
    }

    /**
     * @param s an IPv6 address without brackets and without a zone id, for example {@code fe80::1} or
     *     {@code ::ffff:169.254.169.254}
     * @return its 16 bytes, or {@code null} if {@code s} is not one
     */
    public static byte[] ipv6(String s) {
        if (s.isEmpty() || s.length() > 45) {
            return null;
        }
        byte[] out = new byte[16];
        int words = 0;
        int compressAt = -1;
        int i = 0;
        int n = s.length();
        if (s.startsWith("::")) {
            compressAt = 0;
            i = 2;
            if (i == n) {
                return out;
            }
        } else if (s.charAt(0) == ':') {
            return null;
        }
        while (i < n) {
            if (words == 8) {
                return null;
            }
            int start = i;
            int value = 0;
            while (i < n && Character.digit(s.charAt(i), 16) >= 0 && isAsciiHex(s.charAt(i))) {
                value = (value << 4) | Character.digit(s.charAt(i), 16);
                i++;
                if (i - start > 4) {
                    return null;
                }
            }
            if (i < n && s.charAt(i) == '.') {
                // An embedded dotted quad ends the address and takes two words.
                if (words > 6) {
                    return null;
                }
                byte[] v4 = canonicalIpv4(s.substring(start));
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, out, 2 * words, 4);
                words += 2;
                i = n;
                break;
            }
            if (i == start) {
                return null;
            }
            out[2 * words] = (byte) (value >>> 8);
            out[2 * words + 1] = (byte) value;
            words++;
            if (i == n) {
                break;
            }
            if (s.charAt(i) != ':') {
                return null;
            }
            i++;
            if (i < n && s.charAt(i) == ':') {
                if (compressAt >= 0) {
                    return null;
                }
                compressAt = words;
                i++;
                if (i == n) {
                    break;
                }
            } else if (i == n) {
                return null;
            }
        }
        if (compressAt < 0) {
            return words == 8 ? out : null;
        }
        if (words == 8) {
            return null;
        }
        // Move the words after the "::" to the end.
        int tail = words - compressAt;
        byte[] moved = new byte[16];
        System.arraycopy(out, 0, moved, 0, 2 * compressAt);
        System.arraycopy(out, 2 * compressAt, moved, 16 - 2 * tail, 2 * tail);
        return moved;
    }

    /**
     * The WHATWG URL rule for hosts that are numbers: the last label (after one trailing dot is removed)
     * is decimal digits, or {@code 0x} followed by hexadecimal digits. A browser parses such a host as an
     * IPv4 address; {@code java.net.InetAddress} parses some of them too. No such host is ever a name.
     *
     * @param host a host, lower case or not
     * @return whether the host ends in a number
     */
    public static boolean endsInNumber(String host) {
        String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        String last = h.substring(h.lastIndexOf('.') + 1);
        if (last.isEmpty()) {
            return false;
        }
        if (allDigits(last, 0, 10)) {
            return true;
        }
        String lower = last.toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") && allDigits(lower, 2, 16);
    }

    /**
     * Every IPv4 address some parser may read {@code host} as: inet_aton (parts in decimal, octal with a
     * leading {@code 0}, hexadecimal with {@code 0x}; one to four parts, the last filling the remaining
     * bytes), a decimal-only reading of the same parts, and each of these wrapped to 32 bits as an
     * overflowing parser would. One trailing dot is ignored.
     *
     * @param host a host
     * @return the readings, 4 bytes each; empty when no part structure fits
     */
    public static List<byte[]> numericReadings(String host) {
        String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        List<byte[]> out = new ArrayList<>();
        if (h.isEmpty() || h.length() > 253) {
            return out;
        }
        String[] parts = h.split("\\.", -1);
        if (parts.length > 4) {
            return out;
        }
        for (boolean decimalOnly : new boolean[] {false, true}) {
            BigInteger[] values = new BigInteger[parts.length];
            boolean ok = true;
            for (int i = 0; i < parts.length && ok; i++) {
                values[i] = part(parts[i], decimalOnly);
                ok = values[i] != null;
            }
            if (!ok) {
                continue;
            }
            addReadings(values, out);
        }
        return out;
    }

    private static void addReadings(BigInteger[] values, List<byte[]> out) {
        int n = values.length;
        BigInteger lastMax = BigInteger.ONE.shiftLeft(8 * (5 - n)).subtract(BigInteger.ONE);
        BigInteger byteMax = BigInteger.valueOf(255);
        boolean strict = values[n - 1].compareTo(lastMax) <= 0;
        BigInteger sum = values[n - 1];
        long fieldsWrapped = values[n - 1].and(lastMax).longValue();
        for (int i = 0; i < n - 1; i++) {
            strict &= values[i].compareTo(byteMax) <= 0;
            sum = sum.add(values[i].shiftLeft(8 * (3 - i)));
            fieldsWrapped |= (values[i].longValue() & 0xff) << (8 * (3 - i));
        }
        if (strict) {
            out.add(bytes(sum.longValue()));
        }
        out.add(bytes(fieldsWrapped));
        out.add(bytes(sum.and(MASK32).longValue()));
    }

    private static BigInteger part(String p, boolean decimalOnly) {
        if (p.isEmpty() || p.length() > 64) {
            return null;
        }
        String lower = p.toLowerCase(Locale.ROOT);
        if (decimalOnly) {
            return allDigits(lower, 0, 10) ? new BigInteger(lower, 10) : null;
        }
        if (lower.startsWith("0x")) {
            if (!allDigits(lower, 2, 16)) {
                return null;
            }
            return lower.length() == 2 ? BigInteger.ZERO : new BigInteger(lower.substring(2), 16);
        }
        if (lower.length() > 1 && lower.charAt(0) == '0') {
            return allDigits(lower, 1, 8) ? new BigInteger(lower.substring(1), 8) : null;
        }
        return allDigits(lower, 0, 10) ? new BigInteger(lower, 10) : null;
    }

    private static boolean allDigits(String s, int from, int radix) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!isAsciiHex(c) || Character.digit(c, radix) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static byte[] bytes(long v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }
}
