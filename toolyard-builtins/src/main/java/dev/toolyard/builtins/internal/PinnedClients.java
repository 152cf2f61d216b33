package dev.toolyard.builtins.internal;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import okhttp3.OkHttpClient;

/**
 * The pinned clients of one egress client configuration: for each host and the exact answers the checks
 * passed for it, one {@link OkHttpClient} that connects only to those answers ({@link PinnedDns}) and
 * stops a connection that reached any other address ({@link CheckedAddressGuard}). Every fetch is
 * checked afresh, and its client is the one for what that check passed: an answer that changed (DNS
 * rebinding) is another key, so another client, whose pooled connections are only to the new answers.
 *
 * <p>Kept, not built per fetch: building a client from another copies its whole configuration (a
 * dozen lists and its interceptors), which a fetch of a small body on loopback felt. At most
 * {@value #MAX_CLIENTS} are kept, the least recently used going first; a client that goes shares the
 * base's connection pool and dispatcher, so nothing is left open by it. Thread-safe.
 */
final class PinnedClients {
    static final int MAX_CLIENTS = 64;

    private final OkHttpClient base;
    private final Map<PinnedDns, OkHttpClient> clients = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<PinnedDns, OkHttpClient> eldest) {
            return size() > MAX_CLIENTS;
        }
    };

    /** @param base the configuration every pinned client copies; never {@code null} */
    PinnedClients(OkHttpClient base) {
        this.base = Objects.requireNonNull(base, "base");
    }

    /**
     * @param host the one host the client may reach, as {@link okhttp3.HttpUrl#host()} spells it
     * @param addresses the answers the checks passed for it, in order
     * @return the client pinned to exactly those answers
     */
    OkHttpClient pinnedTo(String host, List<InetAddress> addresses) {
        PinnedDns dns = new PinnedDns(host, addresses);
        synchronized (clients) {
            OkHttpClient kept = clients.get(dns);
            if (kept != null) {
                return kept;
            }
        }
        OkHttpClient built = base.newBuilder()
                .dns(dns)
                .addNetworkInterceptor(new CheckedAddressGuard(dns.addresses()))
                .build();
        synchronized (clients) {
            OkHttpClient raced = clients.putIfAbsent(dns, built);
            return raced == null ? built : raced;
        }
    }

    /** @return how many pinned clients are kept now (for tests) */
    int size() {
        synchronized (clients) {
            return clients.size();
        }
    }
}
