package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A path the executor resolved, split into the workspace root that contains it and the names below
 * that root. The names are what a handler walks, one {@code openat} at a time, so that nothing but
 * the root itself is ever looked up by its full path. Immutable. Thread-safe.
 *
 * @param root the real root that contains the path; never {@code null}
 * @param names the names below the root, in order; empty for the root itself; unmodifiable
 */
public record RootedPath(Path root, List<String> names) {
    /**
     * @param root the real root that contains the path; never {@code null}
     * @param names the names below the root, in order; empty for the root itself
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if a name is not a plain name
     */
    public RootedPath {
        Objects.requireNonNull(root, "root");
        names = List.copyOf(names);
        for (String name : names) {
            ContainedDirectory.requirePlainName(name);
        }
    }

    /**
     * Splits a path resolved for reading: it must lie in a read root or the write root.
     *
     * @param resolved the path as the executor resolved it; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return the split path
     * @throws FileProblem {@code path_escape} if no root contains it (the handler was called with a
     *     path the executor did not resolve for this workspace)
     */
    public static RootedPath forReading(Path resolved, SandboxPaths workspace) throws FileProblem {
        List<Path> roots = new ArrayList<>(1 + workspace.realReadRoots().size());
        roots.add(workspace.realWriteRoot());
        roots.addAll(workspace.realReadRoots());
        for (Path root : roots) {
            if (resolved.isAbsolute() && resolved.normalize().equals(resolved) && resolved.startsWith(root)) {
                return split(root, resolved);
            }
        }
        throw new FileProblem(Reason.PATH_ESCAPE, "the path resolves outside the workspace");
    }

    /**
     * Splits a path resolved for writing: it must lie in the write root.
     *
     * @param resolved the path as the executor resolved it; never {@code null}
     * @param workspace the invocation's workspace; never {@code null}
     * @return the split path
     * @throws FileProblem {@code path_escape} if the write root does not contain it
     */
    public static RootedPath forWriting(Path resolved, SandboxPaths workspace) throws FileProblem {
        Path root = workspace.realWriteRoot();
        if (resolved.isAbsolute() && resolved.normalize().equals(resolved) && resolved.startsWith(root)) {
            return split(root, resolved);
        }
        throw new FileProblem(Reason.PATH_ESCAPE, "the path resolves outside the writable part of the workspace");
    }

    private static RootedPath split(Path root, Path resolved) {
        List<String> names = new ArrayList<>();
        for (Path name : root.relativize(resolved)) {
            String s = name.toString();
            if (!s.isEmpty()) {
                names.add(s);
            }
        }
        return new RootedPath(root, names);
    }

    /** @return whether this is the root itself */
    public boolean isRoot() {
        return names.isEmpty();
    }

    /**
     * @return the last name
     * @throws IllegalStateException for the root itself
     */
    public String fileName() {
        if (names.isEmpty()) {
            throw new IllegalStateException("the root has no name below the root");
        }
        return names.get(names.size() - 1);
    }

    /** @return the names of the parent directories below the root; unmodifiable */
    public List<String> parentNames() {
        return names.isEmpty() ? List.of() : Collections.unmodifiableList(names.subList(0, names.size() - 1));
    }

    /** @return the path relative to its root, names escaped, {@code .} for the root; what a detail may show */
    public String display() {
        return display(names);
    }

    static String display(List<String> names) {
        if (names.isEmpty()) {
            return ".";
        }
        StringBuilder b = new StringBuilder();
        for (String name : names) {
            if (b.length() > 0) {
                b.append('/');
            }
            b.append(PrintableName.of(name));
        }
        return b.toString();
    }
}
