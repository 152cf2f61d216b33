package dev.toolyard.spi;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The host end of a sandboxed command's network: a proxy that listens on a unix socket the runner
 * names, for one run ({@link IsolatedRunner#runIsolated(java.util.List, dev.toolyard.SandboxPaths,
 * java.time.Duration, java.util.Map, ProxyRoute)}). The runner puts the socket in a private directory it
 * binds into the sandbox, and starts a relay inside that listens on {@code 127.0.0.1:}{@link #loopbackPort()}
 * before the command starts. {@code CommandNetwork} in {@code toolyard-builtins} provides one.
 * Implementations are thread-safe.
 *
 * <p>Stability: experimental; it may change in a minor release.
 */
public interface ProxyRoute {
    /** @return the port the relay listens on inside the sandbox, 1-65535 */
    int loopbackPort();

    /**
     * Starts listening on a new unix socket at {@code socket} and returns once it accepts connections.
     *
     * @param socket the socket's path; its directory exists, the file does not
     * @return the listener; the runner closes it once the command and everything it started are gone
     * @throws IOException if the socket cannot be created
     */
    Closeable listen(Path socket) throws IOException;
}
