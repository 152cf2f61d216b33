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
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
        Selector selector = null;
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
            selector = Selector.open();
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            server.close();
            if (selector != null) {
                selector.close();
            }
            Files.deleteIfExists(socket);
            throw e;
        }
        Session s = new Session(server, selector, socket);
        s.start();
        return s;
    }

    /**
     * One call's listener: its connections, its counters and its log. Closed once.
     *
     * <p>Threads: one reactor accepts every connection, reads each request head and drains each refused
     * connection, without blocking; one watchdog closes idle connections (also one that never sent a
     * byte). A connection gets a thread of its own only once its head is complete, to check it (the
     * resolver may block) and, when it is allowed, to carry it (two threads then, one each way). So a
     * command that opens connections and sends nothing ties up no thread, and a call never has more
     * than {@code 2 + 2 * maxConnections} threads. Open connections (file descriptors) are bounded
     * too: at most {@code maxConnections}, plus {@link #DRAINING_BEYOND_LIMIT} refused ones still
     * being drained; past that a refused connection is closed at once.
     */
    public final class Session implements Closeable {
        private final ServerSocketChannel server;
        private final Selector selector;
        private final Path socket;
        private final NetworkLog log = new NetworkLog(limits.maxRecordedDestinations());
        private final AtomicInteger accepted = new AtomicInteger();
        private final AtomicLong bytes = new AtomicLong();
        private final Set<Connection> open = ConcurrentHashMap.newKeySet();
        /** Connections a thread refused, handed back to the reactor to drain. */
        private final Queue<Connection> toDrain = new ConcurrentLinkedQueue<>();
        private final Thread reactor;
        private final Thread watchdog;
        private volatile boolean closed;

        private Session(ServerSocketChannel server, Selector selector, Path socket) {
            this.server = server;
            this.selector = selector;
            this.socket = socket;
            this.reactor = new Thread(this::reactorLoop, "toolyard-proxy-reactor");
            this.watchdog = new Thread(this::watchLoop, "toolyard-proxy-idle");
            reactor.setDaemon(true);
            watchdog.setDaemon(true);
        }

        private void start() {
            reactor.start();
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

        /** @return how many connections the command opened to the proxy that are still open */
        public int openConnections() {
            return open.size();
        }

        /** @return how many connections the proxy accepted for this call so far, refused ones included */
        public int acceptedConnections() {
            return accepted.get();
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
                c.end();
            }
            quietly(selector);
            reactor.interrupt();
            watchdog.interrupt();
            try {
                reactor.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not remove the proxy socket " + socket, e);
            }
        }

        private void reactorLoop() {
            ByteBuffer sink = ByteBuffer.allocate(BUFFER);
            List<Connection> complete = new ArrayList<>();
            try {
                while (!closed) {
                    // Keys a flushing selectNow() left selected are handled before blocking again.
                    if (selector.selectedKeys().isEmpty()) {
                        selector.select(1000);
                    } else {
                        selector.selectNow();
                    }
                    for (Connection c; (c = toDrain.poll()) != null; ) {
                        c.drainOnReactor();
                    }
                    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                    while (keys.hasNext()) {
                        SelectionKey key = keys.next();
                        keys.remove();
                        if (!key.isValid()) {
                            continue;
                        }
                        try {
                            if (key.isAcceptable()) {
                                acceptAll();
                            } else if (key.isReadable() && ((Connection) key.attachment()).readable(sink)) {
                                key.cancel();
                                complete.add((Connection) key.attachment());
                            }
                        } catch (CancelledKeyException e) {
                            // The watchdog closed that connection meanwhile; the others go on.
                            if (key.attachment() instanceof Connection c) {
                                c.end();
                            }
                        }
                    }
                    if (!complete.isEmpty()) {
                        // Deregisters the cancelled keys: only then may their channels block again.
                        selector.selectNow();
                        for (Connection c : complete) {
                            c.handOff();
                        }
                        complete.clear();
                    }
                }
            } catch (IOException | ClosedSelectorException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "the command proxy's reactor ended; the call loses its network", e);
                }
            }
        }

        private void acceptAll() throws IOException {
            while (!closed) {
                SocketChannel client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    return; // closed
                }
                if (client == null) {
                    return;
                }
                Connection c = new Connection(this, client);
                open.add(c);
                try {
                    client.configureBlocking(false);
                    if (accepted.incrementAndGet() > limits.maxConnections()) {
                        log.connection("", 0, null, ProxyCheck.Refusal.CONNECTION_LIMIT.wire);
                        c.refuseOnReactor(429, "Too Many Requests", ProxyCheck.Refusal.CONNECTION_LIMIT,
                                "this command opened as many connections as it may (" + limits.maxConnections() + ")");
                    } else {
                        client.register(selector, SelectionKey.OP_READ, c);
                    }
                } catch (IOException e) {
                    c.end();
                }
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
                        c.end();
                    }
                }
            }
        }
    }

    /** Refused connections a call may hold open while they are drained, beyond its connection limit. */
    static final int DRAINING_BEYOND_LIMIT = 64;
    /** Bytes drained from a refused connection before it is closed. */
    private static final long DRAIN_BYTES = ProxyRequest.MAX_HEAD_BYTES * 4L;

    /**
     * One connection of the command to the proxy, and the upstream one it opens. Its request head is
     * read on the reactor; from {@link #handOff()} on it has a thread; a refused one goes back to the
     * reactor to be drained.
     */
    private final class Connection {
        private final Session session;
        private final SocketChannel client;
        private volatile Socket upstream;
        private volatile long lastActivity = System.nanoTime();
        private volatile boolean closed;
        /** The request head as read so far; allocated at the first byte. Reactor only, then the thread. */
        private ByteBuffer head;
        private int scanned;
        private int headEnd = -1;
        private boolean ended;
        /** Set once a thread refused it: the reactor drains it from then on. */
        private boolean draining;
        private long drained;

        Connection(Session session, SocketChannel client) {
            this.session = session;
            this.client = client;
        }

        /**
         * Reads what is there, on the reactor.
         *
         * @return whether the head is complete, too long, or ended early: the connection's thread takes over
         */
        boolean readable(ByteBuffer sink) {
            if (draining) {
                drainSome(sink);
                return false;
            }
            if (head == null) {
                head = ByteBuffer.allocate(ProxyRequest.MAX_HEAD_BYTES);
            }
            int n;
            try {
                n = client.read(head);
            } catch (IOException e) {
                end();
                return false;
            }
            if (n < 0) {
                ended = true;
                if (head.position() == 0) {
                    end(); // connected and went away: nothing to answer, no thread needed
                    return false;
                }
                return true;
            }
            lastActivity = System.nanoTime();
            byte[] a = head.array();
            for (int i = Math.max(0, scanned - 3); i + 3 < head.position(); i++) {
                if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                    headEnd = i + 4;
                    return true;
                }
            }
            scanned = head.position();
            return !head.hasRemaining();
        }

        /** Gives the connection, its head read, a thread of its own (on the reactor, its key deregistered). */
        void handOff() {
            if (closed) {
                end();
                return;
            }
            try {
                client.configureBlocking(true);
            } catch (IOException | RuntimeException e) {
                end();
                return;
            }
            Thread t = new Thread(this::serve, "toolyard-proxy-conn");
            t.setDaemon(true);
            t.start();
        }

        void serve() {
            try {
                serveChecked();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "proxy connection ended", e);
            } finally {
                if (!draining) {
                    end();
                }
            }
        }

        private void serveChecked() throws IOException {
            if (headEnd < 0) {
                session.log.connection("", 0, null, ProxyCheck.Refusal.BAD_REQUEST.wire);
                refuse(400, "Bad Request", ProxyCheck.Refusal.BAD_REQUEST, "the request head is over "
                        + ProxyRequest.MAX_HEAD_BYTES + " bytes or ended early");
                return;
            }
            byte[] a = head.array();
            byte[] headBytes = java.util.Arrays.copyOfRange(a, 0, headEnd);
            byte[] rest = java.util.Arrays.copyOfRange(a, headEnd, head.position());
            head = null;
            ProxyRequest request;
            try {
                request = ProxyRequest.parse(headBytes);
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
            ProxyCheck.Allowed allowed = (ProxyCheck.Allowed) d;
            Socket s = connect(allowed);
            if (s == null) {
                session.log.connection(allowed.host(), allowed.port(), allowed.addresses().get(0),
                        ProxyCheck.Refusal.CONNECT_FAILED.wire);
                refuse(502, "Bad Gateway", ProxyCheck.Refusal.CONNECT_FAILED, "no address of " + allowed.host()
                        + " accepted the connection on port " + allowed.port());
                return;
            }
            upstream = s;
            if (closed) {
                return;
            }
            NetworkLog.Entry entry = session.log.connection(allowed.host(), allowed.port(), s.getInetAddress(),
                    NetworkLog.REACHED);
            OutputStream up = s.getOutputStream();
            if (request.connect()) {
                writeClient(ByteBuffer.wrap("HTTP/1.1 200 Connection Established\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1)));
            } else if (!send(up, request.forwarded(), entry)) {
                return;
            }
            // What the client sent after the head goes on as it is.
            if (!send(up, rest, entry)) {
                return;
            }
            if (ended) {
                s.shutdownOutput();
            }
            Thread down = new Thread(() -> pumpDown(s, entry), "toolyard-proxy-down");
            down.setDaemon(true);
            down.start();
            if (!ended) {
                pumpUp(up, entry);
            }
            try {
                down.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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

        private static byte[] refusal(int code, String text, ProxyCheck.Refusal why, String detail) {
            byte[] body = (detail + "\n").getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 " + code + " " + text + "\r\n"
                    + "X-Proxy-Error: " + why.wire + "\r\n"
                    + "Content-Type: text/plain; charset=utf-8\r\n"
                    + "Content-Length: " + body.length + "\r\n"
                    + "Connection: close\r\n\r\n";
            byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
            byte[] all = java.util.Arrays.copyOf(h, h.length + body.length);
            System.arraycopy(body, 0, all, h.length, body.length);
            return all;
        }

        /**
         * Sends the refusal on the connection's thread, then hands the connection back to the reactor,
         * which reads what the command still sends until it closes (or the idle timeout closes it), so
         * that the refusal is not lost to a reset from unread input, without holding this thread.
         */
        private void refuse(int code, String text, ProxyCheck.Refusal why, String detail) {
            try {
                writeClient(ByteBuffer.wrap(refusal(code, text, why, detail)));
                client.shutdownOutput();
            } catch (ClosedChannelException e) {
                return; // the command went away first
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not send the refusal", e);
                return;
            }
            draining = true;
            session.toDrain.add(this);
            session.selector.wakeup();
        }

        /** As {@link #refuse}, on the reactor, for a connection that never gets a thread. */
        void refuseOnReactor(int code, String text, ProxyCheck.Refusal why, String detail) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(refusal(code, text, why, detail));
            client.write(b); // a fresh socket's buffer takes a few hundred bytes at once
            if (b.hasRemaining()) {
                end();
                return;
            }
            client.shutdownOutput();
            draining = true;
            startDraining();
        }

        /** On the reactor: registers a connection a thread refused, to be drained. */
        void drainOnReactor() {
            if (closed) {
                end();
                return;
            }
            try {
                client.configureBlocking(false);
            } catch (IOException | RuntimeException e) {
                end();
                return;
            }
            startDraining();
        }

        private void startDraining() {
            if (session.open.size() > limits.maxConnections() + DRAINING_BEYOND_LIMIT) {
                end(); // a flood: its refusals may be cut short, the JVM's descriptors are not spent
                return;
            }
            try {
                client.register(session.selector, SelectionKey.OP_READ, this);
            } catch (IOException | RuntimeException e) {
                end();
            }
        }

        private void drainSome(ByteBuffer sink) {
            sink.clear();
            int n;
            try {
                n = client.read(sink);
            } catch (IOException e) {
                end();
                return;
            }
            if (n < 0 || (drained += n) > DRAIN_BYTES) {
                end();
                return;
            }
            lastActivity = System.nanoTime();
        }

        void close() {
            closed = true;
            quietly(client);
            Socket s = upstream;
            if (s != null) {
                quietly(s);
            }
        }

        /** Closes both ends and forgets the connection. Idempotent; any thread. */
        void end() {
            // Counted out first, so a command that sees its connection closed never finds it still counted.
            session.open.remove(this);
            close();
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
