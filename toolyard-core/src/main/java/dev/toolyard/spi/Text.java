package dev.toolyard.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** UTF-8 sizes, capping on a character boundary, and digests. Exported only to ToolYard's own modules. */
public final class Text {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final ThreadLocal<char[]> CHUNK = ThreadLocal.withInitial(() -> new char[2048]);
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    });

    private Text() {}

    /**
     * @param s the text
     * @return its UTF-8 length in bytes (an unpaired surrogate counts as the replacement's 3)
     */
    public static long utf8Length(String s) {
        int len = s.length();
        char[] chunk = CHUNK.get();
        long n = len; // every char is at least one byte; add what the others need beyond it
        for (int off = 0; off < len; off += chunk.length) {
            int end = Math.min(len, off + chunk.length);
            s.getChars(off, end, chunk, 0); // a plain array loop compiles well whatever the string's coder
            for (int i = 0, count = end - off; i < count; i++) {
                char c = chunk[i];
                if (c < 0x80) {
                    continue;
                }
                if (c < 0x800) {
                    n += 1;
                } else if (!Character.isSurrogate(c)) {
                    n += 2;
                } else {
                    int at = off + i;
                    boolean paired = Character.isHighSurrogate(c)
                            ? at + 1 < len && Character.isLowSurrogate(s.charAt(at + 1))
                            : at > 0 && Character.isHighSurrogate(s.charAt(at - 1));
                    n += paired ? 1 : 2; // a pair is 4 bytes in all; an unpaired one becomes U+FFFD, 3
                }
            }
        }
        return n;
    }

    /**
     * Caps {@code s} at {@code maxBytes} UTF-8 bytes, label included. When cut, the text stops on a
     * character boundary and ends with a label stating both byte counts, so a model knows the text
     * stopped rather than ended.
     *
     * @param s the text; never {@code null}
     * @param maxBytes the cap, at least 256 so the label always fits
     * @return the text, or its head followed by the label
     */
    public static Capped cap(String s, int maxBytes) {
        if ((long) s.length() * 3 <= maxBytes) {
            return new Capped(s, false, -1); // no char takes more than 3 bytes: fits, nothing to count
        }
        return cap(s, utf8Length(s), maxBytes);
    }

    /**
     * As {@link #cap(String, int)}, with the text's UTF-8 length already known.
     *
     * @param s the text; never {@code null}
     * @param totalBytes {@code utf8Length(s)}
     * @param maxBytes the cap, at least 256
     * @return the text, or its head followed by the label
     */
    public static Capped cap(String s, long totalBytes, int maxBytes) {
        if (totalBytes <= maxBytes) {
            return new Capped(s, false, totalBytes);
        }
        String label = label(maxBytes, totalBytes);
        return new Capped(prefixWithin(s, maxBytes - label.length()) + label, true, totalBytes);
    }

    /**
     * @param s the text
     * @param budgetBytes the most UTF-8 bytes the prefix may take
     * @return the longest prefix of {@code s} within the budget that ends on a character boundary
     */
    public static String prefixWithin(String s, long budgetBytes) {
        int end = 0;
        long used = 0;
        int len = s.length();
        while (end < len) {
            char c = s.charAt(end);
            int width;
            int chars = 1;
            if (c < 0x80) {
                width = 1;
            } else if (c < 0x800) {
                width = 2;
            } else if (Character.isHighSurrogate(c) && end + 1 < len && Character.isLowSurrogate(s.charAt(end + 1))) {
                width = 4;
                chars = 2;
            } else {
                width = 3;
            }
            if (used + width > budgetBytes) {
                break;
            }
            used += width;
            end += chars;
        }
        return s.substring(0, end);
    }

    /**
     * @param shownBytes the cap
     * @param totalBytes the original size
     * @return the truncation label, stating both
     */
    public static String label(long shownBytes, long totalBytes) {
        return "\n[truncated: showing at most " + shownBytes + " of " + totalBytes + " bytes]";
    }

    /**
     * @param s the text
     * @return the lower-case hex SHA-256 of its UTF-8 bytes
     */
    public static String sha256(String s) {
        return sha256(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param bytes the bytes
     * @return their lower-case hex SHA-256
     */
    public static String sha256(byte[] bytes) {
        byte[] d = SHA256.get().digest(bytes); // digest() resets the instance for the next use
        char[] out = new char[d.length * 2];
        for (int i = 0; i < d.length; i++) {
            out[2 * i] = HEX[(d[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[d[i] & 0xF];
        }
        return new String(out);
    }

    /**
     * Shortens model-supplied text for a detail or a record: at most {@code maxChars} characters, never
     * splitting a surrogate pair, with an ellipsis when cut.
     *
     * @param s the text
     * @param maxChars the most characters kept
     * @return the text, or its head and an ellipsis
     */
    public static String clip(String s, int maxChars) {
        if (s.length() <= maxChars) {
            return s;
        }
        int end = maxChars;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }

    /**
     * A capped text, whether it was cut, and the original's UTF-8 length when it was counted.
     *
     * @param text the text within the cap
     * @param truncated whether it was cut
     * @param totalBytes the original's UTF-8 length, or -1 when the cap could be judged without counting
     */
    public record Capped(String text, boolean truncated, long totalBytes) {}
}
