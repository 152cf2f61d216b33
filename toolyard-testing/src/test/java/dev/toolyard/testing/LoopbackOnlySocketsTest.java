package dev.toolyard.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketImpl;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The test kit's network guard, tested on its own. No test here sends a packet off loopback even if the
 * factory were broken: every refusal is shown on a socket whose implementation never reaches the kernel
 * (it records the connect it was asked for and throws), and only loopback connects use real sockets.
 */
class LoopbackOnlySocketsTest {
    private static InetAddress ip(int... bytes) throws IOException {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return InetAddress.getByAddress(b);
    }

    private static InetAddress v6(int last, int... prefix) throws IOException {
        byte[] b = new byte[16];
        for (int i = 0; i < prefix.length; i++) {
            b[i] = (byte) prefix[i];
        }
        b[15] = (byte) last;
        // An Inet6Address even for the IPv4-mapped forms, which InetAddress.getByAddress would turn into IPv4.
        return Inet6Address.getByAddress(null, b, -1);
    }

    private static InetAddress mapped(int a, int b, int c, int d) throws IOException {
        return Inet6Address.getByAddress(null, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff,
                (byte) a, (byte) b, (byte) c, (byte) d}, -1);
    }

    @Test
    void loopbackIsAllOf127Slash8AndColonColon1AndTheMappedFormOf127Slash8() throws IOException {
        assertThat(LoopbackOnlySockets.isLoopback(ip(127, 0, 0, 1))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(ip(127, 0, 0, 2))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(ip(127, 255, 255, 254))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(InetAddress.getByName("::1"))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(v6(1))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(mapped(127, 0, 0, 1))).isTrue();
        assertThat(LoopbackOnlySockets.isLoopback(mapped(127, 9, 9, 9))).isTrue();
    }

    @Test
    void everythingElseIsNotLoopbackIncludingMappedAndCompatibleFormsOfOtherAddresses() throws IOException {
        List<InetAddress> off = List.of(
                ip(192, 0, 2, 1), ip(126, 255, 255, 255), ip(128, 0, 0, 1), ip(0, 0, 0, 0), ip(10, 0, 0, 1),
                ip(169, 254, 169, 254), ip(255, 255, 255, 255), ip(1, 127, 0, 1),
                mapped(192, 0, 2, 1), mapped(10, 0, 0, 1), mapped(0, 0, 0, 0), mapped(169, 254, 169, 254),
                v6(0), v6(2), v6(1, 0xfe, 0x80), v6(1, 0x20, 0x01, 0x0d, 0xb8), v6(1, 0xff, 0x02),
                // ::127.0.0.1, the deprecated IPv4-compatible form, and ::ffff:0:127.0.0.1 (SIIT)
                Inet6Address.getByAddress(null, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 0, 1}, -1),
                Inet6Address.getByAddress(null, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0, 0,
                        127, 0, 0, 1}, -1),
                // 0:0:0:0:0:1:0:1 differs from ::1 in the middle
                Inet6Address.getByAddress(null, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}, -1));
        for (InetAddress a : off) {
            assertThat(LoopbackOnlySockets.isLoopback(a)).as(a.toString()).isFalse();
        }
    }

    /** A socket implementation that never reaches the kernel: it records what it was asked to connect to. */
    private static final class RecordingImpl extends SocketImpl {
        final List<SocketAddress> connects = new ArrayList<>();

        @Override
        protected void create(boolean stream) {}

        @Override
        protected void connect(String host, int port) throws IOException {
            connects.add(InetSocketAddress.createUnresolved(host, port));
            throw new ConnectException("recording only");
        }

        @Override
        protected void connect(InetAddress address, int port) throws IOException {
            connects.add(new InetSocketAddress(address, port));
            throw new ConnectException("recording only");
        }

        @Override
        protected void connect(SocketAddress address, int timeout) throws IOException {
            connects.add(address);
            throw new ConnectException("recording only");
        }

        @Override
        protected void bind(InetAddress host, int port) throws IOException {
            throw new IOException("recording only");
        }

        @Override
        protected void listen(int backlog) throws IOException {
            throw new IOException("recording only");
        }

        @Override
        protected void accept(SocketImpl s) throws IOException {
            throw new IOException("recording only");
        }

        @Override
        protected InputStream getInputStream() throws IOException {
            throw new IOException("recording only");
        }

        @Override
        protected OutputStream getOutputStream() throws IOException {
            throw new IOException("recording only");
        }

        @Override
        protected int available() {
            return 0;
        }

        @Override
        protected void close() {}

        @Override
        protected void sendUrgentData(int data) throws IOException {
            throw new IOException("recording only");
        }

        @Override
        public void setOption(int optID, Object value) {}

        @Override
        public Object getOption(int optID) {
            return null;
        }
    }

    @Test
    void aConnectToTestNet1IsRefusedBeforeTheSocketConnects() throws IOException {
        LoopbackOnlySockets sockets = LoopbackOnlySockets.anyPort();
        RecordingImpl impl = new RecordingImpl();
        Socket s = sockets.createSocket(impl);
        InetSocketAddress testNet1 = new InetSocketAddress(ip(192, 0, 2, 1), 80);
        assertThatThrownBy(() -> s.connect(testNet1, 10_000))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("refusing a connect off loopback");
        assertThat(impl.connects).as("the socket's own connect never ran").isEmpty();
        assertThat(sockets.attempts()).containsExactly(testNet1);
        assertThat(sockets.connects()).isZero();
    }

    @Test
    void theCheckedConnectIsTheSocketsOwnConnectSoALoopbackOneReachesIt() throws IOException {
        // The positive control of the test above: the same socket, with a loopback endpoint, does reach
        // its implementation, so an empty record there means the check stopped the connect.
        LoopbackOnlySockets sockets = LoopbackOnlySockets.anyPort();
        RecordingImpl impl = new RecordingImpl();
        Socket s = sockets.createSocket(impl);
        assertThatThrownBy(() -> s.connect(new InetSocketAddress(ip(127, 0, 0, 1), 9)))
                .hasMessage("recording only");
        assertThat(impl.connects).hasSize(1);
        assertThat(((InetSocketAddress) impl.connects.get(0)).getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    void mappedFormsOfOtherAddressesAndPortsNotOpenedAndNamesAreRefusedBeforeAnyConnect() throws IOException {
        LoopbackOnlySockets sockets = LoopbackOnlySockets.onPorts(8080);
        List<InetSocketAddress> refused = List.of(new InetSocketAddress(mapped(192, 0, 2, 1), 8080),
                new InetSocketAddress(v6(1, 0xfe, 0x80), 8080), new InetSocketAddress(ip(127, 0, 0, 1), 8081),
                new InetSocketAddress(ip(0, 0, 0, 0), 8080));
        for (InetSocketAddress endpoint : refused) {
            RecordingImpl impl = new RecordingImpl();
            Socket s = sockets.createSocket(impl);
            assertThatThrownBy(() -> s.connect(endpoint)).as(endpoint.toString())
                    .isInstanceOf(ConnectException.class).hasMessageContaining("test socket factory: refusing");
            assertThat(impl.connects).as(endpoint.toString()).isEmpty();
        }
        RecordingImpl impl = new RecordingImpl();
        Socket s = sockets.createSocket(impl);
        assertThatThrownBy(() -> s.connect(InetSocketAddress.createUnresolved("example.com", 8080)))
                .isInstanceOf(ConnectException.class).hasMessageContaining("unresolved");
        assertThat(impl.connects).isEmpty();
        assertThatThrownBy(() -> sockets.createSocket("localhost", 8080)).hasMessageContaining("by name");
        assertThatThrownBy(() -> sockets.createSocket("localhost", 8080, null, 0)).hasMessageContaining("by name");
        assertThat(sockets.connects()).isZero();
    }

    @Test
    void onlyRefusesAnotherLoopbackAddressOnTheSamePort() throws IOException {
        LoopbackOnlySockets sockets = LoopbackOnlySockets.only(new InetSocketAddress(ip(127, 0, 0, 1), 8080));
        RecordingImpl impl = new RecordingImpl();
        Socket s = sockets.createSocket(impl);
        assertThatThrownBy(() -> s.connect(new InetSocketAddress(ip(127, 0, 0, 2), 8080)))
                .hasMessageContaining("loopback address the test did not open");
        assertThat(impl.connects).isEmpty();
        assertThatThrownBy(() -> LoopbackOnlySockets.only(new InetSocketAddress(ip(192, 0, 2, 1), 80)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(LoopbackOnlySockets::onPorts).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLoopbackConnectGoesThroughOnARealSocketAndIsCounted() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, ip(127, 0, 0, 1))) {
            LoopbackOnlySockets sockets = LoopbackOnlySockets.onPorts(server.getLocalPort());
            try (Socket s = sockets.createSocket(ip(127, 0, 0, 1), server.getLocalPort());
                    Socket accepted = server.accept()) {
                assertThat(s.isConnected()).isTrue();
                assertThat(accepted.getInetAddress().isLoopbackAddress()).isTrue();
            }
            try (Socket s = sockets.createSocket(ip(127, 0, 0, 1), server.getLocalPort(), ip(127, 0, 0, 1), 0);
                    Socket accepted = server.accept()) {
                assertThat(s.getLocalAddress().getHostAddress()).isEqualTo("127.0.0.1");
            }
            assertThat(sockets.connects()).isEqualTo(2);
            assertThat(sockets.attempts()).hasSize(2);
        }
    }
}
