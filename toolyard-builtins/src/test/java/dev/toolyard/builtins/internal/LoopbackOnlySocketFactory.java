package dev.toolyard.builtins.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.net.SocketFactory;

/**
 * The socket factory of every test client: it refuses any connect that is not to loopback (and, when
 * given ports, not to one of those ports), so that no test sends a packet off the machine, or to a
 * local service it did not start, even if the code under test were broken. It records every connect
 * attempt, refused or not. Thread-safe.
 */
public final class LoopbackOnlySocketFactory extends SocketFactory {
    private final Set<Integer> ports;
    private final InetAddress onlyAddress;
    private final List<InetSocketAddress> attempts = new ArrayList<>();

    /** @param ports the only loopback ports connects may go to; empty for any */
    public LoopbackOnlySocketFactory(Set<Integer> ports) {
        this(ports, null);
    }

    private LoopbackOnlySocketFactory(Set<Integer> ports, InetAddress onlyAddress) {
        this.ports = Set.copyOf(ports);
        this.onlyAddress = onlyAddress;
    }

    /**
     * @param endpoint a loopback address and port
     * @return a factory that refuses every connect but to exactly {@code endpoint}
     */
    public static LoopbackOnlySocketFactory only(InetSocketAddress endpoint) {
        return new LoopbackOnlySocketFactory(Set.of(endpoint.getPort()), endpoint.getAddress());
    }

    /** @return every connect attempted through this factory, in order */
    public synchronized List<InetSocketAddress> attempts() {
        return List.copyOf(attempts);
    }

    private synchronized void record(InetSocketAddress address) {
        attempts.add(address);
    }

    /**
     * Checks the endpoint and returns it with a host name attached, so that nothing on the way (a
     * Jazzer hook, a log line) can turn the address back into a name with a reverse DNS query.
     */
    private InetSocketAddress check(SocketAddress endpoint) throws IOException {
        if (!(endpoint instanceof InetSocketAddress address) || address.isUnresolved()) {
            throw new ConnectException("test socket factory: refusing an unresolved or unknown endpoint");
        }
        record(address);
        InetAddress ip = address.getAddress();
        byte[] b = ip.getAddress();
        boolean loopback = (b.length == 4 && b[0] == 127) || (b.length == 16 && ip.isLoopbackAddress());
        if (!loopback) {
            throw new ConnectException("test socket factory: refusing a connect off loopback");
        }
        if (!ports.isEmpty() && !ports.contains(address.getPort())) {
            throw new ConnectException("test socket factory: refusing a loopback port the test did not open");
        }
        if (onlyAddress != null && !onlyAddress.equals(InetAddress.getByAddress(b))) {
            throw new ConnectException("test socket factory: refusing a loopback address the test did not open");
        }
        return new InetSocketAddress(InetAddress.getByAddress("loopback-under-test", b), address.getPort());
    }

    @Override
    public Socket createSocket() {
        return new Socket() {
            @Override
            public void connect(SocketAddress endpoint, int timeout) throws IOException {
                super.connect(check(endpoint), timeout);
            }
        };
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw new SocketException("test socket factory: refusing to connect by name");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new SocketException("test socket factory: refusing to connect by name");
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
