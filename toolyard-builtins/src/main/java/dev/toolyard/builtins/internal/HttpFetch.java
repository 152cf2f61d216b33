package dev.toolyard.builtins.internal;

import dev.toolyard.EgressClass;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.Tool;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import javax.net.ssl.SSLException;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.CookieJar;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;

/**
 * The {@code http_fetch} tool: GET one URL from an allowlisted host and return its body as text.
 *
 * <p>Before any socket: {@link EgressCheck} checks the URL (scheme, host, allowlist, every spelling of
 * a link-local address) and the resolver's answers. OkHttp then connects only to those answers: its
 * {@code Dns} is a {@link PinnedDns} that returns exactly them, there is no proxy, automatic redirects
 * are off, and a {@link CheckedAddressGuard} stops any request whose connection reached another
 * address. Redirects are followed here, each hop checked in full (same scheme and host, within the
 * cap, no loops), with the answers checked for the first hop: the name is asked once per fetch. The
 * response must be 2xx with an allowed content type ({@link ContentTypes}), and its body is refused
 * whole when it declares or streams more than the cap.
 *
 * <p>Public only because {@code dev.toolyard.builtins.BuiltinTools} builds it; this package is not
 * exported. Thread-safe: one instance serves concurrent calls.
 */
public final class HttpFetch implements ToolHandler {
    /** The tool's name. */
    public static final String NAME = "http_fetch";

    static final ToolSpec SPEC = ToolSpec.builder(NAME)
            .description("Fetch one web page or JSON document with an HTTP GET and return the response body as"
                    + " text. Only http and https URLs on hosts the application allows can be fetched; redirects"
                    + " are followed only on the same host and scheme; the response must be text or JSON.")
            .argsSchema("""
                    {"type":"object",
                     "properties":{"url":{"type":"string","minLength":1,"maxLength":2048,
                       "description":"The absolute http:// or https:// URL to fetch, without a fragment."}},
                     "required":["url"],
                     "additionalProperties":false}""")
            .riskClass(RiskClass.READ_ONLY)
            .egress(EgressClass.ALLOWLISTED)
            .cooperative(true) // its call timeout is the deadline
            .build();

    private static final String ACCEPT = "text/*, application/json, application/*+json";
    private static final String USER_AGENT = "ToolYard-http_fetch";
    private static final int READ_CHUNK = 8192;

    private final EgressCheck check;
    private final FetchLimits limits;
    private final OkHttpClient client;

    private HttpFetch(HostAllowlist allowlist, Resolver resolver, FetchLimits limits, SocketFactory socketFactory) {
        this.check = new EgressCheck(allowlist, resolver);
        this.limits = limits;
        this.client = new OkHttpClient.Builder()
                .proxy(Proxy.NO_PROXY)
                .dns(PinnedDns.REFUSE_ALL)
                .socketFactory(socketFactory)
                .followRedirects(false)
                .followSslRedirects(false)
                .retryOnConnectionFailure(false)
                .cookieJar(CookieJar.NO_COOKIES)
                .cache(null)
                .connectionPool(new ConnectionPool(5, 1, TimeUnit.MINUTES))
                .connectTimeout(limits.connectTimeout())
                .readTimeout(limits.readTimeout())
                .writeTimeout(limits.readTimeout())
                .callTimeout(limits.callTimeout())
                .build();
    }

