package dev.toolyard;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The workspace of one invocation: one write root (read-write) and any number of read roots
 * (read-only). Every root is absolute; no root equals or contains another, because the read and
 * write halves of containment would then disagree about the overlap. Roots are compared after
 * normalisation and, where they exist, after resolving symbolic links (once, at construction).
 * Immutable. Thread-safe. {@code readRoots} may be empty; never {@code null}.
 */
public final class SandboxPaths {
    private final Path writeRoot;
    private final List<Path> readRoots;
    private final Path realWriteRoot;
    private final List<Path> realReadRoots;

    private SandboxPaths(Path writeRoot, List<Path> readRoots) {
        this.writeRoot = writeRoot;
        this.readRoots = List.copyOf(readRoots);
        this.realWriteRoot = real(writeRoot);
        List<Path> reals = new ArrayList<>(readRoots.size());
        for (Path r : readRoots) {
            reals.add(real(r));
        }
        this.realReadRoots = List.copyOf(reals);
        List<Path> all = new ArrayList<>();
        all.add(realWriteRoot);
        all.addAll(realReadRoots);
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                Path a = all.get(i);
                Path b = all.get(j);
                if (a.startsWith(b) || b.startsWith(a)) {
                    throw new IllegalArgumentException(
                            "roots must not equal or contain one another, got " + a + " and " + b);
                }
            }
        }
    }

    /**
     * @param writeRoot the absolute read-write root; never {@code null}
     * @param readRoots absolute read-only roots; none may be {@code null}
     * @return the workspace
     * @throws IllegalArgumentException if a root is relative, or roots equal or contain one another
     */
    public static SandboxPaths of(Path writeRoot, Path... readRoots) {
        return of(writeRoot, List.of(readRoots));
    }

    /**
     * @param writeRoot the absolute read-write root; never {@code null}
     * @param readRoots absolute read-only roots; never {@code null}
     * @return the workspace
     * @throws IllegalArgumentException if a root is relative, or roots equal or contain one another
     */
    public static SandboxPaths of(Path writeRoot, List<Path> readRoots) {
        Objects.requireNonNull(writeRoot, "writeRoot");
        Objects.requireNonNull(readRoots, "readRoots");
        requireAbsolute("writeRoot", writeRoot);
        List<Path> normal = new ArrayList<>();
        for (Path r : readRoots) {
            Objects.requireNonNull(r, "readRoots must not contain null");
            requireAbsolute("readRoots", r);
            normal.add(r.normalize());
        }
        return new SandboxPaths(writeRoot.normalize(), normal);
    }

    private static void requireAbsolute(String parameter, Path p) {
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(parameter + " must be an absolute path, got " + p);
        }
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | SecurityException e) {
            return p;
        }
    }

    /** @return the write root as given, normalised; never {@code null} */
    public Path writeRoot() {
        return writeRoot;
    }

    /** @return the read roots as given, normalised; unmodifiable; never {@code null} */
    public List<Path> readRoots() {
        return readRoots;
    }

    /** @return the write root with symbolic links resolved at construction (as given if it did not exist) */
    public Path realWriteRoot() {
        return realWriteRoot;
    }

    /** @return the read roots with symbolic links resolved at construction; unmodifiable */
    public List<Path> realReadRoots() {
        return realReadRoots;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SandboxPaths other && writeRoot.equals(other.writeRoot) && readRoots.equals(other.readRoots);
    }

    @Override
    public int hashCode() {
        return Objects.hash(writeRoot, readRoots);
    }

    @Override
    public String toString() {
        return "SandboxPaths[write=" + writeRoot + ", read=" + readRoots + "]";
    }
}
