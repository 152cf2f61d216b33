package dev.toolyard.builtins.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny HTTP/1.1 server on one loopback address for the proxy's tests: every request gets
 * {@code 200} with a fixed body and {@code Connection: close}; it records each request head. Bound to
 * loopback only, so nothing it does leaves the machine. Public for the tests of
 * {@code dev.toolyard.builtins}. Thread-safe.
 */
public final class LoopbackHttpServer implements AutoCloseable {
    private final ServerSocket server;
    private final byte[] body;
    private final List<String> heads = new ArrayList<>();
    private final Thread thread;

    /**
     * @param address a loopback address such as 127.0.0.1 or 127.0.0.2
     * @param body the body of every response
     */
    public LoopbackHttpServer(String address, byte[] body) throws IOException {
        InetAddress a = ScriptedResolver.address(address);
        if (!a.isLoopbackAddress()) {
            throw new IllegalArgumentException("loopback only: " + address);
        }
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(a, 0));
        this.body = body.clone();
        this.thread = new Thread(this::serve, "loopback-http");
        thread.setDaemon(true);
        thread.start();
    }

    /** @return the port it listens on */
    public int port() {
        return server.getLocalPort();
    }

    /** @return every request head seen, in order */
    public synchronized List<String> heads() {
        return List.copyOf(heads);
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                int state = 0;
                while (state < 4) {
                    int c = in.read();
                    if (c < 0) {
                        break;
                    }
                    head.write(c);
                    state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
                }
                synchronized (this) {
                    heads.add(head.toString(StandardCharsets.ISO_8859_1));
                }
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
            } catch (IOException e) {
                // next
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
