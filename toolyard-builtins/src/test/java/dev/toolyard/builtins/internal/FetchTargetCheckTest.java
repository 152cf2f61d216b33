package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The checks alone, without a socket. {@link HttpFetchTest} drives them through a real server. */
class FetchTargetCheckTest {
    private final ScriptedResolver resolver = new ScriptedResolver()
            .answer("docs.example", "93.184.216.34")
            .answer("docs.example", "169.254.169.254");
    private final FetchTargetCheck check = new FetchTargetCheck(HostAllowlist.of(List.of("docs.example", "10.0.0.5")), resolver);

    @Test
    void aNameIsResolvedOncePerFetchAndItsCheckedAnswersAreReused() throws Exception {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        FetchTargetCheck.Target first = check.check("https://docs.example/a", resolved);
        FetchTargetCheck.Target second = check.check("https://docs.example/b", resolved);
        assertThat(first.addresses()).containsExactly(ScriptedResolver.address("93.184.216.34"));
        assertThat(second.addresses()).isEqualTo(first.addresses());
        assertThat(resolver.questions()).containsExactly("docs.example");
    }

    @Test
    void aLiteralIsItsOwnOnlyAddressAndIsNeverResolved() throws Exception {
        FetchTargetCheck.Target t = check.check("http://10.0.0.5:8080/x", new HashMap<>());
        assertThat(t.addresses()).containsExactly(ScriptedResolver.address("10.0.0.5"));
        assertThat(t.url().port()).isEqualTo(8080);
        assertThat(resolver.questions()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "/b|https://docs.example/b", "b?x=1|https://docs.example/dir/b?x=1", "../c#frag|https://docs.example/c",
        "https://docs.example:8443/d|https://docs.example:8443/d", "//docs.example/e|https://docs.example/e"})
    void aRedirectOnTheSameSchemeAndHostIsResolvedAgainstTheCurrentUrl(String location, String expected)
            throws Exception {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        HttpUrl from = check.check("https://docs.example/dir/a", resolved).url();
        assertThat(check.redirect(from, location, resolved).url().toString()).isEqualTo(expected);
        assertThat(resolver.questions()).containsExactly("docs.example");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // Wire names: JUnit converts them through Reason.fromWireName (Reason is no longer an enum).
        "http://docs.example/|cross_host_redirect", "https://evil.example/|cross_host_redirect",
        "https://10.0.0.5/|cross_host_redirect", "ftp://docs.example/|scheme_not_allowed",
        "javascript:alert(1)|scheme_not_allowed", "/a\\b|malformed_url", "https://u@docs.example/|malformed_url",
        "https://[::1|malformed_url"})
    void aRedirectElsewhereIsRefused(String location, Reason reason) throws Exception {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        HttpUrl from = check.check("https://docs.example/", resolved).url();
        assertThatThrownBy(() -> check.redirect(from, location, resolved))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(reason));
    }

    @Test
    void aSameHostUpgradeFromHttpToHttpsIsCheckedInFullAndADowngradeIsNot() throws Exception {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        HttpUrl plain = check.check("http://docs.example/a", resolved).url();
        FetchTargetCheck.Target up = check.redirect(plain, "https://docs.example:8443/b#frag", resolved);
        assertThat(up.url().toString()).isEqualTo("https://docs.example:8443/b");
        assertThat(up.addresses()).containsExactly(ScriptedResolver.address("93.184.216.34"));
        assertThatThrownBy(() -> check.redirect(plain, "https://evil.example/", resolved))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.detail()).contains("another host"));
        assertThatThrownBy(() -> check.redirect(up.url(), "http://docs.example/", resolved))
                .isInstanceOfSatisfying(FetchProblem.class, p -> {
                    assertThat(p.reason()).isEqualTo(Reason.CROSS_HOST_REDIRECT);
                    assertThat(p.detail()).contains("from https to http on the same host");
                });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "https://docs.example/page#section|https://docs.example/page", "https://docs.example#x|https://docs.example/",
        "https://docs.example/?q=1#|https://docs.example/?q=1", "https://docs.example/a#b#c|https://docs.example/a"})
    void aFragmentIsDroppedAndTheRestIsTheUrlThatIsSent(String raw, String sent) throws Exception {
        assertThat(check.check(raw, new HashMap<>()).url().toString()).isEqualTo(sent);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "https://evil.example#@docs.example/|host_not_allowed", "https://#docs.example/|no_host",
        "https://169.254.169.254#docs.example|link_local_address"})
    void theHostIsReadBeforeTheFragmentOnly(String raw, Reason reason) {
        assertThatThrownBy(() -> check.check(raw, new HashMap<>()))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(reason));
        assertThat(resolver.questions()).isEmpty();
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"https://docs.example/\uDB40\uDC41", "https://docs.example/\uD800",
            "https://docs.example/\uDC00x", "https://docs.example/\u2028", "https://docs.example/\u3000",
            "https://docs.example/\u0085", "https://docs.example/\u00ad", "https://docs.example/\ufeff"})
    void invisibleAndUnpairedCharactersAreMalformed(String url) {
        assertThatThrownBy(() -> check.check(url, new HashMap<>()))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.MALFORMED_URL));
        assertThat(resolver.questions()).isEmpty();
    }

    @Test
    void aPairedAstralCharacterInThePathIsFine() throws Exception {
        assertThat(check.check("https://docs.example/\uD83D\uDE00", new HashMap<>()).url().encodedPath())
                .isEqualTo("/%F0%9F%98%80");
    }

    @Test
    void aRedirectWithoutALocationIsAnHttpStatusFailure() throws Exception {
        Map<String, List<InetAddress>> resolved = new HashMap<>();
        HttpUrl from = check.check("https://docs.example/", resolved).url();
        assertThatThrownBy(() -> check.redirect(from, null, resolved))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.HTTP_STATUS));
    }

    @Test
    void theNextFetchAsksAgainAndChecksTheNewAnswer() throws Exception {
        check.check("https://docs.example/", new HashMap<>());
        assertThatThrownBy(() -> check.check("https://docs.example/", new HashMap<>()))
                .isInstanceOfSatisfying(FetchProblem.class,
                        p -> assertThat(p.reason()).isEqualTo(Reason.LINK_LOCAL_ADDRESS));
    }

    @Test
    void aUrlOfExactlyTheCapIsAcceptedAndOneMoreIsNot() throws Exception {
        String prefix = "https://docs.example/";
        String atCap = prefix + "a".repeat(FetchTargetCheck.MAX_URL_CHARS - prefix.length());
        assertThat(check.check(atCap, new HashMap<>()).url().host()).isEqualTo("docs.example");
        assertThatThrownBy(() -> check.check(atCap + "a", new HashMap<>()))
                .isInstanceOfSatisfying(FetchProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.MALFORMED_URL));
    }
}
