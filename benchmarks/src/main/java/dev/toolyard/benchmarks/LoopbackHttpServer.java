package dev.toolyard.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.LongAdder;

/**
 * A real HTTP/1.1 server on 127.0.0.1 (the JDK's {@code com.sun.net.httpserver}), serving one fixed
 * {@code text/plain; charset=utf-8} body at {@value #PATH} with its {@code Content-Length}, keep-alive
 * on. It holds nothing per request beyond a counter, so millions of requests cost it no memory.
 *
 * <p>Why not OkHttp's {@code mockwebserver3}: it keeps every request it served in an unbounded queue
 * (a {@code RecordedRequest} each, headers and body buffer included), which across a benchmark's
 * hundreds of thousands of requests grows the heap and puts the collector's copying into the figures.
 *
 * <p>{@code sun.net.httpserver.nodelay} is set to {@code true} before the server classes load (they
 * read it once): the server writes the headers and the body in two writes, and with Nagle's algorithm
 * on, the second waits for the client's delayed ACK of the first (tens of milliseconds). The handler
 * runs on the server's dispatcher thread; one client thread at a time is all a benchmark here uses.
 * Thread-safe.
 */
final class LoopbackHttpServer implements AutoCloseable {
    static final String PATH = "/body";
    static final String CONTENT_TYPE = "text/plain; charset=utf-8";

    static {
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final byte[] body;
    private final LongAdder served = new LongAdder();

    private LoopbackHttpServer(byte[] body) throws IOException {
        this.body = body.clone();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
        server.createContext(PATH, this::serve);
        server.setExecutor(null);
        server.start();
    }

    /**
     * @param body the body every GET of {@value #PATH} answers with
     * @return a started server on an ephemeral port of 127.0.0.1
     */
    static LoopbackHttpServer start(byte[] body) {
        try {
            return new LoopbackHttpServer(body);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the loopback HTTP server", e);
        }
    }

    /** @return the port it listens on, on 127.0.0.1 */
    int port() {
        return server.getAddress().getPort();
    }

    /** @return how many bodies it has served */
    long served() {
        return served.sum();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().close();
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            served.increment();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
