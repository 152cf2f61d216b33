package dev.toolyard.benchmarks;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.SocketFactory;

/**
 * The socket factory of both HTTP clients in {@link HttpFetchBenchmark}: it refuses every connect that
 * is not to 127.0.0.1 and the benchmark server's port, so that neither client can send a packet off the
 * machine (or to a local service the benchmark did not start) even if the code under test were broken.
 * It refuses to connect by name. It counts the connects it let through, which is how the benchmark
 * shows that a client reused its pooled connection rather than opening one per call. Thread-safe.
 */
final class LoopbackOnlySockets extends SocketFactory {
    private static final byte[] LOOPBACK = {127, 0, 0, 1};

    private final int port;
    private final AtomicInteger connects = new AtomicInteger();

    /** @param port the only port on 127.0.0.1 a connect may go to */
    LoopbackOnlySockets(int port) {
        this.port = port;
    }

    /** @return how many connects were let through so far */
    int connects() {
        return connects.get();
    }

    private InetSocketAddress check(SocketAddress endpoint) throws IOException {
        if (!(endpoint instanceof InetSocketAddress address) || address.isUnresolved()) {
            throw new ConnectException("benchmark socket factory: refusing an unresolved or unknown endpoint");
        }
        byte[] ip = address.getAddress().getAddress();
        if (!java.util.Arrays.equals(ip, LOOPBACK)) {
            throw new ConnectException("benchmark socket factory: refusing a connect off 127.0.0.1");
        }
        if (address.getPort() != port) {
            throw new ConnectException("benchmark socket factory: refusing a port the benchmark did not open");
        }
        connects.incrementAndGet();
        // A name attached, so nothing on the way turns the address back into one with a reverse lookup.
        return new InetSocketAddress(InetAddress.getByAddress("loopback-benchmark", ip), port);
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
        throw new SocketException("benchmark socket factory: refusing to connect by name");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new SocketException("benchmark socket factory: refusing to connect by name");
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
