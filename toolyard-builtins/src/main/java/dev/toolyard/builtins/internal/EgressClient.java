package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import javax.net.ssl.SSLException;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;

/**
 * One HTTP request, of any method, through exactly the egress checks of {@code http_fetch}: the URL is
 * checked by {@link FetchTargetCheck} (scheme, host allowlist, every spelling of a link-local address, the
 * resolver's answers), OkHttp connects only to the checked answers ({@link PinnedDns}, no proxy) and
 * the {@link CheckedAddressGuard} stops a connection that reached another address. Redirects are
 * <em>not</em> followed: a 3xx answer is returned as it is, for the caller to report. The body is read
 * up to the cap of the {@link FetchLimits} and refused whole past it.
 *
 * <p>This is how {@code dev.toolyard.contracts} sends a manifest's {@code [http]} request; public only
 * for that module, to which alone this package is exported. {@code http_fetch} itself is unchanged.
 * Thread-safe: one instance serves concurrent requests.
 */
public final class EgressClient {
    private static final int READ_CHUNK = 8192;

    private final FetchTargetCheck check;
    private final FetchLimits limits;
    private final PinnedClients clients;

    private EgressClient(HostAllowlist allowlist, Resolver resolver, FetchLimits limits, SocketFactory socketFactory) {
        this.check = new FetchTargetCheck(allowlist, resolver);
        this.limits = limits;
        this.clients = new PinnedClients(HttpFetch.client(limits, socketFactory, null));
    }

    /**
     * @param allowedHosts the host allowlist, as for {@code BuiltinTools.httpFetch}; empty means loopback only
     * @param resolver the resolver; never {@code null}
     * @param limits the caps; never {@code null}
     * @param socketFactory the factory of every socket; never {@code null}; plain sockets only
     * @return the client
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid, or if the
     *     factory is an {@code SSLSocketFactory}
     */
    public static EgressClient of(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(socketFactory, "socketFactory");
        if (socketFactory instanceof javax.net.ssl.SSLSocketFactory) {
            throw new IllegalArgumentException("socketFactory must create plain sockets, not an SSLSocketFactory");
        }
        return new EgressClient(HostAllowlist.of(allowedHosts), resolver, limits, socketFactory);
    }

    /**
     * What the server answered.
     *
     * @param status the HTTP status code
     * @param mediaType the media type before any {@code ;}, lower case; empty when the body is empty
     * @param body the body decoded as its charset (UTF-8 by default); never {@code null}
     * @param bytes the body's length in bytes
     */
    public record Answer(int status, String mediaType, String body, long bytes) {}

    /**
     * Sends one request. A body is sent only when {@code body} is not {@code null}.
     *
     * @param method the HTTP method, upper case
     * @param url the URL, already built from trusted parts and validated values
     * @param headers header names to values; never {@code null}
     * @param body the request body, or {@code null} for none
     * @param contentType the body's content type; used only with a body
     * @param deadlineNanos the {@link System#nanoTime()} by which the exchange must end
     * @return the answer, whatever its status (3xx included: redirects are never followed)
     * @throws FetchProblem with the egress check's reason, {@code too_large}, {@code content_type_not_allowed}
     *     or {@code transport_error}
     */
    public Answer send(String method, String url, Map<String, String> headers, String body, String contentType,
            long deadlineNanos) throws FetchProblem {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        FetchTargetCheck.Target target = check.check(url, resolved);
        OkHttpClient pinned = clients.pinnedTo(target.url().host(), target.addresses());
        Request.Builder request = new Request.Builder().url(target.url());
        for (Map.Entry<String, String> h : new LinkedHashMap<>(headers).entrySet()) {
            try {
                request.header(h.getKey(), h.getValue());
            } catch (IllegalArgumentException e) {
                throw new FetchProblem(Reason.MALFORMED_URL, "header '" + clip(h.getKey(), 64)
                        + "' has a character HTTP does not allow in a header");
            }
        }
        RequestBody requestBody = body == null ? null
                : RequestBody.create(body, MediaType.parse(contentType == null ? "application/json" : contentType));
        if (requestBody == null && (method.equals("POST") || method.equals("PUT") || method.equals("PATCH"))) {
            requestBody = RequestBody.create(new byte[0], null);
        }
        try {
            request.method(method, requestBody);
        } catch (IllegalArgumentException e) {
            throw new FetchProblem(Reason.MALFORMED_URL, "method " + clip(method, 16) + " cannot be sent this way");
        }
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            throw new FetchProblem(Reason.TRANSPORT_ERROR, "the request ran out of time");
        }
        Call call = pinned.newCall(request.build());
        call.timeout().timeout(remaining, TimeUnit.NANOSECONDS);
        try (Response response = call.execute()) {
            return read(response);
        } catch (IOException e) {
            throw transportError(e);
        }
    }

    private Answer read(Response response) throws FetchProblem, IOException {
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
        if (total == 0) {
            return new Answer(response.code(), "", "", 0);
        }
        ContentTypes.Accepted type = ContentTypes.check(response.headers("Content-Type"));
        return new Answer(response.code(), type.mediaType(), buffer.readString(type.charset()), total);
    }

    /** The detail names what failed, never an address: a refused connection must not map the network. */
    private static FetchProblem transportError(IOException e) {
        String what;
        if (e instanceof CheckedAddressGuard.UncheckedAddressException) {
            what = "the connection reached an address that was not checked, and was stopped before sending";
        } else if (e instanceof SocketTimeoutException) {
            what = "timed out connecting or reading";
        } else if (e instanceof InterruptedIOException) {
            what = "the request ran out of time or was interrupted";
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

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }

    @Override
    public String toString() {
        return "EgressClient[" + limits + "]";
    }
}
