package dev.toolyard.benchmarks;

import dev.toolyard.EgressClass;
import dev.toolyard.HandlerMode;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.CookieJar;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The http_fetch rows: {@code http_fetch} of a 1 KiB and a 1 MiB {@code text/plain} body from a real
 * HTTP server on 127.0.0.1 ({@link LoopbackHttpServer}), run through a real {@link ToolExecutor}, beside
 * a plain OkHttp GET of the same URL in the same run. The target is a ratio of at most 1.2.
 *
 * <p>Average time in microseconds, 8 warm-up and 5 measured iterations of 1 s: the tool's path runs
 * through much more code (the executor, Jackson, networknt, the egress checks) and at a few thousand
 * calls a second it needs about 7 s before its figure stops falling. About 15 s per method and size,
 * one minute for the class. Two forks minutes apart on a busy host can disagree by more than the
 * target's margin: {@link #main} measures both sides alternately in one JVM.
 *
 * <p><b>The figure</b> is the whole {@code execute}: parse and validate the arguments, the egress
 * ceiling, the tool's own egress checks (URL, allowlist, the resolver's answers), the fetch, and the
 * executor's capping, digest and record. {@link HandlerMode#CALLER_THREAD}, so the 20 to 40 µs of a
 * worker handoff is not in it; the store is the suite's {@link DrainedInMemoryStore}. The content cap
 * is raised to {@value #CONTENT_CAP_BYTES} bytes so the 1 MiB body comes back whole (the set-up checks
 * it is not truncated): what is measured is a fetch the model sees in full, not the cost of cutting it.
 *
 * <p><b>The baseline</b> is one {@link OkHttpClient} built as the tool builds its own: no proxy,
 * redirects not followed, no retry on connection failure, no cookies, no cache, a pool of 5 idle
 * connections kept 1 minute, and the tool's timeouts from {@link FetchLimits#defaults()}: connect 5 s,
 * read and write 30 s, and as the whole-call timeout the tool's effective deadline, the shorter of
 * its 60 s and the invocation's 30 s. (With 60 s the 30-s read timeout would be the earliest one
 * okio's watchdog holds, and every socket read would wake that thread: a cost the tool does not pay.)
 * Each call builds its {@link Request} from the URL string, as the tool does with the model's, with
 * the tool's {@code Accept} and {@code User-Agent} headers (the server sees the same request bytes),
 * and decodes the body with {@code ResponseBody.string()} (the charset of the {@code Content-Type}, as
 * the tool does).
 *
 * <p><b>Connections are reused on both sides.</b> The tool keeps one client per host and checked answers
 * (built from its own with {@code newBuilder()}, which shares the connection pool), and its
 * {@code PinnedDns} is a record: two fetches of the same host with the same checked answers have equal
 * OkHttp {@code Address}es, so the second takes the first's pooled connection. The set-up proves it for both
 * clients (three calls, one connect) and the tear-down prints the connects against the requests served.
 *
 * <p><b>Network safety.</b> The host name is {@value #HOST}; the {@link Resolver} answers only that
 * name, only with 127.0.0.1, and both clients (the tool and the baseline) open every socket through
 * {@link LoopbackOnlySockets}, which refuses any connect that is not to loopback and the server's port.
 * The tool's allowlist is {@value #HOST} and {@code 127.0.0.1}: under the egress policy a name reaching
 * a loopback address is fetched only when that address is allowlisted as well.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
public class HttpFetchBenchmark {
    static final String HOST = "fetch.bench.example";
    static final int CONTENT_CAP_BYTES = 2 << 20;
    /** The tool's request headers (private in {@code HttpFetch}), sent by the baseline too. */
    private static final String ACCEPT = "text/*, application/json, application/*+json";
    private static final String USER_AGENT = "ToolYard-http_fetch";
    private static final int REUSE_PROBE_CALLS = 3;

    @Param({"1024", "1048576"})
    public int bodyBytes;

    private Path root;
    private LoopbackHttpServer server;
    private LoopbackOnlySockets toolSockets;
    private LoopbackOnlySockets plainSockets;
    private String expected;
    private ToolExecutor executor;
    private ToolContext context;
    private ToolCallRequest request;
    private OkHttpClient plain;
    private String url;

    /** Answers {@value #HOST} with 127.0.0.1 and refuses every other name. */
    static final Resolver LOOPBACK_ONLY = host -> {
        if (!HOST.equals(host)) {
            throw new UnknownHostException("the benchmark resolver answers only " + HOST);
        }
        return List.of(InetAddress.getByAddress(HOST, new byte[] {127, 0, 0, 1}));
    };

    @Setup(Level.Trial)
    public void setUp() {
        byte[] body = body(bodyBytes);
        expected = new String(body, StandardCharsets.UTF_8);
        server = LoopbackHttpServer.start(body);
        url = "http://" + HOST + ":" + server.port() + LoopbackHttpServer.PATH;
        FetchLimits limits = FetchLimits.defaults();

        toolSockets = LoopbackOnlySockets.onPorts(server.port());
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.httpFetch(List.of(HOST, "127.0.0.1"), LOOPBACK_ONLY, limits, toolSockets));
        executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("http_fetch"))
                .store(new DrainedInMemoryStore())
                .handlerMode(HandlerMode.CALLER_THREAD)
                .maxContentBytes(CONTENT_CAP_BYTES)
                .build();
        root = Workspace.create();
        context = ToolContext.builder("bench", SandboxPaths.of(root)).egressCeiling(EgressClass.ALLOWLISTED).build();
        // The tool's deadline is the shorter of its call timeout and the invocation's (30 s by default).
        Duration callTimeout = limits.callTimeout().compareTo(context.timeout()) < 0 ? limits.callTimeout() : context.timeout();
        request = ToolCallRequest.of("http_fetch", "{\"url\":\"" + url + "\"}");

        plainSockets = LoopbackOnlySockets.onPorts(server.port());
        plain = new OkHttpClient.Builder()
                .proxy(Proxy.NO_PROXY)
                .dns(LOOPBACK_ONLY::resolve)
                .socketFactory(plainSockets)
                .followRedirects(false)
                .followSslRedirects(false)
                .retryOnConnectionFailure(false)
                .cookieJar(CookieJar.NO_COOKIES)
                .cache(null)
                .connectionPool(new ConnectionPool(5, 1, TimeUnit.MINUTES))
                .connectTimeout(limits.connectTimeout())
                .readTimeout(limits.readTimeout())
                .writeTimeout(limits.readTimeout())
                .callTimeout(callTimeout)
                .build();

        for (int i = 0; i < REUSE_PROBE_CALLS; i++) {
            checkTool(httpFetch());
            checkPlain(plainOkHttp());
        }
        requireReuse("http_fetch", toolSockets);
        requireReuse("the plain OkHttp client", plainSockets);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            System.err.printf(Locale.ROOT, "HttpFetchBenchmark (%,d B): %,d bodies served; connects: http_fetch %d,"
                    + " plain OkHttp %d%n", bodyBytes, server.served(), toolSockets.connects(), plainSockets.connects());
            plain.connectionPool().evictAll();
            plain.dispatcher().executorService().shutdown();
            server.close();
        } finally {
            Workspace.delete(root);
        }
    }

    /** The figure: the whole {@code execute} of {@code http_fetch}, on the caller's thread. */
    @Benchmark
    public ToolResult httpFetch() {
        return executor.execute(request, context);
    }

    /**
     * The baseline: a plain OkHttp GET of the same URL, given as the same string (so it is parsed per
     * call, as the tool parses the model's), its body decoded to a {@code String}.
     */
    @Benchmark
    public String plainOkHttp() {
        Request get = new Request.Builder().url(url).header("Accept", ACCEPT).header("User-Agent", USER_AGENT).build();
        try (Response response = plain.newCall(get).execute()) {
            if (response.code() != 200) {
                throw new IllegalStateException("the loopback server answered HTTP " + response.code());
            }
            return response.body().string();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Refuses to measure anything but the whole body, untruncated: a fast wrong answer is no figure. */
    private void checkTool(ToolResult result) {
        NoteCallState.expect(result, ToolStatus.OK, null);
        if (result.truncated() || !expected.equals(result.content())) {
            throw new IllegalStateException("http_fetch did not return the whole body: truncated=" + result.truncated()
                    + ", " + result.content().length() + " of " + expected.length() + " characters");
        }
    }

    private void checkPlain(String body) {
        if (!expected.equals(body)) {
            throw new IllegalStateException("the plain GET did not return the body: " + body.length() + " characters");
        }
    }

    private static void requireReuse(String who, LoopbackOnlySockets sockets) {
        if (sockets.connects() != 1) {
            throw new IllegalStateException(who + " opened " + sockets.connects() + " connections for "
                    + REUSE_PROBE_CALLS + " fetches of one URL: the comparison assumes both reuse one keep-alive"
                    + " connection");
        }
    }

    /**
     * A paired check of the rows' ratios, for when two JMH forks run at different moments of a busy
     * host disagree: {@code java -cp benchmarks/target/benchmarks.jar dev.toolyard.benchmarks.HttpFetchBenchmark
     * --paired N [BODY_BYTES...]} runs, for each body size (default 1024 and 1048576), N warm-up pairs
     * and then N measured pairs of one {@code http_fetch} and one plain GET, alternating which goes
     * first, in one JVM, and prints both means and medians, their paired difference with its error, and
     * the ratio.
     *
     * @param args {@code --paired N}, then optionally the body sizes
     */
    public static void main(String[] args) {
        if (args.length < 2 || !args[0].equals("--paired")) {
            System.err.println("usage: HttpFetchBenchmark --paired N [BODY_BYTES...]");
            System.exit(2);
        }
        int n = Integer.parseInt(args[1]);
        List<String> sizes = args.length > 2 ? List.of(args).subList(2, args.length) : List.of("1024", "1048576");
        for (String size : sizes) {
            HttpFetchBenchmark b = new HttpFetchBenchmark();
            b.bodyBytes = Integer.parseInt(size);
            b.setUp();
            try {
                paired(b, n);
            } finally {
                b.tearDown();
            }
        }
    }

    private static void paired(HttpFetchBenchmark b, int n) {
        double[] tool = new double[n];
        double[] plain = new double[n];
        for (int i = -n; i < n; i++) {
            long t0 = System.nanoTime();
            if ((i & 1) == 0) {
                b.httpFetch();
            } else {
                b.plainOkHttp();
            }
            long t1 = System.nanoTime();
            if ((i & 1) == 0) {
                b.plainOkHttp();
            } else {
                b.httpFetch();
            }
            long t2 = System.nanoTime();
            if (i >= 0) {
                tool[i] = ((i & 1) == 0 ? t1 - t0 : t2 - t1) / 1e3;
                plain[i] = ((i & 1) == 0 ? t2 - t1 : t1 - t0) / 1e3;
            }
        }
        double[] diff = new double[n];
        for (int i = 0; i < n; i++) {
            diff[i] = tool[i] - plain[i];
        }
        double meanTool = Stats.mean(tool);
        double meanPlain = Stats.mean(plain);
        double meanDiff = Stats.mean(diff);
        double halfWidth = 3.29 * Stats.sd(diff, meanDiff) / Math.sqrt(n); // 99.9%, normal approximation
        System.out.printf(Locale.ROOT, "paired, %,d B body, %d pairs after %d warm-up pairs, alternating:%n"
                        + "  http_fetch          mean %.1f us, median %.1f us%n"
                        + "  plain OkHttp        mean %.1f us, median %.1f us%n"
                        + "  http_fetch - plain  %.1f ± %.1f us (99.9%%): ratio of means %.3f, of medians %.3f%n",
                b.bodyBytes, n, n, meanTool, Stats.median(tool), meanPlain, Stats.median(plain), meanDiff, halfWidth,
                meanTool / meanPlain, Stats.median(tool) / Stats.median(plain));
    }




    /** ASCII text lines of exactly {@code size} bytes, as a page of plain text would be. */
    static byte[] body(int size) {
        byte[] line = "The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.\n"
                .getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++) {
            body[i] = line[i % line.length];
        }
        return body;
    }
}
