package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The scope rules: range membership, domain rules, blocked lists winning, and the absent scope. */
class ScopeRulesTest {
    @ParameterizedTest(name = "{0} in {1}: {2}")
    @CsvSource({
        "192.0.2.9,192.0.2.0/24,true", "192.0.3.9,192.0.2.0/24,false", "192.0.2.0,192.0.2.0/24,true",
        "192.0.2.255,192.0.2.0/24,true", "198.51.100.77,198.51.0.0/16,true", "203.0.113.1,198.51.0.0/16,false",
        "192.0.2.1,192.0.2.1/32,true", "192.0.2.2,192.0.2.1/32,false",
        "2001:db8:a::1,2001:db8::/32,true", "2001:db9:a::1,2001:db8::/32,false", "::1,::1/128,true"})
    void anAddressIsInARangeThatContainsIt(String ip, String cidr, boolean expected) {
        assertThat(TargetHosts.cidr(cidr).contains(TargetHosts.ip(ip))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource({
        "app.docs.example,*.docs.example,true", "docs.example,*.docs.example,false",
        "a.b.docs.example,*.docs.example,true", "docs.example,docs.example,true",
        "xdocs.example,docs.example,false", "evil-docs.example,*.docs.example,false",
        "api.docs.example.evil.example,api.docs.example,false", "APP.Docs.example,*.docs.example,true"})
    void domainRulesMatchExactlyOrStrictSubdomains(String host, String rule, boolean expected) {
        assertThat(ScopeRules.domainMatches(rule, host)).isEqualTo(expected);
    }

    @Test
    void blockedRulesWinOverAllowedOnes() {
        ScopeRules s = new ScopeRules(List.of("*.example.com"), List.of(TargetHosts.cidr("10.0.0.0/16")),
                List.of("admin.example.com"), List.of(TargetHosts.cidr("10.0.5.0/24")), true);
        assertThat(s.admitsName("app.example.com")).isTrue();
        assertThat(s.admitsName("admin.example.com")).isFalse();
        assertThat(s.admitsAddress(TargetHosts.ip("10.0.1.1"))).isTrue();
        assertThat(s.admitsAddress(TargetHosts.ip("10.0.5.1"))).isFalse();
        assertThat(s.admitsRange(TargetHosts.cidr("10.0.1.0/24"))).isTrue();
        assertThat(s.admitsRange(TargetHosts.cidr("10.0.2.0/23"))).isTrue();
        assertThat(s.admitsRange(TargetHosts.cidr("10.0.4.0/22"))).as("overlaps the blocked /24").isFalse();
        assertThat(s.admitsRange(TargetHosts.cidr("10.0.0.0/15"))).as("not wholly inside").isFalse();
    }

    @Test
    void theAbsentScopeAdmitsNothing() {
        assertThat(ScopeRules.NONE.admitsName("example.com")).isFalse();
        assertThat(ScopeRules.NONE.admitsAddress(TargetHosts.ip("8.8.8.8"))).isFalse();
    }
}
