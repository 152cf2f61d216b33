package dev.toolyard.policy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import javax.net.SocketFactory;

/**
 * The socket factory of the workload's http_fetch: every connect that is not to loopback, or not to the
 * one port the workload's server listens on, is refused before a packet is sent, so the fixture cannot
 * leave the machine even if a check under test were broken. (The builtins' test tree has its own; test
 * classes are not shared across modules.) Thread-safe.
 */
final class LoopbackOnlySockets extends SocketFactory {
    private final int port;

    LoopbackOnlySockets(int port) {
        this.port = port;
    }

    private void check(SocketAddress endpoint) throws IOException {
        if (!(endpoint instanceof InetSocketAddress a) || a.isUnresolved() || !a.getAddress().isLoopbackAddress()
                || a.getPort() != port) {
            throw new ConnectException("workload socket factory: refusing a connect that is not to the workload server");
        }
    }

    @Override
    public Socket createSocket() {
        return new Socket() {
            @Override
            public void connect(SocketAddress endpoint, int timeout) throws IOException {
                check(endpoint);
                super.connect(endpoint, timeout);
            }
        };
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw new ConnectException("workload socket factory: connect by name refused");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new ConnectException("workload socket factory: connect by name refused");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket s = createSocket();
        s.connect(new InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        Socket s = createSocket();
        s.bind(new InetSocketAddress(localAddress, localPort));
        s.connect(new InetSocketAddress(address, port));
        return s;
    }
}
