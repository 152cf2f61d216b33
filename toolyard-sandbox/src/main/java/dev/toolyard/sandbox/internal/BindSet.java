package dev.toolyard.sandbox.internal;

import dev.toolyard.SandboxPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The roots of a workspace as a sandbox binds them: real paths (symbolic links resolved), each bound
 * at its own path. A root that would open the host's system directories to the command is the
 * application's mistake and is refused before anything runs. Immutable.
 *
 * @param writeRoot the directory bound read-write, also the command's working directory
 * @param readRoots the files or directories bound read-only
 * @param network for a run with network, the relay and the private directory of the proxy's socket,
 *     bound read-only at {@link #RELAY} and {@link #NETWORK_DIR}; empty for none
 */
public record BindSet(Path writeRoot, List<Path> readRoots, Optional<Network> network) {
    /** Where the relay ({@code toolyard-relay}) is bound inside. */
    public static final String RELAY = "/toolyard-relay";
    /** Where the directory holding the proxy's unix socket is bound inside. */
    public static final String NETWORK_DIR = "/toolyard-net";
    /** The socket's name in that directory. */
    public static final String SOCKET_NAME = "proxy.sock";

    /**
     * What a run with network binds besides its roots.
     *
     * @param relay the relay's host path
     * @param socketDirectory the host directory holding the proxy's socket
     */
    public record Network(Path relay, Path socketDirectory) {}

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
        Objects.requireNonNull(network, "network");
    }

    /** Binds without network. */
    public BindSet(Path writeRoot, List<Path> readRoots) {
        this(writeRoot, readRoots, Optional.empty());
    }

    /** @return these binds with network through {@code n} */
    public BindSet withNetwork(Network n) {
        return new BindSet(writeRoot, readRoots, Optional.of(n));
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
