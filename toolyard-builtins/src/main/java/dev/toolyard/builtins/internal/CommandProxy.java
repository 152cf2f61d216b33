package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.Resolver;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * The host half of network for sandboxed commands: an HTTP proxy, in this JVM, listening on a unix
 * socket for one call at a time ({@link #open}), which the sandbox's relay reaches. It answers
 * {@code CONNECT host:port} (a tunnel: TLS passes through untouched) and plain {@code http://}
 * requests in absolute form; every destination goes through {@link ProxyCheck} first, and the proxy
 * then connects to an address it checked, never to a name (no second lookup, so DNS rebinding gets
 * nothing). A refused destination gets {@code 403} with {@code X-Proxy-Error: <reason>}, before any
 * connect is attempted. Limits per call: connections, bytes (both ways together), and an idle timeout
 * per connection; hitting one ends that connection, never the proxy. Immutable. Thread-safe: sessions
 * of concurrent calls are independent.
 *
 * <p>Public for {@code dev.toolyard.builtins}; this package is exported to no application.
 */
public final class CommandProxy {
    private static final System.Logger LOG = System.getLogger(CommandProxy.class.getName());
    private static final int BUFFER = 16 * 1024;

    /**
     * @param maxConnections connections one call may open, refused ones included
     * @param maxBytes bytes one call may move, both ways together
     * @param idleTimeout how long a connection may carry nothing before it is closed
     * @param connectTimeout how long a connect to a checked address may take
     * @param maxRecordedDestinations distinct destinations recorded before they are only counted
     */
    public record Limits(int maxConnections, long maxBytes, Duration idleTimeout, Duration connectTimeout,
            int maxRecordedDestinations) {}

    private final ProxyCheck check;
    private final Limits limits;
    private final SocketFactory sockets;

    private CommandProxy(ProxyCheck check, Limits limits, SocketFactory sockets) {
        this.check = check;
        this.limits = limits;
        this.sockets = sockets;
    }

    /**
     * @param hosts the allowlist's entries, as {@link ProxyAllowlist#of}
     * @param defaultPorts the ports an entry without its own admits
     * @param resolver resolves every name, once per connection
     * @param limits the per-call limits
     * @param sockets creates every upstream socket; it only ever sees checked addresses
     * @return the proxy
     * @throws IllegalArgumentException naming {@code hosts[i]} for an invalid entry
     */
    public static CommandProxy of(List<String> hosts, Set<Integer> defaultPorts, Resolver resolver, Limits limits,
            SocketFactory sockets) {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(sockets, "socketFactory");
        return new CommandProxy(new ProxyCheck(ProxyAllowlist.of(hosts, defaultPorts), resolver), limits, sockets);
    }

    /**
     * Starts listening for one call on a new unix socket at {@code socket}, mode {@code 0666} (the
     * directory around it is what keeps others out), and returns once it accepts: a relay that connects
     * after this never finds it closed.
     *
     * @param socket where to create the socket; its directory exists, the file does not
     * @return the session; close it when the call's command has ended
     * @throws IOException if the socket cannot be created
     */
    public Session open(Path socket) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(socket);
            throw e;
        }
        Session s = new Session(server, socket);
        s.start();
        return s;
    }

    /** One call's listener: its connections, its counters and its log. Closed once. */
    public final class Session implements Closeable {
        private final ServerSocketChannel server;
        private final Path socket;
        private final NetworkLog log = new NetworkLog(limits.maxRecordedDestinations());
        private final AtomicInteger accepted = new AtomicInteger();
        private final AtomicLong bytes = new AtomicLong();
        private final Set<Connection> open = ConcurrentHashMap.newKeySet();
        private final Thread acceptor;
        private final Thread watchdog;
        private volatile boolean closed;

        private Session(ServerSocketChannel server, Path socket) {
            this.server = server;
            this.socket = socket;
            this.acceptor = new Thread(this::acceptLoop, "toolyard-proxy-accept");
            this.watchdog = new Thread(this::watchLoop, "toolyard-proxy-idle");
            acceptor.setDaemon(true);
            watchdog.setDaemon(true);
        }

        private void start() {
            acceptor.start();
            watchdog.start();
        }

        /** @return the record of the call's network, as JSON; see {@link NetworkLog#toJson()} */
        public String recordJson() {
            return log.toJson();
        }

        /** @return one line per recorded destination, for the command's output */
        public List<String> lines() {
            return log.lines();
        }

        /** @return how many connections the command opened to the proxy so far */
        public long connections() {
            return log.connections();
        }

        /** Stops listening, closes every connection, removes the socket file. Idempotent. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            quietly(server);
            for (Connection c : open) {
                c.close();
            }
            acceptor.interrupt();
            watchdog.interrupt();
            try {
                acceptor.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not remove the proxy socket " + socket, e);
            }
        }

        private void acceptLoop() {
            while (!closed) {
                SocketChannel client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    return; // closed
                }
                Connection c = new Connection(this, client);
                open.add(c);
                if (closed) {
                    c.close();
                    return;
                }
                Thread t = new Thread(c::serve, "toolyard-proxy-conn");
                t.setDaemon(true);
                t.start();
            }
        }

        private void watchLoop() {
            long idleNanos = limits.idleTimeout().toNanos();
            long tick = Math.max(10, Math.min(1000, limits.idleTimeout().toMillis() / 4));
            while (!closed) {
                try {
                    Thread.sleep(tick);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                for (Connection c : open) {
                    if (now - c.lastActivity > idleNanos) {
                        c.close();
                    }
                }
            }
        }
    }

    /** One connection of the command to the proxy, and the upstream one it opens. */
    private final class Connection {
        private final Session session;
        private final SocketChannel client;
        private volatile Socket upstream;
        private volatile long lastActivity = System.nanoTime();
        private volatile boolean closed;

        Connection(Session session, SocketChannel client) {
            this.session = session;
            this.client = client;
        }

        void serve() {
            try {
                serveChecked();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "proxy connection ended", e);
            } finally {
                close();
                session.open.remove(this);
            }
        }

        private void serveChecked() throws IOException {
            if (session.accepted.incrementAndGet() > limits.maxConnections()) {
                session.log.connection("", 0, null, ProxyCheck.Refusal.CONNECTION_LIMIT.wire);
                refuse(429, "Too Many Requests", ProxyCheck.Refusal.CONNECTION_LIMIT,
                        "this command opened as many connections as it may (" + limits.maxConnections() + ")");
                return;
            }
            boolean[] partial = new boolean[1];
            Head head = readHead(partial);
            if (head == null) {
                if (partial[0]) {
                    session.log.connection("", 0, null, ProxyCheck.Refusal.BAD_REQUEST.wire);
                    refuse(400, "Bad Request", ProxyCheck.Refusal.BAD_REQUEST, "the request head is over "
                            + ProxyRequest.MAX_HEAD_BYTES + " bytes or ended early");
                }
                return;
            }
            ProxyRequest request;
            try {
                request = ProxyRequest.parse(head.head());
            } catch (ProxyRequest.Malformed e) {
                session.log.connection("", 0, null, ProxyCheck.Refusal.BAD_REQUEST.wire);
                refuse(400, "Bad Request", ProxyCheck.Refusal.BAD_REQUEST, e.getMessage());
                return;
            }
            ProxyCheck.Decision d = check.check(request.host(), request.port());
            if (d instanceof ProxyCheck.Refused r) {
                session.log.connection(r.host(), r.port(), r.addresses().isEmpty() ? null : r.addresses().get(0),
                        r.refusal().wire);
                refuse(403, "Forbidden", r.refusal(), r.detail());
                return;
            }
            ProxyCheck.Allowed a = (ProxyCheck.Allowed) d;
            Socket s = connect(a);
            if (s == null) {
                session.log.connection(a.host(), a.port(), a.addresses().get(0), ProxyCheck.Refusal.CONNECT_FAILED.wire);
                refuse(502, "Bad Gateway", ProxyCheck.Refusal.CONNECT_FAILED, "no address of " + a.host()
                        + " accepted the connection on port " + a.port());
                return;
            }
            upstream = s;
            if (closed) {
                return;
            }
            NetworkLog.Entry entry = session.log.connection(a.host(), a.port(), s.getInetAddress(), NetworkLog.REACHED);
            OutputStream up = s.getOutputStream();
            if (request.connect()) {
                writeClient(ByteBuffer.wrap("HTTP/1.1 200 Connection Established\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1)));
            } else if (!send(up, request.forwarded(), entry)) {
                return;
            }
            // What the client sent after the head goes on as it is.
            if (!send(up, head.rest(), entry)) {
                return;
            }
            Thread down = new Thread(() -> pumpDown(s, entry), "toolyard-proxy-down");
            down.setDaemon(true);
            down.start();
            pumpUp(up, entry);
            try {
                down.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The request head, and what the client sent after it in the same reads. */
        private record Head(byte[] head, byte[] rest) {}

        /** Reads until the blank line; @return the head, or {@code null} (with {@code partial} set) if none */
        private Head readHead(boolean[] partial) throws IOException {
            ByteBuffer buf = ByteBuffer.allocate(ProxyRequest.MAX_HEAD_BYTES);
            int scanned = 0;
            while (buf.hasRemaining()) {
                if (client.read(buf) < 0) {
                    partial[0] = buf.position() > 0;
                    return null;
                }
                lastActivity = System.nanoTime();
                byte[] a = buf.array();
                for (int i = Math.max(0, scanned - 3); i + 3 < buf.position(); i++) {
                    if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                        return new Head(java.util.Arrays.copyOfRange(a, 0, i + 4),
                                java.util.Arrays.copyOfRange(a, i + 4, buf.position()));
                    }
                }
                scanned = buf.position();
            }
            partial[0] = true;
            return null;
        }

        private Socket connect(ProxyCheck.Allowed a) {
            for (InetAddress address : a.addresses()) {
                Socket s = null;
                try {
                    s = sockets.createSocket();
                    s.connect(new InetSocketAddress(address, a.port()), (int) limits.connectTimeout().toMillis());
                    return s;
                } catch (IOException e) {
                    if (s != null) {
                        quietly(s);
                    }
                    LOG.log(System.Logger.Level.DEBUG, "proxy connect failed", e);
                }
            }
            return null;
        }

        private boolean send(OutputStream up, byte[] b, NetworkLog.Entry entry) throws IOException {
            return send(up, ByteBuffer.wrap(b), entry);
        }

        private boolean send(OutputStream up, ByteBuffer b, NetworkLog.Entry entry) throws IOException {
            int n = b.remaining();
            if (n == 0) {
                return true;
            }
            if (!spend(n)) {
                return false;
            }
            up.write(b.array(), b.arrayOffset() + b.position(), n);
            up.flush();
            entry.up(n);
            lastActivity = System.nanoTime();
            return true;
        }

        private void pumpUp(OutputStream up, NetworkLog.Entry entry) {
            ByteBuffer buf = ByteBuffer.allocate(BUFFER);
            try {
                while (!closed) {
                    buf.clear();
                    int n = client.read(buf);
                    if (n < 0) {
                        Socket s = upstream;
                        if (s != null && !s.isClosed()) {
                            s.shutdownOutput();
                        }
                        return;
                    }
                    buf.flip();
                    if (!send(up, buf, entry)) {
                        close();
                        return;
                    }
                }
            } catch (IOException e) {
                close();
            }
        }

        private void pumpDown(Socket s, NetworkLog.Entry entry) {
            byte[] buf = new byte[BUFFER];
            try {
                InputStream in = s.getInputStream();
                while (!closed) {
                    int n = in.read(buf);
                    if (n < 0) {
                        client.shutdownOutput();
                        return;
                    }
                    if (!spend(n)) {
                        close();
                        return;
                    }
                    writeClient(ByteBuffer.wrap(buf, 0, n));
                    entry.down(n);
                    lastActivity = System.nanoTime();
                }
            } catch (IOException e) {
                close();
            }
        }

        /** Counts {@code n} bytes against the call's cap; @return whether they fit */
        private boolean spend(long n) {
            if (session.bytes.addAndGet(n) > limits.maxBytes()) {
                LOG.log(System.Logger.Level.DEBUG, "a sandboxed command reached its byte limit; closing the connection");
                return false;
            }
            return true;
        }

        private void writeClient(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                client.write(b);
            }
            lastActivity = System.nanoTime();
        }

        private void refuse(int code, String text, ProxyCheck.Refusal why, String detail) {
            byte[] body = (detail + "\n").getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 " + code + " " + text + "\r\n"
                    + "X-Proxy-Error: " + why.wire + "\r\n"
                    + "Content-Type: text/plain; charset=utf-8\r\n"
                    + "Content-Length: " + body.length + "\r\n"
                    + "Connection: close\r\n\r\n";
            try {
                writeClient(ByteBuffer.wrap(head.getBytes(StandardCharsets.ISO_8859_1)));
                writeClient(ByteBuffer.wrap(body));
                // Read what the command still sends until it closes (or the idle timeout closes it), so the
                // refusal is not lost to a reset from unread input.
                client.shutdownOutput();
                ByteBuffer sink = ByteBuffer.allocate(BUFFER);
                long drained = 0;
                while (!closed && drained < ProxyRequest.MAX_HEAD_BYTES * 4L) {
                    sink.clear();
                    int n = client.read(sink);
                    if (n < 0) {
                        break;
                    }
                    drained += n;
                    lastActivity = System.nanoTime();
                }
            } catch (ClosedChannelException e) {
                // The command went away first.
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not send the refusal", e);
            }
        }

        void close() {
            closed = true;
            quietly(client);
            Socket s = upstream;
            if (s != null) {
                quietly(s);
            }
        }
    }

    private static void quietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // Nothing to do: it is going away.
        }
    }
}
