package dev.toolyard.builtins.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import okhttp3.Connection;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * A network interceptor that runs on every connection OkHttp hands a request to, before the request's
 * first byte is written, and stops the request unless the socket's peer is one of the checked
 * addresses. {@link PinnedDns} already makes that so; this guard is the second lock, so that a change
 * in OkHttp (or in this module) that let a connection reach another address fails closed and loudly.
 * Immutable. Thread-safe.
 */
final class CheckedAddressGuard implements Interceptor {
    private static final System.Logger LOG = System.getLogger(CheckedAddressGuard.class.getName());

    private final Set<InetAddress> allowed;

    CheckedAddressGuard(List<InetAddress> checked) {
        Set<InetAddress> set = new HashSet<>();
        for (InetAddress a : checked) {
            set.add(plain(a));
        }
        this.allowed = Set.copyOf(set);
    }

    /** Thrown when a connection reached an address that was not checked. Nothing was sent on it. */
    static final class UncheckedAddressException extends IOException {
        private static final long serialVersionUID = 1L;

        UncheckedAddressException() {
            super("the connection reached an address that was not checked");
        }
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Connection connection = chain.connection();
        if (connection == null) {
            throw new UncheckedAddressException();
        }
        InetSocketAddress route = connection.route().socketAddress();
        Socket socket = connection.socket();
        if (!allowed.contains(plain(route.getAddress())) || socket.getInetAddress() == null
                || !allowed.contains(plain(socket.getInetAddress()))) {
            LOG.log(System.Logger.Level.ERROR, "http_fetch refused a connection to an address it did not check;"
                    + " this is a bug in ToolYard or OkHttp, and nothing was sent");
            throw new UncheckedAddressException();
        }
        return chain.proceed(chain.request());
    }

    /** The address alone: no host name, no scope, and an IPv4-mapped IPv6 address as IPv4. */
    private static InetAddress plain(InetAddress a) {
        try {
            return InetAddress.getByAddress(a.getAddress());
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }
}
