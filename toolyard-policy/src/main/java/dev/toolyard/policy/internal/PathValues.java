package dev.toolyard.policy.internal;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Path argument values as a policy compares them: workspace-relative, {@code /}-separated, with
 * {@code .}, empty segments and {@code ..} resolved lexically. A value that climbs above the workspace,
 * is empty or holds a NUL has no normal form and is never under any prefix. An absolute value keeps its
 * leading {@code /}. Prefixes match by whole segments: {@code docs} covers {@code docs} and
 * {@code docs/a.md}, never {@code docs2}; the prefix {@code .} covers every relative value. Stateless.
 */
public final class PathValues {
    /** The prefix that covers every workspace-relative path. */
    public static final String WHOLE_WORKSPACE = ".";

    private PathValues() {}

    /**
     * @param value a path as a model sent it, or as the gate made it relative
     * @return its normal form, {@code "."} for the workspace itself, or {@code null} if it has none
     */
    public static String normalize(String value) {
        if (value == null || value.isEmpty() || value.indexOf('\0') >= 0) {
            return null;
        }
        boolean absolute = value.startsWith("/");
        Deque<String> parts = new ArrayDeque<>();
        for (String seg : value.split("/", -1)) {
            if (seg.isEmpty() || seg.equals(".")) {
                continue;
            }
            if (seg.equals("..")) {
                if (parts.isEmpty()) {
                    return null;
                }
                parts.removeLast();
            } else {
                parts.addLast(seg);
            }
        }
        String joined = String.join("/", parts);
        if (absolute) {
            return "/" + joined;
        }
        return joined.isEmpty() ? WHOLE_WORKSPACE : joined;
    }

    /**
     * @param normal a normal form (from {@link #normalize})
     * @param prefix a normal form used as a prefix
     * @return whether {@code normal} is {@code prefix} or below it, by whole segments
     */
    public static boolean under(String normal, String prefix) {
        if (prefix.equals(WHOLE_WORKSPACE)) {
            return !normal.startsWith("/");
        }
        if (prefix.equals("/")) {
            return normal.startsWith("/");
        }
        return normal.equals(prefix) || normal.startsWith(prefix + "/");
    }

    /**
     * @param normal a normal form
     * @return its parent directory's normal form ({@code "."} or {@code "/"} at the top)
     */
    public static String parent(String normal) {
        int slash = normal.lastIndexOf('/');
        if (slash < 0) {
            return WHOLE_WORKSPACE;
        }
        return slash == 0 ? "/" : normal.substring(0, slash);
    }

    /**
     * @param normal a normal form
     * @return its first segment ({@code "/first"} for an absolute form), or itself at the top
     */
    public static String first(String normal) {
        if (normal.startsWith("/")) {
            int next = normal.indexOf('/', 1);
            return next < 0 ? normal : normal.substring(0, next);
        }
        int slash = normal.indexOf('/');
        return slash < 0 ? normal : normal.substring(0, slash);
    }
}
