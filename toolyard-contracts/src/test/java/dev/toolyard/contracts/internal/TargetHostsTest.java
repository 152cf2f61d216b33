package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TargetHostsTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"2001:0db8:0000:0000:0000:0000:0000:0001,2001:db8::1", "::,::", "::1,::1", "1:0:0:1:0:0:0:1,1:0:0:1::1",
        "fe80:0:0:0:0:0:0:0,fe80::", "1:2:3:4:5:6:7:8,1:2:3:4:5:6:7:8", "10.0.0.1,10.0.0.1"})
    void addressesPrintCanonically(String in, String out) {
        assertThat(TargetHosts.format(TargetHosts.ip(in))).isEqualTo(out);
    }

    @Test
    void hostNamesThatSpellAnAddressAreFound() {
        assertThat(TargetHosts.embeddedIpv4("10.0.0.1.nip.io")).hasSize(1);
        assertThat(TargetHosts.embeddedIpv4("ip-192-168-1-1.ec2.example")).hasSize(1);
        assertThat(TargetHosts.embeddedIpv4("www.example.com")).isEmpty();
        assertThat(TargetHosts.nameRefusal("a.169.254.169.254.sslip.io", false)).contains("link-local");
        assertThat(TargetHosts.nameRefusal("www.example.com", true)).isNull();
    }

    @Test
    void rangesAreClassifiedByEveryBlockTheyCover() {
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("8.0.0.0/8"), true)).isNull();
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("192.0.0.0/16"), true)).contains("overlaps");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("169.254.169.254/32"), false)).contains("link-local");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("0.0.0.0/0"), false)).contains("wider than /8");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("::ffff:0:0/96"), false)).contains("embeds IPv4");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("fe80::/64"), false)).contains("link-local");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("2001:db8::/32"), true)).contains("wider than /48");
        assertThat(TargetHosts.rangeRefusal(TargetHosts.cidr("2606:4700::/48"), true)).isNull();
    }

    @Test
    void hostNamesAreStrictAscii() {
        assertThat(TargetHosts.hostname("a-b.example")).isTrue();
        assertThat(TargetHosts.hostname("-a.example")).isFalse();
        assertThat(TargetHosts.hostname("a_b.example")).isFalse();
        assertThat(TargetHosts.hostname("example.")).isFalse();
        assertThat(TargetHosts.hostname("1.2.3")).isFalse();
        assertThat(TargetHosts.punycode("XN--abc.example")).isTrue();
    }
}
