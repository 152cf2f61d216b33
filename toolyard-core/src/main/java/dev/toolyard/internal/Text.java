package dev.toolyard.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** UTF-8 sizes, capping on a character boundary, and digests. Exported only to ToolYard's own modules. */
public final class Text {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
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
    public static long utf8Length(CharSequence s) {
        long n = 0;
        int len = s.length();
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
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
        long total = utf8Length(s);
        if (total <= maxBytes) {
            return new Capped(s, false);
        }
        String label = label(maxBytes, total);
        return new Capped(prefixWithin(s, maxBytes - utf8Length(label)) + label, true);
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

    /** A capped text and whether it was cut. */
    public record Capped(String text, boolean truncated) {}
}
