package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRecord;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code http_fetch} through the real executor against a real HTTP server on loopback. Every refusal
 * asserts its reason and how many requests the server saw (zero where the check comes before the
 * socket). Every client uses {@link LoopbackOnlySockets} limited to the server's port, and the
 * scripted resolver never touches the network.
 */
class HttpFetchTest {
    private static final String ALLOWED = "docs.example";
    private static final byte[] LOCALHOST = {127, 0, 0, 1};

    @TempDir
    Path workspace;

    private MockWebServer server;
    private int port;
    private ScriptedResolver resolver;
    private LoopbackOnlySockets sockets;
    private InMemoryToolCallStore store;
    private MockWebServer tlsServer;
    private HttpFetch.TestTrust trust;

    @BeforeEach
    void startServer() throws Exception {
        server = new MockWebServer();
        server.start(InetAddress.getByAddress(LOCALHOST), 0);
        port = server.getPort();
        resolver = new ScriptedResolver().answer(ALLOWED, "127.0.0.1").answer("localhost", "127.0.0.1");
        sockets = LoopbackOnlySockets.onPorts(port);
        store = new InMemoryToolCallStore();
    }

    @AfterEach
    void stopServer() {
        server.close();
        if (tlsServer != null) {
            tlsServer.close();
        }
    }

    /**
     * Starts a TLS server on loopback holding a certificate for docs.example from a CA made here, and
     * widens the test socket factory to its port. Only {@link #tlsTool} trusts that CA.
     */
    private int startTlsServer() throws Exception {
        HeldCertificate ca = new HeldCertificate.Builder().certificateAuthority(0).commonName("test CA").build();
        HeldCertificate cert = new HeldCertificate.Builder().signedBy(ca).addSubjectAlternativeName(ALLOWED).build();
        HandshakeCertificates serverSide = new HandshakeCertificates.Builder().heldCertificate(cert, ca.certificate())
                .build();
        HandshakeCertificates clientSide = new HandshakeCertificates.Builder().addTrustedCertificate(ca.certificate())
                .build();
        trust = new HttpFetch.TestTrust(clientSide.sslSocketFactory(), clientSide.trustManager());
        tlsServer = new MockWebServer();
        tlsServer.useHttps(serverSide.sslSocketFactory());
        tlsServer.start(InetAddress.getByAddress(LOCALHOST), 0);
        sockets = LoopbackOnlySockets.onPorts(port, tlsServer.getPort());
        return tlsServer.getPort();
    }

    private Tool tlsTool(FetchLimits limits) {
        return HttpFetch.tool(List.of(ALLOWED, "127.0.0.1"), resolver, limits, sockets, trust);
    }

    // ---- what is fetched -------------------------------------------------------------------------

