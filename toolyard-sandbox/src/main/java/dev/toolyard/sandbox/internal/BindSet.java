package dev.toolyard.sandbox.internal;

import dev.toolyard.SandboxPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The roots of a workspace as a sandbox binds them: real paths (symbolic links resolved), each bound
 * at its own path. A root that would open the host's system directories to the command is the
 * application's mistake and is refused before anything runs. Immutable.
 *
 * @param writeRoot the directory bound read-write, also the command's working directory
 * @param readRoots the files or directories bound read-only
 */
public record BindSet(Path writeRoot, List<Path> readRoots) {
    private static final Path ROOT = Path.of("/");
    /** Kernel and device file systems: a root in them is never meaningful. */
    private static final List<Path> NEVER = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"));
    /** The runtime the sandbox relies on: a writable root there would let a command replace it. */
    private static final List<Path> NOT_WRITABLE = List.of(
            Path.of("/usr"), Path.of("/etc"), Path.of("/boot"), Path.of("/bin"), Path.of("/sbin"),
            Path.of("/lib"), Path.of("/lib32"), Path.of("/lib64"), Path.of("/libx32"));

    /** Copies the list. */
    public BindSet {
        readRoots = List.copyOf(readRoots);
    }

    /**
     * @param workspace the workspace of one run
     * @param mountOptionSafe whether the paths are passed inside a container engine's
     *     {@code --mount} option, where a comma, a quote or a line break would change its meaning
     * @return the binds
     * @throws IllegalArgumentException if the write root is not an existing directory, a read root
     *     does not exist, a root is {@code /} or lies in {@code /proc}, {@code /sys} or {@code /dev},
     *     the write root is or lies in a system directory, or a path cannot be passed to the engine
     */
    public static BindSet of(SandboxPaths workspace, boolean mountOptionSafe) {
        Path write = workspace.realWriteRoot();
        if (!Files.isDirectory(write)) {
            throw new IllegalArgumentException("writeRoot must be an existing directory, got " + workspace.writeRoot());
        }
        check("writeRoot", write, mountOptionSafe);
        for (Path system : NOT_WRITABLE) {
            if (write.startsWith(system)) {
                throw new IllegalArgumentException(
                        "writeRoot must not be or lie in the system directory " + system + ", got " + write);
            }
        }
        List<Path> reads = new ArrayList<>();
        for (Path read : workspace.realReadRoots()) {
            if (!Files.exists(read)) {
                throw new IllegalArgumentException("readRoots must exist, got " + read);
            }
            check("readRoots", read, mountOptionSafe);
            reads.add(read);
        }
        return new BindSet(write, reads);
    }

    private static void check(String parameter, Path p, boolean mountOptionSafe) {
        if (p.equals(ROOT)) {
            throw new IllegalArgumentException(parameter + " must not be /, which would bind the whole host");
        }
        for (Path never : NEVER) {
            if (p.startsWith(never)) {
                throw new IllegalArgumentException(parameter + " must not lie in " + never + ", got " + p);
            }
        }
        if (mountOptionSafe) {
            String s = p.toString();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == ',' || c == '"' || c < 0x20 || c == 0x7f) {
                    throw new IllegalArgumentException(parameter
                            + " must not contain a comma, a quote or a control character on the container rung, got " + p);
                }
            }
        }
    }
}
