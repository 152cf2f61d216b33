package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ContentTypesTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "text/plain|text/plain", "TEXT/HTML; charset=UTF-8|text/html", " text/csv ;x=y|text/csv",
        "application/json|application/json", "Application/Problem+JSON|application/problem+json",
        "application/vnd.github.v3+json; charset=utf-8|application/vnd.github.v3+json", "text/x-markdown|text/x-markdown"})
    void textAndJsonAreAccepted(String header, String mediaType) throws Exception {
        assertThat(ContentTypes.check(List.of(header)).mediaType()).isEqualTo(mediaType);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "text", "text/", "/plain", "image/png", "application/xml", "application/jsonp",
            "application/json+evil", "application/x-www-form-urlencoded", "video/mp4", "json", "application/+json x",
            "text /plain", "text/pl ain", "multipart/mixed; boundary=x"})
    void anythingElseIsRefused(String header) {
        assertThatThrownBy(() -> ContentTypes.check(List.of(header)))
                .isInstanceOfSatisfying(FetchProblem.class,
                        p -> assertThat(p.reason()).isEqualTo(Reason.CONTENT_TYPE_NOT_ALLOWED));
    }

    @Test
    void aMissingTypeAndSeveralDifferentTypesAreRefused() {
        assertThatThrownBy(() -> ContentTypes.check(List.of())).isInstanceOf(FetchProblem.class)
                .hasMessageContaining("no Content-Type");
        assertThatThrownBy(() -> ContentTypes.check(List.of("text/plain", "text/html")))
                .isInstanceOf(FetchProblem.class).hasMessageContaining("several");
    }

    @Test
    void theSameTypeRepeatedIsOneType() throws Exception {
        assertThat(ContentTypes.check(List.of("text/plain", "Text/Plain")).mediaType()).isEqualTo("text/plain");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "text/plain|UTF-8", "text/plain; charset=ISO-8859-1|ISO-8859-1", "text/plain;CHARSET=\"utf-16le\"|UTF-16LE",
        "text/plain; charset=no-such-charset|UTF-8", "text/plain; charset=|UTF-8", "text/plain; charset=\"\"|UTF-8",
        "text/plain; charset=@@|UTF-8", "application/json; x=1; charset=windows-1252|windows-1252"})
    void theCharsetIsHonouredWhenKnownAndUtf8Otherwise(String header, String charset) throws Exception {
        assertThat(ContentTypes.check(List.of(header)).charset().name()).isEqualTo(charset);
    }

    @Test
    void utf8IsTheDefault() throws Exception {
        assertThat(ContentTypes.check(List.of("application/json")).charset()).isEqualTo(StandardCharsets.UTF_8);
    }
}
