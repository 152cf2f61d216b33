package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.BuiltinTools;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.testing.LoopbackOnlySockets;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Throws arbitrary URLs at {@code http_fetch} through the executor and checks, for every input, that
 * nothing left the allowlist: every connect went to 127.0.0.1 (the only address an allowlisted name
 * resolves to and passes with), the resolver was only ever asked about allowlisted names, every
 * request the server saw named an allowlisted host, and the call ended as a value, never as a handler
 * error. The server answers {@code /redirect/<percent-encoded location>} with that redirect, so inputs
 * drive redirect hops too. The text {@code PORT} in an input is replaced by the server's port.
 *
 * <p>In the normal build Jazzer runs in regression mode: the empty input plus every seed under
 * {@code HttpFetchFuzzTestInputs/<method>/}; {@link #everySeedWasExecuted} proves they ran. The
 * build's second Surefire run sets {@code JAZZER_FUZZ=1} and fuzzes this test for {@code maxDuration}.
 */
class HttpFetchFuzzTest {
    private static final List<String> ALLOWED = List.of("docs.example", "localhost", "127.0.0.1",
            "private.example", "linklocal.example");
    private static final Set<String> ASKABLE = Set.of("docs.example", "localhost", "private.example",
            "linklocal.example");
    private static final Set<String> REQUEST_HOSTS = Set.of("docs.example", "localhost", "127.0.0.1");
    private static final AtomicInteger EXECUTED = new AtomicInteger();

    private static MockWebServer server;
    private static InetAddress loopback;
    private static LoopbackOnlySockets sockets;
    private static ScriptedResolver resolver;
    private static ToolExecutor executor;
    private static ToolContext context;
    private static Path workspace;

    @BeforeAll
    static void start() throws Exception {
        loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String target = request.getTarget();
                if (target.startsWith("/redirect/")) {
                    String location = URLDecoder.decode(target.substring("/redirect/".length()), StandardCharsets.UTF_8)
                            .replace("PORT", Integer.toString(server.getPort()))
                            .replace("\r", "")
                            .replace("\n", "");
                    return new MockResponse.Builder().code(302).addHeaderLenient("Location", location).build();
                }
                return new MockResponse.Builder().addHeader("Content-Type", "text/plain").body("ok").build();
            }
        });
        server.start(loopback, 0);
        sockets = LoopbackOnlySockets.only(new InetSocketAddress(loopback, server.getPort()));
        resolver = new ScriptedResolver()
                .answer("docs.example", "127.0.0.1")
                .answer("localhost", "127.0.0.1")
                .answer("private.example", "10.0.0.1")
                .answer("linklocal.example", "127.0.0.1", "169.254.169.254");
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.httpFetch(ALLOWED, resolver,
                FetchLimits.builder().connectTimeout(Duration.ofSeconds(1)).readTimeout(Duration.ofSeconds(1)).build(),
                sockets));
        executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(HttpFetch.NAME))
                .store(new InMemoryToolCallStore())
                .build();
        workspace = Files.createTempDirectory("http-fetch-fuzz");
        context = ToolContext.builder("fuzz", SandboxPaths.of(workspace))
                .egressCeiling(EgressClass.ALLOWLISTED)
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        Files.deleteIfExists(workspace);
    }

    @FuzzTest(maxDuration = "20s")
    @DictionaryEntries({"PORT", "http://", "https://", "docs.example", "localhost", "127.0.0.1", ":PORT/",
            "private.example", "linklocal.example", "169.254.169.254", "0xA9FEA9FE", "2852039166", "[::ffff:",
            "[fe80::", "%25", "%2e", "@", "#", "\\", "/redirect/", "http%3A%2F%2F", "..", "0x", "[::1]"})
    void arbitraryUrlsNeverReachAnAddressOutsideTheAllowlist(byte[] input) throws Exception {
        EXECUTED.incrementAndGet();
        String url = new String(input, StandardCharsets.UTF_8).replace("PORT", Integer.toString(server.getPort()));
        int attemptsBefore = sockets.attempts().size();
        ToolResult result = executor.execute(ToolCallRequest.of(HttpFetch.NAME, Map.of("url", url)), context);

        assertThat(result.reason()).as("the handler never throws").isNotEqualTo(java.util.Optional.of(Reason.HANDLER_ERROR));
        assertThat(result.status()).as("a fetch ends before the deadline").isNotEqualTo(ToolStatus.TIMEOUT);
        List<InetSocketAddress> attempts = sockets.attempts();
        for (InetSocketAddress attempt : attempts.subList(attemptsBefore, attempts.size())) {
            assertThat(attempt.getAddress()).as("connect for %s", url).isEqualTo(loopback);
        }
        assertThat(resolver.questions()).as("names asked about").allMatch(ASKABLE::contains);
        RecordedRequest seen;
        while ((seen = server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
            String host = seen.getHeaders().get("Host");
            if (host == null) {
                continue; // not HTTP: a TLS handshake sent to this plain-HTTP server, say
            }
            assertThat(host.substring(0, host.lastIndexOf(':'))).as("Host header for %s", url).isIn(REQUEST_HOSTS);
        }
        if (result.isOk()) {
            assertThat(result.content()).isEqualTo("ok");
        }
    }

    /** Regression mode runs the empty input and every seed; fuzzing mode runs more. */
    @AfterAll
    static void everySeedWasExecuted() throws Exception {
        long seeds;
        try (Stream<Path> files = Files.list(seedDirectory())) {
            seeds = files.filter(Files::isRegularFile).count();
        }
        assertThat(seeds).as("seed files").isGreaterThanOrEqualTo(50);
        assertThat(EXECUTED.get()).as("inputs executed").isGreaterThanOrEqualTo((int) seeds + 1);
    }

    private static Path seedDirectory() throws URISyntaxException {
        return Path.of(HttpFetchFuzzTest.class.getResource(
                "HttpFetchFuzzTestInputs/arbitraryUrlsNeverReachAnAddressOutsideTheAllowlist").toURI());
    }
}
