package dev.toolyard.builtins;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Objects;

/** {@link Resolver#system()}. Stateless. Thread-safe. */
final class SystemResolver implements Resolver {
    static final SystemResolver INSTANCE = new SystemResolver();

    private SystemResolver() {}

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            // getAllByName("") answers the loopback address; an empty name resolves to nothing.
            throw new UnknownHostException("empty host name");
        }
        return List.of(InetAddress.getAllByName(host));
    }

    @Override
    public String toString() {
        return "Resolver.system()";
    }
}
