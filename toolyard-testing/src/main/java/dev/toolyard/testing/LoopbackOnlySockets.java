package dev.toolyard.testing;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.SocketFactory;

/**
 * The one socket factory of every test and benchmark client: it refuses any connect that is not to
 * loopback (see {@link #isLoopback}), and, when given ports, not to one of those ports, so that no test
 * sends a packet off the machine, or to a local service it did not start, even if the code under test
 * were broken. The check runs before the socket's own connect, so a refused connect creates no kernel
 * socket and sends no packet. It refuses to connect by name (a name would be resolved here, outside the
 * code under test). It records every connect attempted, refused or not, and counts those it let
 * through.
 *
 * <p>Thread-safe: one factory may serve many clients and threads.
 */
public final class LoopbackOnlySockets extends SocketFactory {
    private final Set<Integer> ports;
    private final InetAddress onlyAddress;
    private final List<InetSocketAddress> attempts = new ArrayList<>();
    private final AtomicInteger connects = new AtomicInteger();

    private LoopbackOnlySockets(Set<Integer> ports, InetAddress onlyAddress) {
        this.ports = Set.copyOf(ports);
        this.onlyAddress = onlyAddress;
    }

    /** @return a factory that lets a connect through to any port of any loopback address */
    public static LoopbackOnlySockets anyPort() {
        return new LoopbackOnlySockets(Set.of(), null);
    }

    /**
     * @param ports the only ports a connect may go to (on any loopback address); at least one
     * @return a factory that refuses every connect but to loopback on {@code ports}
     */
    public static LoopbackOnlySockets onPorts(int... ports) {
        if (ports.length == 0) {
            throw new IllegalArgumentException("onPorts needs at least one port; anyPort() is for any");
        }
        return new LoopbackOnlySockets(Set.copyOf(Arrays.stream(ports).boxed().toList()), null);
    }

    /**
     * @param endpoint a loopback address and port
     * @return a factory that refuses every connect but to exactly {@code endpoint}
     * @throws IllegalArgumentException if {@code endpoint} is unresolved or not loopback
     */
    public static LoopbackOnlySockets only(InetSocketAddress endpoint) {
        if (endpoint.isUnresolved() || !isLoopback(endpoint.getAddress())) {
            throw new IllegalArgumentException("not a loopback endpoint: " + endpoint);
        }
        return new LoopbackOnlySockets(Set.of(endpoint.getPort()), endpoint.getAddress());
    }

    /**
     * The one definition of loopback in the tests: the whole of 127.0.0.0/8, the IPv6 loopback
     * {@code ::1} (any scope), and the IPv4-mapped form {@code ::ffff:127.x.y.z} of 127.0.0.0/8.
     * Everything else is not loopback, including the IPv4-mapped form of any other address, the
     * deprecated IPv4-compatible {@code ::127.0.0.1}, and the unspecified {@code 0.0.0.0} and {@code ::}
     * (which the kernel would treat as this host, but not as the loopback interface alone).
     *
     * @param address any address, not null
     * @return whether a connect to {@code address} stays on the loopback interface
     */
    public static boolean isLoopback(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length == 4) {
            return b[0] == 127;
        }
        if (b.length != 16) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        if (b[10] == (byte) 0xff && b[11] == (byte) 0xff) {
            return b[12] == 127; // ::ffff:a.b.c.d, a connect to a.b.c.d
        }
        if (b[10] != 0 || b[11] != 0 || b[12] != 0 || b[13] != 0 || b[14] != 0) {
            return false;
        }
        return b[15] == 1;
    }

    /** @return every connect attempted through this factory, refused or not, in order */
    public synchronized List<InetSocketAddress> attempts() {
        return List.copyOf(attempts);
    }

    /** @return how many connects this factory let through so far */
    public int connects() {
        return connects.get();
    }

    private synchronized void record(InetSocketAddress address) {
        attempts.add(address);
    }

    /**
     * Checks the endpoint and returns it with a host name attached, so that nothing on the way (a
     * Jazzer hook, a log line) can turn the address back into a name with a reverse DNS query.
     */
    InetSocketAddress check(SocketAddress endpoint) throws IOException {
        if (!(endpoint instanceof InetSocketAddress address) || address.isUnresolved()) {
            throw new ConnectException("test socket factory: refusing an unresolved or unknown endpoint " + endpoint);
        }
        record(address);
        InetAddress ip = address.getAddress();
        if (!isLoopback(ip)) {
            throw new ConnectException("test socket factory: refusing a connect off loopback, to " + address);
        }
        if (!ports.isEmpty() && !ports.contains(address.getPort())) {
            throw new ConnectException("test socket factory: refusing a loopback port the test did not open: "
                    + address.getPort());
        }
        byte[] b = ip.getAddress();
        if (onlyAddress != null && !onlyAddress.equals(InetAddress.getByAddress(b))) {
            throw new ConnectException("test socket factory: refusing a loopback address the test did not open: "
                    + ip.getHostAddress());
        }
        connects.incrementAndGet();
        return new InetSocketAddress(InetAddress.getByAddress("loopback-under-test", b), address.getPort());
    }

    @Override
    public Socket createSocket() {
        return new Guarded();
    }

    /** A socket on {@code impl}, checked as every other: how the tests show the check precedes the connect. */
    Socket createSocket(SocketImpl impl) throws SocketException {
        return new Guarded(impl);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw new ConnectException("test socket factory: refusing to connect by name: " + host);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new ConnectException("test socket factory: refusing to connect by name: " + host);
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

    /** Every connect (with or without a timeout) is checked before the JDK's connect runs. */
    private final class Guarded extends Socket {
        Guarded() {}

        Guarded(SocketImpl impl) throws SocketException {
            super(impl);
        }

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            super.connect(check(endpoint), timeout);
        }
    }
}
