package dev.toolyard.contracts;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import javax.net.SocketFactory;

/**
 * The socket factory of every HTTP contract test: a connect to anything but the test server's loopback
 * port is refused before a packet is sent, even if the code under test were broken. Records every
 * attempt. Thread-safe.
 */
final class LoopbackOnlySockets extends SocketFactory {
    private final int port;
    private final List<InetSocketAddress> attempts = new ArrayList<>();

    LoopbackOnlySockets(int port) {
        this.port = port;
    }

    synchronized List<InetSocketAddress> attempts() {
        return List.copyOf(attempts);
    }

    private synchronized void check(SocketAddress endpoint) throws IOException {
        if (!(endpoint instanceof InetSocketAddress a) || a.isUnresolved()) {
            throw new ConnectException("test sockets: refusing an unresolved endpoint");
        }
        attempts.add(a);
        byte[] b = a.getAddress().getAddress();
        if (b.length != 4 || b[0] != 127 || a.getPort() != port) {
            throw new ConnectException("test sockets: refusing a connect off the test server");
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
        throw new ConnectException("test sockets: connect by name refused");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new ConnectException("test sockets: connect by name refused");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket s = createSocket();
        s.connect(new InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket s = createSocket();
        s.bind(new InetSocketAddress(localAddress, localPort));
        s.connect(new InetSocketAddress(address, port));
        return s;
    }
}
