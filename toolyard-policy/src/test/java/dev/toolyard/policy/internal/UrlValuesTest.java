package dev.toolyard.policy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UrlValuesTest {
    @Test
    void plainHttpUrlsHaveLowerCaseSchemeAndHostAndADotFreePath() {
        UrlValues.Parts p = UrlValues.parse("HTTP://Docs.Internal:8080/a/./b/../c?q=1");
        assertThat(p).isEqualTo(new UrlValues.Parts("http", "docs.internal", "/a/c"));
        assertThat(UrlValues.parse("https://x.example").path()).isEqualTo("/");
    }

    @Test
    void anythingAParserCouldReadTwoWaysHasNoParts() {
        assertThat(UrlValues.parse("http://good.example@evil.example/")).as("user information").isNull();
        assertThat(UrlValues.parse("http://good.example\\@evil.example/")).as("a backslash").isNull();
        assertThat(UrlValues.parse("http://good.example /x")).isNull();
        assertThat(UrlValues.parse("file:///etc/passwd")).isNull();
        assertThat(UrlValues.parse("ftp://x.example/")).isNull();
        assertThat(UrlValues.parse("http:/x")).isNull();
        assertThat(UrlValues.parse("http://x.example/../../etc")).isNull();
        assertThat(UrlValues.parse("http://exämple.com/")).isNull();
    }

    @Test
    void pathPrefixesMatchByWholeSegments() {
        assertThat(UrlValues.under("/v1/items", "/v1")).isTrue();
        assertThat(UrlValues.under("/v10/items", "/v1")).isFalse();
        assertThat(UrlValues.under("/anything", "/")).isTrue();
    }
}
