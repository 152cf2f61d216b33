package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.AddressClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostAllowlistTest {
    @Test
    void namesAreComparedInLowerCaseAscii() {
        HostAllowlist a = HostAllowlist.of(List.of("Docs.Example", "bücher.example", "xn--caf-dma.example"));
        assertThat(a.admitsName("docs.example")).isTrue();
        assertThat(a.admitsName("xn--bcher-kva.example")).isTrue();
        assertThat(a.admitsName("xn--caf-dma.example")).isTrue();
        assertThat(a.admitsName("Docs.Example")).isFalse();
        assertThat(a.admitsName("docs.example.")).isFalse();
        assertThat(a.admitsName("sub.docs.example")).isFalse();
        assertThat(a.admitsName("localhost")).isFalse();
        assertThat(a.loopbackOnly()).isFalse();
    }

    @Test
    void literalsAreComparedInOkHttpsCanonicalForm() {
        HostAllowlist a = HostAllowlist.of(List.of("10.0.0.5", "[2001:DB8:0:0::1]", "::ffff:10.0.0.6"));
        assertThat(a.admitsLiteral("10.0.0.5", AddressClass.PRIVATE)).isTrue();
        assertThat(a.admitsLiteral("2001:db8::1", AddressClass.PUBLIC)).isTrue();
        assertThat(a.admitsLiteral("10.0.0.6", AddressClass.PRIVATE)).isTrue();
        assertThat(a.admitsLiteral("127.0.0.1", AddressClass.LOOPBACK)).isFalse();
        assertThat(a.admitsName("10.0.0.5")).isFalse();
    }

    @Test
    void anAnswerIsAdmittedWhenItsAddressIsAllowlisted() {
        HostAllowlist a = HostAllowlist.of(List.of("intranet.example", "10.0.0.5"));
        assertThat(a.admitsAddress(ScriptedResolver.address("10.0.0.5"))).isTrue();
        assertThat(a.admitsAddress(ScriptedResolver.address("::ffff:10.0.0.5"))).isTrue();
        assertThat(a.admitsAddress(ScriptedResolver.address("10.0.0.6"))).isFalse();
    }

    @Test
    void anEmptyAllowlistAdmitsLoopbackOnly() {
        HostAllowlist a = HostAllowlist.of(List.of());
        assertThat(a.loopbackOnly()).isTrue();
        assertThat(a.admitsName("localhost")).isTrue();
        assertThat(a.admitsName("docs.example")).isFalse();
        assertThat(a.admitsLiteral("127.0.0.2", AddressClass.LOOPBACK)).isTrue();
        assertThat(a.admitsLiteral("::1", AddressClass.LOOPBACK)).isTrue();
        assertThat(a.admitsLiteral("10.0.0.1", AddressClass.PRIVATE)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "http://docs.example", "docs.example/", "docs.example:443", "user@docs.example",
            "*.docs.example", "docs example", "docs.example.", "docs.example?x", "docs.example#x", "docs%2eexample",
            "docs\\example", "docs.example\n", "\u200bdocs.example", "169.254.169.254", "[fe80::1]", "fe80::1%eth0",
            "::ffff:169.254.169.254", "0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "ff02::1", "2852039166",
            "127.1", "0x7f.0.0.1", "01.2.3.4", "1.2.3.4.", "docs..example", "-", "a_b!.example", "faß.de",
            "[::1", "1:2:3", "[docs.example]"})
    void anInvalidEntryFailsFastNamingItsIndex(String entry) {
        assertThatThrownBy(() -> HostAllowlist.of(Arrays.asList("ok.example", entry)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("allowedHosts[1]");
    }

    @Test
    void aNullListOrEntryFailsFastNamingIt() {
        assertThatThrownBy(() -> HostAllowlist.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("allowedHosts");
        assertThatThrownBy(() -> HostAllowlist.of(Arrays.asList("ok.example", null)))
                .isInstanceOf(NullPointerException.class).hasMessage("allowedHosts[1]");
    }

    @Test
    void itsTextNeverListsTheMembers() {
        HostAllowlist a = HostAllowlist.of(List.of("secret.example", "10.9.8.7"));
        assertThat(a.toString()).doesNotContain("secret").doesNotContain("10.9.8.7").contains("1 names");
    }
}
