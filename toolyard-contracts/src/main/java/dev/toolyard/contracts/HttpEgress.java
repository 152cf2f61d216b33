package dev.toolyard.contracts;

import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.builtins.internal.EgressClient;
import java.util.List;
import javax.net.SocketFactory;

/**
 * Where an {@code [http]} contract may send its request: the same allowlist, resolver, caps and socket
 * factory {@code BuiltinTools.httpFetch} takes, checked by the same code. Nothing has a default: the
 * application names each. Immutable. Thread-safe.
 */
public final class HttpEgress {
    private final EgressClient client;

    private HttpEgress(EgressClient client) {
        this.client = client;
    }

    /**
     * @param allowedHosts host names and IP literals the request may reach; empty means loopback only
     * @param resolver the application's resolver; never {@code null}
     * @param limits body cap and timeouts; never {@code null}
     * @param socketFactory the factory of every socket; never {@code null}; plain sockets only
     * @return the egress
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static HttpEgress of(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        return new HttpEgress(EgressClient.of(allowedHosts, resolver, limits, socketFactory));
    }

    EgressClient client() {
        return client;
    }

    @Override
    public String toString() {
        return "HttpEgress[" + client + "]";
    }
}
