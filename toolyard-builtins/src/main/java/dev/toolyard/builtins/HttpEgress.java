package dev.toolyard.builtins;

import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import dev.toolyard.builtins.internal.EgressClient;
import dev.toolyard.builtins.internal.FetchProblem;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.SocketFactory;

/**
 * Where a tool other than {@code http_fetch} may send an HTTP request (a ToolClad {@code [http]}
 * contract binds one): the same allowlist, resolver, caps and socket factory
 * {@link BuiltinTools#httpFetch} takes, checked by the same code before any socket opens. Redirects are
 * never followed. Nothing has a default: the application names each. Immutable. Thread-safe: one
 * instance serves concurrent requests.
 */
public final class HttpEgress {
    private final EgressClient client;

    private HttpEgress(EgressClient client) {
        this.client = client;
    }

    /**
     * @param allowedHosts host names and IP literals the request may reach; empty means loopback only
     * @param resolver the application's resolver; never {@code null}
     * @param limits body cap and timeouts; never {@code null}
     * @param socketFactory the factory of every socket; never {@code null}; plain sockets only
     * @return the egress
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static HttpEgress of(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        return new HttpEgress(EgressClient.of(allowedHosts, resolver, limits, socketFactory));
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
     * Why a request was not answered: a refusal by the egress checks or a failure, with its reason and
     * the detail the model may read. Carries no stack trace: it is an outcome, not a bug.
     */
    public static final class Stopped extends Exception {
        private static final long serialVersionUID = 1L;

        private final transient ToolOutput output;
        private final transient Reason reason;

        Stopped(FetchProblem problem) {
            super(problem.detail(), null, false, false);
            this.output = problem.toOutput();
            this.reason = problem.reason();
        }

        /** @return the reason; never {@code null} */
        public Reason reason() {
            return reason;
        }

        /** @return the refusal or failure as a handler's output; never {@code null} */
        public ToolOutput toOutput() {
            return output;
        }
    }

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
     * @throws Stopped with the egress check's reason, {@code too_large}, {@code content_type_not_allowed}
     *     or {@code transport_error}
     */
    public Answer send(String method, String url, Map<String, String> headers, String body, String contentType,
            long deadlineNanos) throws Stopped {
        Objects.requireNonNull(headers, "headers");
        try {
            EgressClient.Answer a = client.send(method, url, headers, body, contentType, deadlineNanos);
            return new Answer(a.status(), a.mediaType(), a.body(), a.bytes());
        } catch (FetchProblem problem) {
            throw new Stopped(problem);
        }
    }

    @Override
    public String toString() {
        return "HttpEgress[" + client + "]";
    }
}
