package dev.toolyard.builtins.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import okhttp3.Dns;

/**
 * OkHttp's {@link Dns} for one fetch: it answers exactly the addresses {@link FetchTargetCheck} checked for
 * the one host the fetch may reach, and refuses every other name. OkHttp never resolves on its own.
 *
 * <p>A record, so two fetches of the same host with the same checked answers have equal {@code Dns}
 * instances. OkHttp reuses a pooled connection only for an equal {@link okhttp3.Address}, which
 * includes its {@code Dns}: a connection is therefore reused only by a fetch whose checked answers are
 * exactly those it was opened to, never across a change of answers (DNS rebinding). Immutable.
 * Thread-safe.
 *
 * @param host the one host answered for, as {@link okhttp3.HttpUrl#host()} spells it
 * @param addresses the checked answers, in order; unmodifiable
 */
record PinnedDns(String host, List<InetAddress> addresses) implements Dns {
    /** The client-wide {@code Dns}, used only if a fetch were ever built without its own: it refuses all. */
    static final Dns REFUSE_ALL = hostname -> {
        throw new UnknownHostException("http_fetch resolves only through its checked answers");
    };

    PinnedDns {
        addresses = List.copyOf(addresses);
    }

    @Override
    public List<InetAddress> lookup(String hostname) throws UnknownHostException {
        if (!host.equals(hostname)) {
            throw new UnknownHostException("http_fetch did not check this host");
        }
        return addresses;
    }
}