    @Test
    void aTextPageOnAnAllowlistedNameIsFetchedFromTheCheckedAddress() throws Exception {
        server.enqueue(text("text/plain", "hello"));
        ToolResult r = fetch(defaultTool(), "http://docs.example:" + port + "/notes?x=1");
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("hello");
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getTarget()).isEqualTo("/notes?x=1");
        assertThat(request.getHeaders().get("Host")).isEqualTo("docs.example:" + port);
        assertThat(request.getMethod()).isEqualTo("GET");
        assertThat(resolver.questions()).containsExactly(ALLOWED);
        assertThat(sockets.attempts()).isNotEmpty().allSatisfy(a -> assertThat(a).isEqualTo(serverAddress()));
        ToolCallRecord record = store.records().get(0);
        assertThat(record.status()).isEqualTo(ToolStatus.OK);
        assertThat(record.summary()).startsWith("GET http://docs.example:" + port + "/notes?x=1 -> 200 text/plain");
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/html", "TEXT/HTML; Charset=UTF-8", "text/csv", "application/json",
            "Application/JSON;charset=utf-8", "application/problem+json", "application/vnd.api+json ; x=y"})
    void textAndJsonContentTypesAreReturned(String contentType) throws Exception {
        server.enqueue(text(contentType, "{\"a\":1}"));
        ToolResult r = fetch(defaultTool(), url("/"));
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("{\"a\":1}");
    }

    @Test
    void aKnownCharsetParameterIsHonouredAndAnUnknownOneFallsBackToUtf8() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain; charset=\"ISO-8859-1\"")
                .body(new Buffer().write("café".getBytes(StandardCharsets.ISO_8859_1))).build());
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain; charset=x-no-such")
                .body(new Buffer().write("café".getBytes(StandardCharsets.UTF_8))).build());
        Tool tool = defaultTool();
        assertThat(fetch(tool, url("/latin")).content()).isEqualTo("café");
        assertThat(fetch(tool, url("/utf8")).content()).isEqualTo("café");
    }

    @Test
    void anUppercaseSpellingOfAnAllowlistedNameIsThatName() throws Exception {
        server.enqueue(text("text/plain", "ok"));
        server.enqueue(text("text/plain", "ok"));
        Tool tool = defaultTool();
        assertThat(fetch(tool, "HTTP://DOCS.Example:" + port + "/").status()).isEqualTo(ToolStatus.OK);
        // Full-width letters map to ASCII under IDNA: the host connected to and sent is docs.example.
        assertThat(fetch(tool, "http://\uff44\uff4f\uff43\uff53.example:" + port + "/").status()).isEqualTo(ToolStatus.OK);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Host")).isEqualTo("docs.example:" + port);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Host")).isEqualTo("docs.example:" + port);
        assertThat(resolver.questions()).containsExactly(ALLOWED, ALLOWED);
    }

    @Test
    void anInternationalisedNameMatchesItsEntryInEitherSpelling() throws Exception {
        resolver.answer("xn--bcher-kva.example", "127.0.0.1");
        Tool tool = tool(List.of("bücher.example", "127.0.0.1"), FetchLimits.defaults());
        server.enqueue(text("text/plain", "unicode"));
        server.enqueue(text("text/plain", "punycode"));
        assertThat(fetch(tool, "http://bücher.example:" + port + "/").content()).isEqualTo("unicode");
        assertThat(fetch(tool, "http://xn--bcher-kva.example:" + port + "/").content()).isEqualTo("punycode");
        assertThat(fetch(tool, "http://bucher.example:" + port + "/").reason()).contains(Reason.HOST_NOT_ALLOWED);
        assertThat(server.getRequestCount()).isEqualTo(2);
    }

    @Test
    void anEmptyAllowlistAdmitsLoopbackOnly() throws Exception {
        Tool tool = tool(List.of(), FetchLimits.defaults());
        server.enqueue(text("text/plain", "by address"));
        server.enqueue(text("text/plain", "by localhost"));
        assertThat(fetch(tool, "http://127.0.0.1:" + port + "/").content()).isEqualTo("by address");
        assertThat(fetch(tool, "http://localhost:" + port + "/").content()).isEqualTo("by localhost");
        assertRefused(fetch(tool, "http://docs.example:" + port + "/"), Reason.HOST_NOT_ALLOWED, 2);
        assertRefused(fetch(tool, "http://10.0.0.1:" + port + "/"), Reason.HOST_NOT_ALLOWED, 2);
        assertThat(resolver.questions()).containsExactly("localhost");
    }

    @Test
    void aNameReachesAPrivateAddressOnlyWhenThatAddressIsAllowlistedToo() throws Exception {
        Tool withoutAddress = tool(List.of(ALLOWED), FetchLimits.defaults());
        assertRefused(fetch(withoutAddress, url("/")), Reason.HOST_NOT_ALLOWED, 0);
        resolver.answer("intranet.example", "10.1.2.3");
        Tool intranet = tool(List.of("intranet.example"), FetchLimits.defaults());
        assertRefused(fetch(intranet, "http://intranet.example/"), Reason.HOST_NOT_ALLOWED, 0);
        server.enqueue(text("text/plain", "allowed"));
        assertThat(fetch(defaultTool(), url("/")).content()).isEqualTo("allowed");
        assertThat(sockets.attempts()).containsOnly(serverAddress());
    }

    @Test
    void localhostMustResolveToLoopbackOnly() throws Exception {
        ScriptedResolver lying = new ScriptedResolver().answer("localhost", "127.0.0.1", "10.0.0.1");
        Tool tool = BuiltinTools.httpFetch(List.of("localhost"), lying, FetchLimits.defaults(), sockets);
        assertRefused(fetch(tool, "http://localhost:" + port + "/"), Reason.HOST_NOT_ALLOWED, 0);
        ScriptedResolver publicAnswer = new ScriptedResolver().answer("localhost", "93.184.216.34");
        Tool tool2 = BuiltinTools.httpFetch(List.of("localhost"), publicAnswer, FetchLimits.defaults(), sockets);
        assertRefused(fetch(tool2, "http://localhost:" + port + "/"), Reason.HOST_NOT_ALLOWED, 0);
        assertThat(sockets.attempts()).isEmpty();
    }

    // ---- the URL: refused before any socket -------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"file:///etc/passwd", "ftp://docs.example/x", "gopher://docs.example:70/_x",
            "jar:http://docs.example/x.jar!/a", "data:text/plain,hi", "javascript:alert(1)", "dict://docs.example/",
            "ldap://docs.example/", "ws://docs.example/", "FILE:/etc/passwd", "netdoc:/etc/passwd"})
    void schemesOtherThanHttpAndHttpsAreRefused(String url) throws Exception {
        assertRefused(fetch(defaultTool(), url), Reason.SCHEME_NOT_ALLOWED, 0);
        assertThat(resolver.questions()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://", "https://", "http:", "http://:80/", "http:///", "http://@/", "http://?x",
            "http://user@/"})
    void aUrlWithNoHostIsRefused(String url) throws Exception {
        assertRefused(fetch(defaultTool(), url), Reason.NO_HOST, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "docs.example/x", "//docs.example/x", "/x",
        "http://docs.example\\@evil.example/", "http://evil.example\\docs.example/", "http:\\\\docs.example\\x",
        "http://docs.example@evil.example/", "http://evil.example@docs.example/", "http://u:p@docs.example/",
        "http://docs.example:1@evil.example/", "http://%64ocs.example/", "http://docs%2eexample/",
        "http://docs.example%00/", "http://docs.example%2f@evil.example/",
        "http://docs.example/a b", "http://docs.example/a\tb", "http://docs.example/\n", "http://docs.example/\u202e",
        "http://docs.example/\u200b", "http://docs.example/\u0000", " http://docs.example/", "http://docs.example/\u00a0",
        "http://docs.example:99999/", "http://docs.example:0/", "http://docs.example:x/",
        "http://169.254.169.254:80@docs.example/"})
    void urlsThatParsersReadDifferentlyAreRefusedAsMalformed(String url) throws Exception {
        ToolResult r = fetch(defaultTool(), url);
        assertRefused(r, Reason.MALFORMED_URL, 0);
        assertThat(resolver.questions()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example/", "http://EVIL.example/", "http://docs.example.:PORT/",
            "http://DOCS.EXAMPLE.:PORT/", "http://docs.example.evil/", "http://evildocs.example/",
            "http://sub.docs.example/", "http://d\u043ecs.example/",
            "http://\uff45\uff56\uff49\uff4c.example/", "http://localhost:PORT/", "http://127.0.0.2:PORT/",
            "http://[::1]:PORT/", "http://0.0.0.0:PORT/", "http://[::]:PORT/", "http://0:PORT/", "http://127.1:PORT/",
            "http://0x7f.1:PORT/", "http://2130706433:PORT/", "http://017700000001:PORT/", "http://127.0.0.1.:PORT/",
            "http://10.0.0.1/", "http://172.16.0.1/", "http://192.168.1.1/", "http://100.64.0.1/",
            "http://100.100.100.200/", "http://[fc00::1]/", "http://[fd00:ec2::254]/", "http://224.0.0.1/",
            "http://255.255.255.255/", "http://[ff02::1]/", "http://1.2.3.4.5/", "http://8.8.8.8/",
            "http://[::ffff:127.0.0.2]:PORT/", "http://[::ffff:10.0.0.1]/", "http://foo.123/"})
    void hostsOffTheAllowlistAreRefusedWithoutAskingTheResolver(String template) throws Exception {
        String url = template.replace("PORT", Integer.toString(port));
        ToolResult r = fetch(defaultTool(), url);
        assertRefused(r, Reason.HOST_NOT_ALLOWED, 0);
        assertThat(resolver.questions()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example/", "http://10.0.0.1/", "http://2130706433/", "http://[::1]/",
            "http://localhost/", "http://169.254.169.254/", "ftp://evil.example/", "http://evil.example/#x"})
    void refusalsNeverRevealTheAllowlist(String url) throws Exception {
        ToolResult r = fetch(defaultTool(), url);
        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.content() + r.reasonDetail()).doesNotContain("docs").doesNotContain("127.0.0.1");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "http://169.254.169.254/latest/meta-data/", "http://169.254.169.254:PORT/", "https://169.254.169.254/",
        "http://2852039166/", "http://0xA9FEA9FE/", "http://0xa9.0xfe.0xa9.0xfe/", "http://0251.0376.0251.0376/",
        "http://0251.254.169.254/", "http://169.254.43518/", "http://169.16689662/", "http://169.0xfe.0xa9fe/",
        "http://0x0A9FEA9FE/", "http://7147006462/", "http://169.254.169.254./", "http://2852039166./",
        "http://%31%36%39.254.169.254/", "http://169%2e254%2e169%2e254/",
        "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
        "http://[::169.254.169.254]/", "http://[::a9fe:a9fe]/", "http://[::ffff:0:169.254.169.254]/",
        "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b::169.254.169.254]/", "http://[2002:a9fe:a9fe::1]/",
        "http://[fe80::1]/", "http://[FE80::1]:PORT/", "http://[fe80::a9fe:a9fe%25eth0]/", "http://[fe80::1%eth0]/",
        "http://[fe80::1%251]/", "http://[febf:ffff::1]/", "http://[fe80:0:0:0:0:0:0:1]/",
        "http://169.254.0.1/", "http://169.254.255.255/", "http://user@169.254.169.254/",
        "http://docs.example@169.254.169.254/"})
    void linkLocalAddressesAreRefusedInEverySpelling(String template) throws Exception {
        String url = template.replace("PORT", Integer.toString(port));
        assertRefused(fetch(defaultTool(), url), Reason.LINK_LOCAL_ADDRESS, 0);
        assertThat(resolver.questions()).isEmpty();
        assertThat(sockets.attempts()).isEmpty();
    }

    @Test
    void aUrlOverTheLengthCapIsRefusedByTheSchema() throws Exception {
        String url = "http://docs.example:" + port + "/" + "a".repeat(2048);
        assertRefused(fetch(defaultTool(), url), Reason.ARGS_INVALID, 0);
    }

    @Test
    void theExecutorsEgressCeilingIsHonouredBeforeTheTool() throws Exception {
        ToolResult r = executor(defaultTool()).execute(ToolCallRequest.of("http_fetch", Map.of("url", url("/"))),
                ToolContext.of("inv-none", SandboxPaths.of(workspace)));
        assertRefused(r, Reason.EGRESS_NOT_PERMITTED, 0);
    }

    // ---- what the name resolves to ---------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
            "::169.254.169.254", "2002:a9fe:a9fe::1"})
    void aNameWithOneLinkLocalAnswerAmongSeveralIsRefused(String linkLocal) throws Exception {
        ScriptedResolver mixed = new ScriptedResolver().answer(ALLOWED, "127.0.0.1", linkLocal);
        assertRefused(fetch(tool(mixed), url("/")), Reason.LINK_LOCAL_ADDRESS, 0);
        ScriptedResolver first = new ScriptedResolver().answer(ALLOWED, linkLocal, "127.0.0.1");
        assertRefused(fetch(tool(first), url("/")), Reason.LINK_LOCAL_ADDRESS, 0);
        assertThat(sockets.attempts()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "0.1.2.3", "::", "224.0.0.1", "239.255.255.250", "255.255.255.255",
            "240.0.0.1", "ff02::1", "10.0.0.1", "172.31.255.255", "192.168.0.1", "100.64.0.1", "fd00:ec2::254",
            "::ffff:10.0.0.1", "127.0.0.2", "::1"})
    void aNameResolvingToAnAddressNeverFetchedThroughANameIsRefused(String answer) throws Exception {
        ScriptedResolver r = new ScriptedResolver().answer(ALLOWED, "127.0.0.1", answer);
        assertRefused(fetch(tool(r), url("/")), Reason.HOST_NOT_ALLOWED, 0);
        assertThat(sockets.attempts()).isEmpty();
    }

    @Test
    void aNameThatDoesNotResolveFailsWithATransportError() throws Exception {
        ScriptedResolver none = new ScriptedResolver();
        ToolResult r = fetch(tool(none), url("/"));
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.TRANSPORT_ERROR);
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void dnsRebindingWithinOneFetchConnectsOnlyToTheFirstCheckedAnswer() throws Exception {
        ScriptedResolver rebinding = new ScriptedResolver().answer(ALLOWED, "127.0.0.1")
                .answer(ALLOWED, "169.254.169.254");
        server.enqueue(redirect(302, "/next"));
        server.enqueue(text("text/plain", "second hop"));
        ToolResult r = fetch(tool(rebinding), url("/first"));
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("second hop");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(rebinding.questions()).containsExactly(ALLOWED);
        assertThat(sockets.attempts()).isNotEmpty().containsOnly(serverAddress());
        // The next fetch asks again, gets the rebound answer, and is refused before any socket.
        int attempts = sockets.attempts().size();
        assertRefused(fetch(tool(rebinding), url("/third")), Reason.LINK_LOCAL_ADDRESS, 2);
        assertThat(sockets.attempts()).hasSize(attempts);
    }

    @Test
    void aPooledConnectionIsNeverReusedForDifferentCheckedAnswers() throws Exception {
        // Both answers are loopback and allowlisted, so both fetches pass the checks; only the first
        // address has a server. Reusing the first fetch's pooled connection would reach it again.
        ScriptedResolver rebinding = new ScriptedResolver().answer(ALLOWED, "127.0.0.1")
                .answer(ALLOWED, "127.0.0.2");
        Tool tool = BuiltinTools.httpFetch(List.of(ALLOWED, "127.0.0.1", "127.0.0.2"), rebinding,
                FetchLimits.defaults(), sockets);
        server.enqueue(text("text/plain", "first"));
        server.enqueue(text("text/plain", "must not be served"));
        assertThat(fetch(tool, url("/")).content()).isEqualTo("first");
        ToolResult second = fetch(tool, url("/"));
        assertThat(second.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(second.reason()).contains(Reason.TRANSPORT_ERROR);
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(sockets.attempts()).last().isEqualTo(new InetSocketAddress(
                InetAddress.getByAddress(new byte[] {127, 0, 0, 2}), port));
    }

    @Test
    void aPooledConnectionIsReusedForTheSameCheckedAnswers() throws Exception {
        server.enqueue(text("text/plain", "one"));
        server.enqueue(text("text/plain", "two"));
        Tool tool = defaultTool();
        fetch(tool, url("/1"));
        fetch(tool, url("/2"));
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getConnectionIndex()).isZero();
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getConnectionIndex()).isZero();
        assertThat(sockets.attempts()).hasSize(1);
    }

    // ---- redirects ---------------------------------------------------------------------------------

    @Test
    void aRedirectOnTheSameHostIsFollowedWithoutItsFragment() throws Exception {
        server.enqueue(redirect(301, "/b?q=1#section"));
        server.enqueue(text("text/plain", "moved here"));
        ToolResult r = fetch(defaultTool(), url("/a"));
        assertThat(r.content()).isEqualTo("moved here");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/a");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/b?q=1");
        assertThat(store.records().get(0).summary()).endsWith("after 1 redirect");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example/", "http://127.0.0.1:PORT/", "http://localhost:PORT/",
            "http://169.254.169.254/latest/meta-data/", "//evil.example/x", "http://docs.example.:PORT/",
            "http://[::1]:PORT/"})
    void aRedirectToAnotherHostIsRefusedEvenWhenThatHostIsAllowlisted(String location) throws Exception {
        server.enqueue(redirect(302, location.replace("PORT", Integer.toString(port))));
        assertRefused(fetch(defaultTool(), url("/")), Reason.CROSS_HOST_REDIRECT, 1);
    }

    @Test
    void aRedirectToASchemeOtherThanHttpOrHttpsIsRefused() throws Exception {
        server.enqueue(redirect(308, "ftp://docs.example/"));
        assertRefused(fetch(defaultTool(), url("/")), Reason.SCHEME_NOT_ALLOWED, 1);
        server.enqueue(redirect(303, "file:///etc/passwd"));
        assertRefused(fetch(defaultTool(), url("/")), Reason.SCHEME_NOT_ALLOWED, 2);
    }

    // ---- http -> https on the same host, against a TLS server on loopback ---------------------------

    @Test
    void aSameHostRedirectFromHttpToHttpsIsFollowedOverTlsFromTheCheckedAddress() throws Exception {
        int tlsPort = startTlsServer();
        server.enqueue(redirect(301, "https://docs.example:" + tlsPort + "/secure?x=1#top"));
        tlsServer.enqueue(text("text/plain", "over tls"));
        ToolResult r = fetch(tlsTool(FetchLimits.defaults()), url("/plain"));
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("over tls");
        RecordedRequest overTls = tlsServer.takeRequest(5, TimeUnit.SECONDS);
        assertThat(overTls.getHandshake()).as("the second hop was TLS").isNotNull();
        assertThat(overTls.getTarget()).isEqualTo("/secure?x=1");
        assertThat(overTls.getUrl().host() + ":" + overTls.getUrl().port()).isEqualTo("docs.example:" + tlsPort);
        assertThat(overTls.getHandshakeServerNames()).as("SNI").containsExactly(ALLOWED);
        assertThat(resolver.questions()).containsExactly(ALLOWED);
        assertThat(sockets.attempts()).isNotEmpty().allSatisfy(a -> assertThat(a.getAddress())
                .isEqualTo(InetAddress.getByAddress(LOCALHOST)));
        assertThat(store.records().get(0).summary())
                .startsWith("GET https://docs.example:" + tlsPort + "/secure?x=1 -> 200 text/plain")
                .endsWith("after 1 redirect");
    }

    @Test
    void theUpgradeToHttpsCountsAgainstTheRedirectCap() throws Exception {
        int tlsPort = startTlsServer();
        server.enqueue(redirect(302, "https://docs.example:" + tlsPort + "/"));
        assertRefused(fetch(tlsTool(FetchLimits.builder().maxRedirects(0).build()), url("/")),
                Reason.TOO_MANY_REDIRECTS, 1);
        server.enqueue(redirect(302, "https://docs.example:" + tlsPort + "/"));
        tlsServer.enqueue(redirect(302, "/again"));
        assertRefused(fetch(tlsTool(FetchLimits.builder().maxRedirects(1).build()), url("/")),
                Reason.TOO_MANY_REDIRECTS, 2);
        assertThat(tlsServer.getRequestCount()).isEqualTo(1);
    }

    @Test
    void theUpgradedHopIsCheckedInFullLikeEveryHop() throws Exception {
        int tlsPort = startTlsServer();
        server.enqueue(redirect(302, "https://user@docs.example:" + tlsPort + "/"));
        assertRefused(fetch(tlsTool(FetchLimits.defaults()), url("/")), Reason.MALFORMED_URL, 1);
        server.enqueue(redirect(302, "https://localhost:" + tlsPort + "/"));
        ToolResult otherHost = fetch(tlsTool(FetchLimits.defaults()), url("/"));
        assertRefused(otherHost, Reason.CROSS_HOST_REDIRECT, 2);
        assertThat(otherHost.reasonDetail()).contains("another host");
        assertThat(tlsServer.getRequestCount()).isZero();
    }

    @Test
    void aRedirectFromHttpsDownToHttpIsRefusedWithADetailNamingTheDowngrade() throws Exception {
        int tlsPort = startTlsServer();
        tlsServer.enqueue(redirect(301, "http://docs.example:" + port + "/"));
        ToolResult r = fetch(tlsTool(FetchLimits.defaults()), "https://docs.example:" + tlsPort + "/");
        assertThat(r.reason()).as(r.reasonDetail()).contains(Reason.CROSS_HOST_REDIRECT);
        assertThat(r.reasonDetail()).isEqualTo("the server redirected from https to http on the same host; the only"
                + " change of scheme a redirect may make is the upgrade from http to https");
        assertThat(tlsServer.getRequestCount()).isEqualTo(1);
        assertThat(server.getRequestCount()).as("the plain server is never reached").isZero();
    }

    // ---- fragments -----------------------------------------------------------------------------------

    @Test
    void aFragmentIsDroppedNeverSentAndTheSummarySaysSo() throws Exception {
        server.enqueue(text("text/plain", "section"));
        server.enqueue(text("text/plain", "root"));
        Tool tool = defaultTool();
        ToolResult r = fetch(tool, url("/page?x=1#section-2.1"));
        assertThat(r.status()).as(r.reasonDetail()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("section");
        assertThat(fetch(tool, "http://docs.example:" + port + "#").content()).isEqualTo("root");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/page?x=1");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/");
        assertThat(store.records()).extracting(ToolCallRecord::summary).allSatisfy(summary -> assertThat(summary)
                .endsWith("; the URL's #fragment was dropped (a fragment is never sent)").doesNotContain("section-2"));
        server.enqueue(text("text/plain", "plain"));
        fetch(tool, url("/no-fragment"));
        assertThat(store.records().get(2).summary()).doesNotContain("#fragment");
    }

    @Test
    void aFragmentCannotHideTheHostThatIsConnectedTo() throws Exception {
        // Everything from the first '#' is the fragment for OkHttp: the host is the one before it.
        assertRefused(fetch(defaultTool(), "http://evil.example#@docs.example/"), Reason.HOST_NOT_ALLOWED, 0);
        assertThat(resolver.questions()).isEmpty();
        server.enqueue(text("text/plain", "docs"));
        ToolResult r = fetch(defaultTool(), "http://docs.example:" + port + "#@evil.example/");
        assertThat(r.content()).isEqualTo("docs");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Host")).isEqualTo("docs.example:" + port);
        assertThat(resolver.questions()).containsExactly(ALLOWED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://docs.example/#\u200b", "http://docs.example/#a b", "http://docs.example/#\\x"})
    void aFragmentIsStillCheckedForCharactersParsersReadDifferently(String url) throws Exception {
        assertRefused(fetch(defaultTool(), url), Reason.MALFORMED_URL, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/\\evil.example/", "\\\\evil.example\\x", "http://docs.example:PORT/\u0001",
            "http://user@docs.example:PORT/"})
    void aRedirectThatParsersReadDifferentlyIsRefused(String location) throws Exception {
        server.enqueue(redirect(302, location.replace("PORT", Integer.toString(port))));
        assertRefused(fetch(defaultTool(), url("/")), Reason.MALFORMED_URL, 1);
    }

    @Test
    void aRedirectLoopIsRefused() throws Exception {
        server.enqueue(redirect(302, "/a"));
        assertRefused(fetch(defaultTool(), url("/a")), Reason.TOO_MANY_REDIRECTS, 1);
        server.enqueue(redirect(302, "/c"));
        server.enqueue(redirect(302, "/b"));
        assertRefused(fetch(defaultTool(), url("/b")), Reason.TOO_MANY_REDIRECTS, 3);
    }

    @Test
    void redirectsAreFollowedUpToTheCapAndRefusedPastIt() throws Exception {
        for (int i = 1; i <= 3; i++) {
            server.enqueue(redirect(302, "/" + i));
        }
        server.enqueue(text("text/plain", "after three"));
        assertThat(fetch(defaultTool(), url("/0")).content()).isEqualTo("after three");
        assertThat(server.getRequestCount()).isEqualTo(4);
        for (int i = 1; i <= 4; i++) {
            server.enqueue(redirect(302, "/again" + i));
        }
        assertRefused(fetch(defaultTool(), url("/again0")), Reason.TOO_MANY_REDIRECTS, 8);
    }

    @Test
    void aCapOfZeroRedirectsRefusesTheFirst() throws Exception {
        server.enqueue(redirect(301, "/b"));
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"), FetchLimits.builder().maxRedirects(0).build());
        assertRefused(fetch(tool, url("/a")), Reason.TOO_MANY_REDIRECTS, 1);
    }

    @Test
    void aRedirectWithoutALocationFailsWithItsStatus() throws Exception {
        server.enqueue(new MockResponse.Builder().code(302).build());
        ToolResult r = fetch(defaultTool(), url("/"));
        assertThat(r.reason()).contains(Reason.HTTP_STATUS);
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    // ---- the response ------------------------------------------------------------------------------

    @Test
    void aDeclaredLengthOverTheCapIsRefusedBeforeTheBodyIsRead() throws Exception {
        // The body is shorter than declared: reading it would end in a transport error, not too_large.
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain").body("short")
                .setHeader("Content-Length", 10_000_000).build());
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"), FetchLimits.builder().maxBodyBytes(1024).build());
        assertRefused(fetch(tool, url("/")), Reason.TOO_LARGE, 1);
    }

    @Test
    void aStreamedBodyOverTheCapIsRefusedWhileReading() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain")
                .chunkedBody("x".repeat(1025), 100).build());
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain")
                .chunkedBody("y".repeat(1024), 100).build());
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"), FetchLimits.builder().maxBodyBytes(1024).build());
        assertRefused(fetch(tool, url("/big")), Reason.TOO_LARGE, 1);
        assertThat(fetch(tool, url("/exact")).content()).isEqualTo("y".repeat(1024));
    }

    @Test
    void theDefaultCapIsEightMebibytes() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain")
                .body("x").setHeader("Content-Length", 8L * 1024 * 1024 + 1).build());
        assertRefused(fetch(defaultTool(), url("/")), Reason.TOO_LARGE, 1);
    }

    @Test
    void aMissingContentTypeIsRefused() throws Exception {
        server.enqueue(new MockResponse.Builder().removeHeader("Content-Type").body("no type").build());
        assertRefused(fetch(defaultTool(), url("/")), Reason.CONTENT_TYPE_NOT_ALLOWED, 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"image/png", "application/octet-stream", "application/xml", "application/jsonp",
            "application/json+evil", "text", "text/", "/json", "multipart/form-data", "application/x-sh",
            "json", ";charset=utf-8", "application/javascript"})
    void aContentTypeOffTheAllowlistIsRefused(String contentType) throws Exception {
        server.enqueue(text(contentType, "body"));
        assertRefused(fetch(defaultTool(), url("/")), Reason.CONTENT_TYPE_NOT_ALLOWED, 1);
    }

    @Test
    void severalDifferentContentTypesAreRefused() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain")
                .addHeader("Content-Type", "image/png").body("x").build());
        assertRefused(fetch(defaultTool(), url("/")), Reason.CONTENT_TYPE_NOT_ALLOWED, 1);
    }

    @ParameterizedTest
    @ValueSource(ints = {404, 500, 304, 300, 401, 418})
    void aNon2xxStatusFails(int code) throws Exception {
        server.enqueue(new MockResponse.Builder().code(code).addHeader("Content-Type", "text/plain").build());
        ToolResult r = fetch(defaultTool(), url("/"));
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.HTTP_STATUS);
        assertThat(r.reasonDetail()).contains(Integer.toString(code));
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    // ---- the transport -----------------------------------------------------------------------------

    @Test
    void aConnectionRefusedIsATransportError() throws Exception {
        server.close();
        ToolResult r = fetch(defaultTool(), url("/"));
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.TRANSPORT_ERROR);
        assertThat(r.reasonDetail()).doesNotContain("127.0.0.1");
    }

    @Test
    void aServerSlowerThanTheReadTimeoutIsATransportError() throws Exception {
        server.enqueue(text("text/plain", "late").newBuilder().headersDelay(3, TimeUnit.SECONDS).build());
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"),
                FetchLimits.builder().readTimeout(Duration.ofMillis(200)).build());
        ToolResult r = fetch(tool, url("/"));
        assertThat(r.reason()).contains(Reason.TRANSPORT_ERROR);
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void theCallTimeoutBoundsTheWholeFetch() throws Exception {
        server.enqueue(redirect(302, "/slow"));
        server.enqueue(text("text/plain", "late").newBuilder().bodyDelay(3, TimeUnit.SECONDS).build());
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"),
                FetchLimits.builder().callTimeout(Duration.ofMillis(300)).build());
        ToolResult r = fetch(tool, url("/"));
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.TRANSPORT_ERROR);
    }

    @Test
    void localhostWithBothLoopbackAnswersReachesTheOneThatListens() throws Exception {
        ScriptedResolver dualStack = new ScriptedResolver().answer("localhost", "::1", "127.0.0.1");
        Tool tool = BuiltinTools.httpFetch(List.of("localhost"), dualStack, FetchLimits.defaults(), sockets);
        server.enqueue(text("text/plain", "over IPv4"));
        assertThat(fetch(tool, "http://localhost:" + port + "/").content()).isEqualTo("over IPv4");
        assertThat(sockets.attempts()).allSatisfy(a -> assertThat(LoopbackOnlySockets.isLoopback(a.getAddress())).isTrue());
    }

    @Test
    void concurrentFetchesThroughOneToolAreIndependent() throws Exception {
        Tool tool = defaultTool();
        ToolExecutor executor = executor(tool);
        int calls = 16;
        for (int i = 0; i < calls; i++) {
            server.enqueue(text("text/plain", "same"));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<ToolResult>> results = new java.util.ArrayList<>();
            for (int i = 0; i < calls; i++) {
                int n = i;
                results.add(pool.submit(() -> executor.execute(
                        ToolCallRequest.of(HttpFetch.NAME, Map.of("url", url("/" + n))), context())));
            }
            for (java.util.concurrent.Future<ToolResult> f : results) {
                assertThat(f.get(30, TimeUnit.SECONDS).content()).isEqualTo("same");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(server.getRequestCount()).isEqualTo(calls);
        assertThat(resolver.questions()).hasSize(calls).containsOnly(ALLOWED);
    }

    @Test
    void aResolverThatThrowsIsTheApplicationsBugAndAHandlerError() throws Exception {
        dev.toolyard.builtins.Resolver broken = host -> {
            throw new IllegalStateException("resolver bug");
        };
        Tool tool = BuiltinTools.httpFetch(List.of(ALLOWED), broken, FetchLimits.defaults(), sockets);
        ToolResult r = fetch(tool, url("/"));
        assertThat(r.reason()).contains(Reason.HANDLER_ERROR);
        assertThat(r.reasonDetail()).isEqualTo(IllegalStateException.class.getName());
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void httpsToAServerThatSpeaksPlainHttpIsATransportError() throws Exception {
        // The server waits for a request line that never ends; the read timeout ends the handshake.
        Tool tool = tool(List.of(ALLOWED, "127.0.0.1"),
                FetchLimits.builder().readTimeout(Duration.ofMillis(500)).build());
        ToolResult r = fetch(tool, "https://docs.example:" + port + "/");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.TRANSPORT_ERROR);
        assertThat(sockets.attempts()).containsOnly(serverAddress());
    }

    @Test
    void everyCallIsRecordedWithItsReason() throws Exception {
        server.enqueue(text("text/plain", "ok"));
        Tool tool = defaultTool();
        fetch(tool, url("/"));
        fetch(tool, "http://169.254.169.254/");
        fetch(tool, "file:///etc/passwd");
        assertThat(store.records()).extracting(ToolCallRecord::status)
                .containsExactly(ToolStatus.OK, ToolStatus.REFUSED, ToolStatus.REFUSED);
        assertThat(store.records()).extracting(ToolCallRecord::reason).containsExactly(
                java.util.Optional.empty(), java.util.Optional.of(Reason.LINK_LOCAL_ADDRESS),
                java.util.Optional.of(Reason.SCHEME_NOT_ALLOWED));
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private Tool defaultTool() {
        return tool(List.of(ALLOWED, "127.0.0.1"), FetchLimits.defaults());
    }

    private Tool tool(ScriptedResolver r) {
        return BuiltinTools.httpFetch(List.of(ALLOWED, "127.0.0.1"), r, FetchLimits.defaults(), sockets);
    }

    private Tool tool(List<String> hosts, FetchLimits limits) {
        return BuiltinTools.httpFetch(hosts, resolver, limits, sockets);
    }

    private ToolExecutor executor(Tool tool) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        return ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(HttpFetch.NAME))
                .store(store)
                .build();
    }

    private ToolResult fetch(Tool tool, String url) {
        return executor(tool).execute(ToolCallRequest.of(HttpFetch.NAME, Map.of("url", url)), context());
    }

    private ToolContext context() {
        return ToolContext.builder("inv-http", SandboxPaths.of(workspace))
                .egressCeiling(EgressClass.ALLOWLISTED)
                .timeout(Duration.ofSeconds(20))
                .build();
    }

    private void assertRefused(ToolResult r, Reason reason, int requestsSeen) {
        assertThat(r.reason()).as(r.reasonDetail()).contains(reason);
        assertThat(r.status()).isEqualTo(reason.status());
        assertThat(server.getRequestCount()).as("requests the server saw").isEqualTo(requestsSeen);
        ToolCallRecord last = store.records().get(store.records().size() - 1);
        assertThat(last.reason()).contains(reason);
    }

    private String url(String path) {
        return "http://docs.example:" + port + path;
    }

    private InetSocketAddress serverAddress() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(LOCALHOST), port);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static MockResponse text(String contentType, String body) {
        return new MockResponse.Builder().addHeader("Content-Type", contentType).body(body).build();
    }

    private static MockResponse redirect(int code, String location) {
        return new MockResponse.Builder().code(code).addHeaderLenient("Location", location).build();
    }
}
