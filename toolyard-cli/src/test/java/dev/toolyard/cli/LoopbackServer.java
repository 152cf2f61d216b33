package dev.toolyard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** Answers every request on 127.0.0.1 with one fixed body, and counts them; loopback only. */
final class LoopbackServer implements AutoCloseable {
    /** What every answer carries. */
    static final String BODY = "hello from the cli test\n";

    final AtomicInteger requests = new AtomicInteger();
    private final ServerSocket socket;

    LoopbackServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
        Thread t = new Thread(this::serve, "cli-test-server");
        t.setDaemon(true);
        t.start();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try (Socket c = socket.accept()) {
                InputStream in = c.getInputStream();
                int state = 0; // how much of the blank line ending the head has been read
                while (state < 4) {
                    int b = in.read();
                    if (b < 0) {
                        break;
                    }
                    state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
                }
                requests.incrementAndGet();
                byte[] body = BODY.getBytes(StandardCharsets.US_ASCII);
                c.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                c.getOutputStream().write(body);
            } catch (IOException e) {
                // closed, or a client that went away
            }
        }
    }

    int port() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
