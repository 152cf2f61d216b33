package dev.toolyard.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the arguments of a call into the very tree {@code Json.MAPPER.readTree} builds, without Jackson's
 * parser and deserialization context (about 700 of the 1,040 bytes a small call's {@code readTree}
 * allocates), for the plain documents models send: a JSON object of strings, integers that fit a
 * {@code long}, booleans, {@code null}, arrays and objects, at most {@link #MAX_DEPTH} deep. Everything
 * else it declines, and the caller reads the text with Jackson as before, so a refusal (its detail
 * included) and every tree of a document outside the plain subset are Jackson's own:
 *
 * <ul>
 *   <li>any text Jackson would refuse: broken syntax, a duplicate key, trailing content, a control
 *       character in a string, a bad escape, leading zeros, a root that is not an object;
 *   <li>numbers with a fraction or an exponent, and integers of 19 digits or more (their node kinds
 *       depend on the mapper's settings);
 *   <li>names over {@link #MAX_NAME_CHARS} characters, texts over {@link #MAX_TEXT_CHARS} characters and
 *       nesting past {@link #MAX_DEPTH}, which are far inside the mapper's own limits.
 * </ul>
 *
 * Where it answers, the tree equals Jackson's node for node, kinds included ({@code IntNode} where the
 * value fits an {@code int}, {@code LongNode} otherwise), properties in document order
 * ({@code ArgumentsTreeDifferentialFuzzTest}). Exported only to ToolYard's own modules. Stateless;
 * thread-safe.
 */
public final class ArgumentsTree {
    /** Deepest nesting read here; deeper documents go to Jackson (whose limit is 64). */
    public static final int MAX_DEPTH = 32;
    /** Longest property name read here; longer ones go to Jackson (whose limit is 4,096). */
    public static final int MAX_NAME_CHARS = 1024;
    /** Longest text read here; longer ones go to Jackson. */
    public static final int MAX_TEXT_CHARS = 64 * 1024;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final String[] NO_NAMES = new String[0];

    private final String text;
    private final int end;
    private final String[] names;
    private int pos;

    private ArgumentsTree(String text, String[] names) {
        this.text = text;
        this.end = text.length();
        this.names = names;
    }

    /** Thrown, without a stack trace, wherever the reader declines; never leaves this class. */
    private static final class Declined extends RuntimeException {
        static final Declined INSTANCE = new Declined();

        private Declined() {
            super(null, null, false, false);
        }
    }

    /**
     * @param text the arguments as the model sent them; never {@code null}
     * @return the tree {@code Json.MAPPER.readTree(text)} builds, or {@code null} when this reader declines
     *     the text and Jackson must read it
     */
    public static ObjectNode read(String text) {
        return read(text, NO_NAMES);
    }

    /**
     * @param declared the property names a schema declares at the top level; never {@code null}
     * @return those of them {@link #read(String, String[])} may key a tree by: the names a model writes
     *     without an escape (no quote, backslash or control character) and within {@link #MAX_NAME_CHARS};
     *     the very instances given, in their order
     */
    public static String[] plainNames(Iterable<String> declared) {
        List<String> plain = new ArrayList<>();
        for (String name : declared) {
            if (name.length() <= MAX_NAME_CHARS && name.chars().allMatch(c -> c >= 0x20 && c != '"' && c != '\\')) {
                plain.add(name);
            }
        }
        return plain.toArray(NO_NAMES);
    }

    /**
     * The same tree as {@link #read(String)}; a top-level property named as one of {@code names} is keyed
     * by that very {@code String} instead of a new copy (an equal string, so the tree is equal).
     *
     * @param text the arguments as the model sent them; never {@code null}
     * @param names what {@link #plainNames} returned for the tool's schema; never {@code null}, not modified
     * @return the tree {@code Json.MAPPER.readTree(text)} builds, or {@code null} when this reader declines
     *     the text and Jackson must read it
     */
    public static ObjectNode read(String text, String[] names) {
        if (text.length() > MAX_TEXT_CHARS) {
            return null;
        }
        ArgumentsTree reader = new ArgumentsTree(text, names);
        try {
            reader.skipWhitespace();
            if (reader.peek() != '{') {
                return null;
            }
            reader.pos++;
            ObjectNode root = reader.object(1);
            reader.skipWhitespace();
            return reader.pos == reader.end ? root : null;
        } catch (Declined | StringIndexOutOfBoundsException e) {
            return null;
        }
    }

    private int peek() {
        return pos < end ? text.charAt(pos) : -1;
    }

    private void skipWhitespace() {
        while (pos < end) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private void expect(char c) {
        if (pos >= end || text.charAt(pos) != c) {
            throw Declined.INSTANCE;
        }
        pos++;
    }

    /** Reads an object's members and its closing brace; the opening brace is already read. */
    private ObjectNode object(int depth) {
        if (depth > MAX_DEPTH) {
            throw Declined.INSTANCE;
        }
        // Room for three members before a resize, where Jackson's default map starts at sixteen: most calls
        // carry one to three arguments. The map is a LinkedHashMap either way, so the trees are equal.
        ObjectNode node = new ObjectNode(NODES, new LinkedHashMap<>(4));
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return node;
        }
        while (true) {
            skipWhitespace();
            expect('"');
            String name = depth == 1 ? name() : string();
            if (name.length() > MAX_NAME_CHARS) {
                throw Declined.INSTANCE;
            }
            skipWhitespace();
            expect(':');
            skipWhitespace();
            JsonNode value = value(depth);
            if (node.replace(name, value) != null) {
                throw Declined.INSTANCE; // a duplicate key: Jackson refuses it, in its own words
            }
            skipWhitespace();
            int c = peek();
            pos++;
            if (c == '}') {
                return node;
            }
            if (c != ',') {
                throw Declined.INSTANCE;
            }
        }
    }

    /** Reads an array's items and its closing bracket; the opening bracket is already read. */
    private ArrayNode array(int depth) {
        if (depth > MAX_DEPTH) {
            throw Declined.INSTANCE;
        }
        ArrayNode node = NODES.arrayNode();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return node;
        }
        while (true) {
            skipWhitespace();
            node.add(value(depth));
            skipWhitespace();
            int c = peek();
            pos++;
            if (c == ']') {
                return node;
            }
            if (c != ',') {
                throw Declined.INSTANCE;
            }
        }
    }

    private JsonNode value(int depth) {
        int c = peek();
        switch (c) {
            case '"':
                pos++;
                return NODES.stringNode(string());
            case '{':
                pos++;
                return object(depth + 1);
            case '[':
                pos++;
                return array(depth + 1);
            case 't':
                literal("true");
                return NODES.booleanNode(true);
            case 'f':
                literal("false");
                return NODES.booleanNode(false);
            case 'n':
                literal("null");
                return NODES.nullNode();
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return integer();
                }
                throw Declined.INSTANCE;
        }
    }

    /** A literal must be followed by a delimiter; {@code truex} is Jackson's to refuse. */
    private void literal(String word) {
        if (!text.startsWith(word, pos)) {
            throw Declined.INSTANCE;
        }
        pos += word.length();
        delimiter();
    }

    private void delimiter() {
        int c = peek();
        if (c != -1 && c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            throw Declined.INSTANCE;
        }
    }

    /** An integer of at most 18 digits, no leading zero; anything else (a fraction, an exponent) declines. */
    private JsonNode integer() {
        boolean negative = text.charAt(pos) == '-';
        if (negative) {
            pos++;
        }
        int start = pos;
        long value = 0;
        while (pos < end) {
            char d = text.charAt(pos);
            if (d < '0' || d > '9') {
                break;
            }
            value = value * 10 + (d - '0');
            pos++;
        }
        int digits = pos - start;
        if (digits == 0 || digits > 18 || (digits > 1 && text.charAt(start) == '0')) {
            throw Declined.INSTANCE;
        }
        delimiter(); // a '.', an 'e' or anything else right after the digits declines
        if (negative) {
            value = -value;
        }
        return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? NODES.numberNode((int) value)
                : NODES.numberNode(value);
    }

    /**
     * Reads a top-level property name and its closing quote; the opening quote is already read. Text up to
     * the next quote that equals a plain declared name (no backslash, so no escape and that quote closes
     * it; no control character) is that declared instance; any other name is {@link #string()}'s.
     */
    private String name() {
        int start = pos;
        int close = text.indexOf('"', start);
        if (close >= 0) {
            int length = close - start;
            for (String declared : names) {
                if (declared.length() == length && text.regionMatches(start, declared, 0, length)) {
                    pos = close + 1;
                    return declared;
                }
            }
        }
        return string();
    }

    /** Reads a string's content and its closing quote; the opening quote is already read. */
    private String string() {
        int start = pos;
        while (pos < end) {
            char c = text.charAt(pos);
            if (c == '"') {
                return text.substring(start, pos++);
            }
            if (c == '\\') {
                return escaped(start);
            }
            if (c < 0x20) {
                throw Declined.INSTANCE; // an unescaped control character: Jackson refuses it
            }
            pos++;
        }
        throw Declined.INSTANCE;
    }

    private String escaped(int start) {
        StringBuilder b = new StringBuilder(pos - start + 16).append(text, start, pos);
        while (pos < end) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                throw Declined.INSTANCE;
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (pos >= end) {
                throw Declined.INSTANCE;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> b.append(unicode());
                default -> throw Declined.INSTANCE;
            }
        }
        throw Declined.INSTANCE;
    }

    private char unicode() {
        if (pos + 4 > end) {
            throw Declined.INSTANCE;
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            char h = text.charAt(pos++);
            int d;
            if (h >= '0' && h <= '9') {
                d = h - '0';
            } else if (h >= 'a' && h <= 'f') {
                d = h - 'a' + 10;
            } else if (h >= 'A' && h <= 'F') {
                d = h - 'A' + 10;
            } else {
                throw Declined.INSTANCE;
            }
            v = (v << 4) | d;
        }
        return (char) v;
    }
}
