package dev.toolyard;

import dev.toolyard.spi.PathDecision;
import dev.toolyard.spi.PathPolicy;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The path half of containment ({@link PathPolicy}): resolve, then check. Every candidate is fully resolved
 * (symbolic links, {@code ..}, relative parts) before it is compared with the roots by path ancestry,
 * never by string prefix, so {@code /data} and {@code /database} are two roots. A relative candidate
 * resolves against the write root, never the process working directory. It runs no command:
 * an executor built with only this refuses every tool that requires isolation.
 *
 * <p>Resolution is a snapshot: a link swapped in after it is the handler's to guard against (the
 * built-in file tools open with {@code NOFOLLOW_LINKS} and re-check). Stateless. Thread-safe.
 */
public final class PathContainment implements PathPolicy {
    private static final int MAX_CANDIDATE_LENGTH = 4096;
    private static final int MAX_LINK_HOPS = 40;
    private static final Path FS_ROOT = FileSystems.getDefault().getPath("/");

    /** Creates the containment. */
    public PathContainment() {}

    @Override
    public PathDecision resolveRead(String candidate, SandboxPaths workspace) {
        Path resolved = resolve(candidate, workspace);
        if (resolved == null) {
            return PathDecision.escape("not a valid path");
        }
        if (resolved.startsWith(workspace.realWriteRoot())) {
            return PathDecision.inside(resolved);
        }
        for (Path root : workspace.realReadRoots()) {
            if (resolved.startsWith(root)) {
                return PathDecision.inside(resolved);
            }
        }
        return PathDecision.escape("resolves outside the workspace");
    }

    @Override
    public PathDecision resolveWrite(String candidate, SandboxPaths workspace) {
        Path resolved = resolve(candidate, workspace);
        if (resolved == null) {
            return PathDecision.escape("not a valid path");
        }
        Path root = workspace.realWriteRoot();
        if (!resolved.startsWith(root)) {
            return PathDecision.escape("resolves outside the writable part of the workspace");
        }
        // No link below the root: the path as written (rebased onto the real root) must equal the
        // path as resolved. Any link followed on the way, even one pointing inside, makes them differ.
        Path lexical = lexical(candidate, workspace);
        if (lexical == null || !lexical.equals(resolved)) {
            return PathDecision.escape("goes through a symbolic link, which writes never follow");
        }
        return PathDecision.inside(resolved);
    }


    /** The candidate as an absolute path, or {@code null} when it is not a usable path. */
    private static Path absolute(String candidate, SandboxPaths workspace) {
        if (candidate == null || candidate.isEmpty() || candidate.length() > MAX_CANDIDATE_LENGTH
                || candidate.indexOf('\0') >= 0) {
            return null;
        }
        Path p;
        try {
            p = Path.of(candidate);
        } catch (InvalidPathException e) {
            return null;
        }
        return p.isAbsolute() ? p : workspace.realWriteRoot().resolve(p);
    }

    /** Fully resolved path, or {@code null} when it is not a usable path. */
    static Path resolve(String candidate, SandboxPaths workspace) {
        Path abs = absolute(candidate, workspace);
        if (abs == null) {
            return null;
        }
        try {
            return abs.toRealPath();
        } catch (NoSuchFileException e) {
            return resolveThroughAncestors(abs);
        } catch (IOException | SecurityException e) {
            // Not a directory on the way, a loop, a permission: resolve by hand, which refuses loops.
            return resolveThroughAncestors(abs);
        }
    }

    /**
     * Resolves component by component, following links, until a component does not exist; the rest is
     * appended as written. A {@code ..} after a missing component is refused, as the kernel would.
     */
    private static Path resolveThroughAncestors(Path abs) {
        Deque<String> pending = new ArrayDeque<>();
        for (Path part : abs) {
            pending.addLast(part.toString());
        }
        Path current = FS_ROOT;
        boolean missing = false;
        int hops = 0;
        try {
            while (!pending.isEmpty()) {
                String name = pending.removeFirst();
                if (name.equals(".") || name.isEmpty()) {
                    continue;
                }
                if (name.equals("..")) {
                    if (missing) {
                        return null;
                    }
                    Path parent = current.getParent();
                    current = parent == null ? FS_ROOT : parent;
                    continue;
                }
                Path next = current.resolve(name);
                if (missing) {
                    current = next;
                    continue;
                }
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(next, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException e) {
                    missing = true;
                    current = next;
                    continue;
                }
                if (attrs.isSymbolicLink()) {
                    if (++hops > MAX_LINK_HOPS) {
                        return null;
                    }
                    Path target = Files.readSymbolicLink(next);
                    Deque<String> expanded = new ArrayDeque<>();
                    for (Path part : target) {
                        expanded.addLast(part.toString());
                    }
                    while (!expanded.isEmpty()) {
                        pending.addFirst(expanded.removeLast());
                    }
                    if (target.isAbsolute()) {
                        current = FS_ROOT;
                    }
                    continue;
                }
                if (!attrs.isDirectory() && !pending.isEmpty()) {
                    return null; // a file used as a directory
                }
                current = next;
            }
        } catch (IOException | SecurityException | InvalidPathException e) {
            return null;
        }
        return current;
    }

    /** The candidate as written, made absolute against the real write root, with {@code ..} folded. */
    private static Path lexical(String candidate, SandboxPaths workspace) {
        Path p = Path.of(candidate);
        Path abs;
        if (p.isAbsolute()) {
            Path normal = p.normalize();
            Path given = workspace.writeRoot();
            Path real = workspace.realWriteRoot();
            if (normal.startsWith(real)) {
                abs = normal;
            } else if (normal.startsWith(given)) {
                abs = real.resolve(given.relativize(normal));
            } else {
                return null;
            }
        } else {
            abs = workspace.realWriteRoot().resolve(p).normalize();
        }
        return abs;
    }
}
