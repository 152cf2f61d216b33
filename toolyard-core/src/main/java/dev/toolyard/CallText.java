package dev.toolyard;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * A thread's scratch space for the two texts every call computes: its id, and the UTF-8 length and
 * SHA-256 of its arguments. The results are what {@code UUID.randomUUID().toString()} and
 * {@code Text.sha256(text.getBytes(UTF_8))} give (an unpaired surrogate counts as the {@code '?'} that
 * {@code getBytes} writes for it), without the intermediate {@code UUID}, byte array, digest array and
 * char array: the arguments are encoded in chunks into a buffer of this thread's, so no call allocates
 * in proportion to its arguments here. Ids come from this thread's own cryptographically strong generator
 * (as {@code UUID.randomUUID()}'s do, without its lock shared by every thread), drawn
 * {@value #IDS_PER_DRAW} ids at a time. Confined to its thread: use {@link #local()} and read the results
 * before the thread's next call.
 */
final class CallText {
    private static final ThreadLocal<CallText> LOCAL = ThreadLocal.withInitial(CallText::new);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
    private static final int CHUNK = 1024;
    static final int IDS_PER_DRAW = 64;

    private final MessageDigest sha256;
    private final byte[] chunk = new byte[CHUNK];
    private final byte[] hash = new byte[32];
    private final byte[] hex = new byte[64];
    private final byte[] id = new byte[36];
    private final SecureRandom random = strongGenerator();
    private final byte[] randomBits = new byte[16 * IDS_PER_DRAW];
    private int randomAt = randomBits.length;
    private long utf8Length;

    private CallText() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /** A generator of this thread's own: DRBG where the JDK has it, else the platform's default. */
    private static SecureRandom strongGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    /** @return this thread's scratch space */
    static CallText local() {
        return LOCAL.get();
    }

    /** @return a fresh random (version 4) UUID in its canonical lower-case text, as {@code UUID.toString()} writes it */
    String randomId() {
        if (randomAt == randomBits.length) {
            random.nextBytes(randomBits);
            randomAt = 0;
        }
        long msb = (nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        hexDigits(msb >>> 32, 8, 0);
        id[8] = '-';
        hexDigits(msb >>> 16, 4, 9);
        id[13] = '-';
        hexDigits(msb, 4, 14);
        id[18] = '-';
        hexDigits(lsb >>> 48, 4, 19);
        id[23] = '-';
        hexDigits(lsb, 12, 24);
        return new String(id, StandardCharsets.ISO_8859_1);
    }

    private long nextLong() {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (randomBits[randomAt++] & 0xFF);
        }
        return v;
    }

    private void hexDigits(long value, int digits, int at) {
        for (int i = digits - 1; i >= 0; i--) {
            id[at + i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
    }

    /**
     * Encodes {@code text} as UTF-8, counting and digesting it.
     *
     * @param text the arguments' text
     * @return the lower-case hex SHA-256 of its UTF-8 bytes; {@link #utf8Length()} is then their count
     */
    String sha256OfUtf8(String text) {
        long total = 0;
        int n = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            if (n > CHUNK - 4) {
                sha256.update(chunk, 0, n);
                total += n;
                n = 0;
            }
            char c = text.charAt(i);
            if (c < 0x80) {
                chunk[n++] = (byte) c;
            } else if (c < 0x800) {
                chunk[n++] = (byte) (0xC0 | (c >> 6));
                chunk[n++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                char low;
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(low = text.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, low);
                    chunk[n++] = (byte) (0xF0 | (cp >> 18));
                    chunk[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    chunk[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    chunk[n++] = (byte) (0x80 | (cp & 0x3F));
                    i++;
                } else {
                    chunk[n++] = '?'; // as String.getBytes(UTF_8) replaces an unpaired surrogate
                }
            } else {
                chunk[n++] = (byte) (0xE0 | (c >> 12));
                chunk[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                chunk[n++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        sha256.update(chunk, 0, n);
        utf8Length = total + n;
        try {
            sha256.digest(hash, 0, hash.length); // resets the digest for the next call
        } catch (DigestException e) {
            throw new IllegalStateException("a 32-byte buffer holds a SHA-256", e);
        }
        for (int i = 0; i < hash.length; i++) {
            hex[2 * i] = HEX[(hash[i] >> 4) & 0xF];
            hex[2 * i + 1] = HEX[hash[i] & 0xF];
        }
        return new String(hex, StandardCharsets.ISO_8859_1);
    }

    /** @return the UTF-8 length of the text {@link #sha256OfUtf8} last digested */
    long utf8Length() {
        return utf8Length;
    }
}
