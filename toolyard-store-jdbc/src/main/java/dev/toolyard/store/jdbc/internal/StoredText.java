package dev.toolyard.store.jdbc.internal;

/**
 * Makes any Java string storable, exactly, in a database text column. PostgreSQL refuses U+0000 in
 * text, and no database keeps an unpaired surrogate (UTF-8 cannot encode one), yet both can reach a
 * record: a model chooses tool names and arguments, and a handler's output becomes the summary.
 *
 * <p>A string with neither, and not starting with {@link #MARK}, is stored as it is, so the rows stay
 * readable with any SQL client. Any other string is stored as {@code MARK} followed by its text with
 * a backslash written as two, U+0000 written as a backslash and {@code 0}, and an unpaired surrogate
 * written as a backslash, {@code u} and its four hex digits. The mapping is injective and
 * deterministic, so equality queries encode their parameter the same way. Stateless; thread-safe.
 */
public final class StoredText {
    /** Starts every escaped string: a private-use character, so ordinary text never needs escaping. */
    public static final char MARK = '\uE000';

    private StoredText() {}

    /**
     * @param text any string; never {@code null}
     * @return the form to store; never {@code null}
     */
    public static String encode(String text) {
        if (!needsEscaping(text)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(MARK);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\0') {
                out.append("\\0");
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * @param stored a value {@link #encode} returned; never {@code null}
     * @return the original string; never {@code null}
     * @throws IllegalArgumentException if {@code stored} starts with {@link #MARK} but is not a valid escape
     */
    public static String decode(String stored) {
        if (stored.isEmpty() || stored.charAt(0) != MARK) {
            return stored;
        }
        StringBuilder out = new StringBuilder(stored.length());
        for (int i = 1; i < stored.length(); i++) {
            char c = stored.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i + 1 >= stored.length()) {
                throw new IllegalArgumentException("stored text ends inside an escape");
            }
            char next = stored.charAt(++i);
            if (next == '\\') {
                out.append('\\');
            } else if (next == '0') {
                out.append('\0');
            } else if (next == 'u' && i + 4 < stored.length()) {
                int unit = 0;
                for (int k = 1; k <= 4; k++) {
                    int digit = Character.digit(stored.charAt(i + k), 16);
                    if (digit < 0) {
                        throw new IllegalArgumentException("stored text has a malformed \\u escape");
                    }
                    unit = unit * 16 + digit;
                }
                out.append((char) unit);
                i += 4;
            } else {
                throw new IllegalArgumentException("stored text has an unknown escape \\" + next);
            }
        }
        return out.toString();
    }

    private static boolean needsEscaping(String text) {
        if (!text.isEmpty() && text.charAt(0) == MARK) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') {
                return true;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