    /**
     * Builds the tool. See {@code BuiltinTools.httpFetch} for the contract.
     *
     * @param allowedHosts the allowlist; never {@code null}; may be empty (loopback only)
     * @param resolver the resolver; never {@code null}
     * @param limits the caps; never {@code null}
     * @param socketFactory the factory of every socket; never {@code null}
     * @return the tool
     * @throws NullPointerException if an argument or an allowlist entry is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static Tool tool(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        Objects.requireNonNull(allowedHosts, "allowedHosts");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(socketFactory, "socketFactory");
        if (socketFactory instanceof javax.net.ssl.SSLSocketFactory) {
            throw new IllegalArgumentException("socketFactory must create plain sockets, not an SSLSocketFactory");
        }
        HostAllowlist allowlist = HostAllowlist.of(allowedHosts);
        return new Tool(SPEC, new HttpFetch(allowlist, resolver, limits, socketFactory));
    }

    @Override
    public ToolOutput handle(ToolArgs args, ToolContext context) {
        long budget = Math.min(limits.callTimeout().toNanos(), context.timeout().toNanos());
        long deadline = System.nanoTime() + budget;
        try {
            return fetch(args.string("url"), deadline);
        } catch (FetchProblem problem) {
            return problem.toOutput();
        }
    }

    private ToolOutput fetch(String raw, long deadline) throws FetchProblem {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        EgressCheck.Target target = check.check(raw, resolved);
        OkHttpClient pinned = client.newBuilder()
                .dns(new PinnedDns(target.url().host(), target.addresses()))
                .addNetworkInterceptor(new CheckedAddressGuard(target.addresses()))
                .build();
        Set<HttpUrl> visited = new HashSet<>();
        visited.add(target.url());
        HttpUrl url = target.url();
        int redirects = 0;
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new FetchProblem(Reason.TRANSPORT_ERROR, "the fetch ran out of time");
            }
            Call call = pinned.newCall(new Request.Builder()
                    .url(url)
                    .header("Accept", ACCEPT)
                    .header("User-Agent", USER_AGENT)
                    .build());
            call.timeout().timeout(remaining, TimeUnit.NANOSECONDS);
            try (Response response = call.execute()) {
                int code = response.code();
                if (isRedirect(code)) {
                    if (redirects == limits.maxRedirects()) {
                        throw new FetchProblem(Reason.TOO_MANY_REDIRECTS,
                                "more than " + limits.maxRedirects() + " redirects");
                    }
                    EgressCheck.Target next = check.redirect(url, response.header("Location"), resolved);
                    if (!next.addresses().equals(target.addresses())) {
                        // Unreachable while redirects keep the host; kept so a later change cannot widen egress.
                        throw new FetchProblem(Reason.CROSS_HOST_REDIRECT, "the redirect leads to other addresses");
                    }
                    if (!visited.add(next.url())) {
                        throw new FetchProblem(Reason.TOO_MANY_REDIRECTS, "the redirects loop");
                    }
                    redirects++;
                    url = next.url();
                    continue;
                }
                return read(url, response, redirects);
            } catch (IOException e) {
                throw transportError(e);
            }
        }
    }

    private ToolOutput read(HttpUrl url, Response response, int redirects) throws FetchProblem, IOException {
        int code = response.code();
        if (code < 200 || code > 299) {
            throw new FetchProblem(Reason.HTTP_STATUS, "the server answered HTTP " + code);
        }
        ContentTypes.Accepted type = ContentTypes.check(response.headers("Content-Type"));
        ResponseBody body = response.body();
        long max = limits.maxBodyBytes();
        long declared = body.contentLength();
        if (declared > max) {
            throw new FetchProblem(Reason.TOO_LARGE,
                    "the body declares " + declared + " bytes, over the cap of " + max + " bytes");
        }
        Buffer buffer = new Buffer();
        BufferedSource source = body.source();
        long total = 0;
        while (true) {
            long n = source.read(buffer, READ_CHUNK);
            if (n == -1) {
                break;
            }
            total += n;
            if (total > max) {
                throw new FetchProblem(Reason.TOO_LARGE, "the body is over the cap of " + max + " bytes");
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("interrupted while reading the body");
            }
        }
        String text = buffer.readString(type.charset());
        String summary = "GET " + clip(url.toString()) + " -> " + code + " " + type.mediaType() + ", " + total
                + " bytes" + (redirects == 0 ? "" : ", after " + redirects + (redirects == 1 ? " redirect" : " redirects"));
        return ToolOutput.of(text, summary);
    }

    private static boolean isRedirect(int code) {
        return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
    }

    /** The detail names what failed, never an address: a refused connection must not map the network. */
    private static FetchProblem transportError(IOException e) {
        String what;
        if (e instanceof CheckedAddressGuard.UncheckedAddressException) {
            what = "the connection reached an address that was not checked, and was stopped before sending";
        } else if (e instanceof SocketTimeoutException) {
            what = "timed out connecting or reading";
        } else if (e instanceof InterruptedIOException) {
            what = "the fetch ran out of time or was interrupted";
        } else if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            what = "could not connect";
        } else if (e instanceof UnknownHostException) {
            what = "the host did not resolve";
        } else if (e instanceof SSLException) {
            what = "the TLS handshake or certificate check failed";
        } else {
            what = "the connection failed";
        }
        return new FetchProblem(Reason.TRANSPORT_ERROR, what + " (" + e.getClass().getSimpleName() + ")");
    }

    private static String clip(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    @Override
    public String toString() {
        return "HttpFetch[" + limits + "]";
    }
}
