package dev.toolyard.builtins.internal;

/**
 * A file name made safe to show a model on one line: a name may hold a newline, a tab or any other
 * control character, and printed raw it could forge a line of a listing. Backslash and control
 * characters are escaped ({@code \n}, {@code \t}, {@code \r}, {@code \\}, any other as a backslash, a
 * {@code u} and four hexadecimal digits); everything else is kept. Stateless.
 */
public final class PrintableName {
    private PrintableName() {}

    /**
     * @param name a file name; never {@code null}
     * @return the name with backslashes and control characters escaped
     */
    public static String of(String name) {
        StringBuilder b = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            String escape = escape(c);
            if (escape != null && b == null) {
                b = new StringBuilder(name.length() + 8).append(name, 0, i);
            }
            if (b != null) {
                if (escape != null) {
                    b.append(escape);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? name : b.toString();
    }

    private static String escape(char c) {
        switch (c) {
            case '\\':
                return "\\\\";
            case '\n':
                return "\\n";
            case '\t':
                return "\\t";
            case '\r':
                return "\\r";
            default:
                if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                    return String.format("\\u%04x", (int) c);
                }
                return null;
        }
    }
}
