package dev.toolyard.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * The MCP stdio transport (one session, newline-delimited JSON-RPC on an input and an output stream)
 * for a server whose client may be hostile. The SDK's own {@code StdioServerTransportProvider} (2.1.0)
 * ends the session at the first line it cannot read (invalid JSON, an empty line, a batch, an id of
 * {@code 1.5}, a line over 16 MiB, nesting past its parser's 500 levels) and drops every answer still
 * unsent. This one answers each such line with the JSON-RPC error JSON-RPC 2.0 names and keeps serving;
 * a {@code tools/call} it can read only in part (over {@code maxLineBytes}, nested too deep) is handed on
 * as a call, so {@link ToolYardMcpServer} refuses and records it. The session ends only at the end of
 * the input (or {@link #close}), and answers of calls still running are written as they end.
 *
 * <p>Lines are read by one thread of its own; writes are serialised on the output stream. Thread-safe.
 */
public final class ToolYardStdioTransportProvider implements McpServerTransportProvider {
    /** The default longest line, in bytes: the SDK's own stdio limit. */
    static final int DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

    private static final System.Logger LOG = System.getLogger(ToolYardStdioTransportProvider.class.getName());
    /** The reader parses up to {@link JsonRpcLines#MAX_MESSAGE_DEPTH} levels; recursion there needs a deep stack. */
    private static final long READER_STACK_BYTES = 64L * 1024 * 1024;

    private final McpJsonMapper json;
    private final InputStream in;
    private final OutputStream out;
    private final int maxLineBytes;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch inputEnded = new CountDownLatch(1);
    private volatile McpServerSession session;

    /**
     * With the default longest line, the SDK's own stdio limit: 16 MiB ({@link #maxLineBytes()} reports it).
     *
     * @param json the SDK's mapper for what is written ({@code McpJsonDefaults.getMapper()}); never {@code null}
     * @param in the client's messages; never {@code null}
     * @param out where the answers go; never {@code null}; nothing else may write to it
     */
    public ToolYardStdioTransportProvider(McpJsonMapper json, InputStream in, OutputStream out) {
        this(json, in, out, DEFAULT_MAX_LINE_BYTES);
    }

    /**
     * @param json the SDK's mapper for what is written; never {@code null}
     * @param in the client's messages; never {@code null}
     * @param out where the answers go; never {@code null}; nothing else may write to it
     * @param maxLineBytes the longest line read whole, at least 1,024; a longer one is refused, not read
     * @throws IllegalArgumentException if {@code maxLineBytes} is below 1,024
     */
    public ToolYardStdioTransportProvider(McpJsonMapper json, InputStream in, OutputStream out, int maxLineBytes) {
        this.json = Objects.requireNonNull(json, "json");
        this.in = Objects.requireNonNull(in, "in");
        this.out = Objects.requireNonNull(out, "out");
        if (maxLineBytes < 1024) {
            throw new IllegalArgumentException("maxLineBytes must be at least 1024, got " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
    }

    /** @return the longest line this transport reads whole, in bytes: as configured, or the default 16 MiB */
    public int maxLineBytes() {
        return maxLineBytes;
    }

    /**
     * Waits until the input ended (the client closed it, or died) or {@link #close} was called.
     *
     * @param timeout how long to wait at most
     * @param unit its unit
     * @return whether it ended
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitInputEnd(long timeout, TimeUnit unit) throws InterruptedException {
        return inputEnded.await(timeout, unit);
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        Objects.requireNonNull(sessionFactory, "sessionFactory");
        if (session != null) {
            throw new IllegalStateException("a stdio transport serves one session");
        }
        session = sessionFactory.create(new SessionTransport());
        Thread reader = new Thread(null, this::readLines, "toolyard-mcp-stdin", READER_STACK_BYTES);
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        McpServerSession s = session;
        return s == null ? Mono.error(new IllegalStateException("no session to notify")) : s.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        McpServerSession s = session;
        return s == null ? Mono.empty() : s.closeGracefully();
    }

    @Override
    public void close() {
        McpServerSession s = session;
        if (s != null) {
            s.close();
        }
    }

    private void readLines() {
        try {
            LineReader lines = new LineReader(in, maxLineBytes);
            while (!closed.get()) {
                int n = lines.next();
                if (n == LineReader.END) {
                    break;
                }
                JsonRpcLines.Outcome outcome;
                try {
                    outcome = n == LineReader.OVERSIZED
                            ? JsonRpcLines.oversized(new SequenceInputStream(lines.heldBytes(), lines.restOfLine()), maxLineBytes)
                            : JsonRpcLines.read(lines.buffer(), n);
                } catch (RuntimeException | StackOverflowError e) {
                    // A line this reader has no answer for is still only one line: say so and read the next.
                    LOG.log(System.Logger.Level.WARNING, "a line could not be read: " + e.getClass().getName());
                    outcome = JsonRpcLines.error(null, McpSchema.ErrorCodes.INTERNAL_ERROR,
                            "Internal error: the server could not read this line");
                }
                dispatch(outcome);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "stdin ended with an error: " + e);
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(System.Logger.Level.ERROR, "the stdio reader failed; the session ends", e);
        } finally {
            closed.set(true);
            inputEnded.countDown();
            McpServerSession s = session;
            if (s != null) {
                s.close(); // ToolYard's session cancels the calls still running: nobody is left to read their answers
            }
        }
    }

    private void dispatch(JsonRpcLines.Outcome outcome) {
        if (outcome instanceof JsonRpcLines.Answer answer) {
            writeLine(answer.line());
            return;
        }
        JSONRPCMessage message = ((JsonRpcLines.Deliver) outcome).message();
        try {
            session.handle(message).subscribe(null, e -> LOG.log(System.Logger.Level.WARNING,
                    "the session failed to handle a message: " + e.getClass().getName()));
        } catch (RuntimeException e) {
            // The SDK's session threw before it answered: the client still gets an answer, with no exception text.
            LOG.log(System.Logger.Level.WARNING, "the session threw on a message", e);
            if (message instanceof McpSchema.JSONRPCRequest request) {
                write(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        McpSchema.ErrorCodes.INTERNAL_ERROR, ToolCalls.INTERNAL_ERROR_TEXT, null)));
            }
        }
    }

    private void write(JSONRPCMessage message) {
        String line;
        try {
            line = json.writeValueAsString(formRequestAsMap(message));
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "could not serialise an answer", e);
            return;
        }
        writeLine(line);
    }

    /**
     * The SDK 2.1.0's own mapper cannot write its {@code ElicitFormRequest} on Jackson 3.3 ("Conflict
     * between type id property 'mode' and bean property"), so an elicitation would never leave the
     * server; its params are written as the plain object the spec defines instead.
     */
    private static JSONRPCMessage formRequestAsMap(JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request && request.params() instanceof McpSchema.ElicitFormRequest f) {
            java.util.Map<String, Object> params = new java.util.LinkedHashMap<>();
            params.put("mode", McpSchema.ElicitFormRequest.MODE);
            params.put("message", f.message());
            params.put("requestedSchema", f.requestedSchema());
            if (f.meta() != null) {
                params.put("_meta", f.meta());
            }
            return new McpSchema.JSONRPCRequest(request.jsonrpc(), request.method(), request.id(), params);
        }
        return message;
    }

    /** Writes one line; the SDK's and Jackson's writers escape every newline inside a string as {@code \n}. */
    private void writeLine(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "stdout is closed; an answer was dropped: " + e);
            }
        }
    }

    private final class SessionTransport implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(JSONRPCMessage message) {
            return Mono.fromRunnable(() -> write(message));
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(this::close);
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    /** Lines of bytes with a bound: a longer line is reported, and its rest can be streamed, never held. */
    static final class LineReader {
        static final int END = -1;
        static final int OVERSIZED = -2;

        private final InputStream in;
        private final int max;
        private final byte[] chunk = new byte[64 * 1024];
        private int pos;
        private int lim;
        private byte[] line = new byte[8 * 1024];
        private int held;

        LineReader(InputStream in, int max) {
            this.in = in;
            this.max = max;
        }

        byte[] buffer() {
            return line;
        }

        /** @return the length of the next line in {@link #buffer}, {@link #END}, or {@link #OVERSIZED} */
        int next() throws IOException {
            held = 0;
            while (true) {
                int b = read();
                if (b < 0) {
                    return held == 0 ? END : strip(held);
                }
                if (b == '\n') {
                    return strip(held);
                }
                if (held == max) {
                    unread();
                    return OVERSIZED;
                }
                if (held == line.length) {
                    line = java.util.Arrays.copyOf(line, (int) Math.min(max, 2L * line.length));
                }
                line[held++] = (byte) b;
            }
        }

        private int strip(int n) {
            return n > 0 && line[n - 1] == '\r' ? n - 1 : n;
        }

        /** @return the bytes of an oversized line held so far */
        InputStream heldBytes() {
            return new java.io.ByteArrayInputStream(line, 0, held);
        }

        /** @return the rest of the current line up to its newline, which it consumes; end of input ends it too */
        InputStream restOfLine() {
            return new InputStream() {
                private boolean done;

                @Override
                public int read() throws IOException {
                    if (done) {
                        return -1;
                    }
                    int b = LineReader.this.read();
                    if (b < 0 || b == '\n') {
                        done = true;
                        return -1;
                    }
                    return b;
                }

                @Override
                public void close() throws IOException {
                    while (read() >= 0) {
                        // drains the line so the next one starts where it should
                    }
                }
            };
        }

        private int read() throws IOException {
            if (pos == lim) {
                lim = in.read(chunk, 0, chunk.length);
                pos = 0;
                if (lim <= 0) {
                    lim = 0;
                    return -1;
                }
            }
            return chunk[pos++] & 0xff;
        }

        private void unread() {
            pos--;
        }
    }
}
