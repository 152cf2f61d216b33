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
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
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
 * <p>Before any socket: {@link FetchTargetCheck} checks the URL (scheme, host, allowlist, every spelling of
 * a link-local address) and the resolver's answers. OkHttp then connects only to those answers: its
 * {@code Dns} is a {@link PinnedDns} that returns exactly them, there is no proxy, automatic redirects
 * are off, and a {@link CheckedAddressGuard} stops any request whose connection reached another
 * address. A URL's fragment is dropped before the checks (it is never sent) and the record's summary
 * says so. Redirects are followed here, each hop checked in full (same host, the same scheme or the
 * upgrade from http to https, within the cap, no loops), with the answers checked for the first hop:
 * the name is asked once per fetch. The response must be 2xx with an allowed content type
 * ({@link ContentTypes}), and its body is refused whole when it declares or streams more than the cap.
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
                    + " are followed only on the same host, keeping the scheme or upgrading http to https; the"
                    + " response must be text or JSON.")
            .argsSchema("""
                    {"type":"object",
                     "properties":{"url":{"type":"string","minLength":1,"maxLength":2048,
                       "description":"The absolute http:// or https:// URL to fetch. A #fragment is dropped: it is never sent."}},
                     "required":["url"],
                     "additionalProperties":false}""")
            .riskClass(RiskClass.READ_ONLY)
            .egress(EgressClass.ALLOWLISTED)
            .cooperative(true) // its call timeout is the deadline
            .build();

    private static final String ACCEPT = "text/*, application/json, application/*+json";
    private static final String USER_AGENT = "ToolYard-http_fetch";
    private static final int READ_CHUNK = 8192;

    private final FetchTargetCheck check;
    private final FetchLimits limits;
    private final PinnedClients clients;

    private HttpFetch(HostAllowlist allowlist, Resolver resolver, FetchLimits limits, SocketFactory socketFactory,
            TestTrust testTrust) {
        this.check = new FetchTargetCheck(allowlist, resolver);
        this.limits = limits;
        this.clients = new PinnedClients(client(limits, socketFactory, testTrust));
    }

    /**
     * The one client configuration every egress request uses ({@code http_fetch} and
     * {@link EgressClient}): no proxy, no resolver of its own (each request pins the checked answers),
     * every socket from {@code socketFactory}, no redirect followed, no retry, no cookies, no cache,
     * and the limits' timeouts.
     *
     * @param testTrust a test's trust instead of the JVM's default CAs; {@code null} for the default
     */
    static OkHttpClient client(FetchLimits limits, SocketFactory socketFactory, TestTrust testTrust) {
        OkHttpClient.Builder builder = new OkHttpClient.Builder();
        if (testTrust != null) {
            builder.sslSocketFactory(testTrust.sslSocketFactory(), testTrust.trustManager());
        }
        return builder
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
        return tool(allowedHosts, resolver, limits, socketFactory, null);
    }

    /**
     * The trust a test's client uses instead of the JVM's: a TLS server on loopback holds a certificate
     * from a test CA. Only tests in this package can pass one; every tool an application builds trusts
     * the JVM's default CAs.
     */
    record TestTrust(SSLSocketFactory sslSocketFactory, X509TrustManager trustManager) {}

    /** As {@link #tool(List, Resolver, FetchLimits, SocketFactory)}, trusting {@code testTrust} when not null. */
    static Tool tool(List<String> allowedHosts, Resolver resolver, FetchLimits limits, SocketFactory socketFactory,
            TestTrust testTrust) {
        Objects.requireNonNull(allowedHosts, "allowedHosts");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(socketFactory, "socketFactory");
        if (socketFactory instanceof SSLSocketFactory) {
            throw new IllegalArgumentException("socketFactory must create plain sockets, not an SSLSocketFactory");
        }
        HostAllowlist allowlist = HostAllowlist.of(allowedHosts);
        return new Tool(SPEC, new HttpFetch(allowlist, resolver, limits, socketFactory, testTrust));
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
        FetchTargetCheck.Target target = check.check(raw, resolved);
        boolean fragmentDropped = raw.indexOf('#') >= 0;
        OkHttpClient pinned = clients.pinnedTo(target.url().host(), target.addresses());
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
                    FetchTargetCheck.Target next = check.redirect(url, response.header("Location"), resolved);
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
                return read(url, response, redirects, fragmentDropped);
            } catch (IOException e) {
                throw transportError(e);
            }
        }
    }

    private ToolOutput read(HttpUrl url, Response response, int redirects, boolean fragmentDropped)
            throws FetchProblem, IOException {
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
                + " bytes" + (redirects == 0 ? "" : ", after " + redirects + (redirects == 1 ? " redirect" : " redirects"))
                + (fragmentDropped ? "; the URL's #fragment was dropped (a fragment is never sent)" : "");
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
