package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scope rules, with ToolClad's cross-language scope vectors as data
 * (tests/scope_vectors.json of https://github.com/ThirdKeyAI/ToolClad, MIT, copied as test data).
 */
class ScopeRulesTest {
    @ParameterizedTest(name = "{0} in {1}: {2}")
    @CsvSource({
        "10.0.1.5,10.0.1.0/24,true", "10.0.2.5,10.0.1.0/24,false", "10.0.1.0,10.0.1.0/24,true",
        "10.0.1.255,10.0.1.0/24,true", "192.168.1.1,192.168.0.0/16,true", "172.16.0.1,192.168.0.0/16,false",
        "10.0.0.1,10.0.0.1/32,true", "10.0.0.2,10.0.0.1/32,false",
        "2001:db8::1,2001:db8::/32,true", "2001:db9::1,2001:db8::/32,false", "::1,::1/128,true"})
    void anAddressIsInARangeThatContainsIt(String ip, String cidr, boolean expected) {
        assertThat(Hosts.cidr(cidr).contains(Hosts.ip(ip))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource({
        "app.example.com,*.example.com,true", "example.com,*.example.com,false",
        "deep.sub.example.com,*.example.com,true", "example.com,example.com,true",
        "notexample.com,example.com,false", "evil-example.com,*.example.com,false",
        "api.example.com.evil.com,api.example.com,false", "APP.Example.com,*.example.com,true"})
    void domainRulesMatchExactlyOrStrictSubdomains(String host, String rule, boolean expected) {
        assertThat(ScopeRules.domainMatches(rule, host)).isEqualTo(expected);
    }

    @Test
    void blockedRulesWinOverAllowedOnes() {
        ScopeRules s = new ScopeRules(List.of("*.example.com"), List.of(Hosts.cidr("10.0.0.0/16")),
                List.of("admin.example.com"), List.of(Hosts.cidr("10.0.5.0/24")), true);
        assertThat(s.admitsName("app.example.com")).isTrue();
        assertThat(s.admitsName("admin.example.com")).isFalse();
        assertThat(s.admitsAddress(Hosts.ip("10.0.1.1"))).isTrue();
        assertThat(s.admitsAddress(Hosts.ip("10.0.5.1"))).isFalse();
        assertThat(s.admitsRange(Hosts.cidr("10.0.1.0/24"))).isTrue();
        assertThat(s.admitsRange(Hosts.cidr("10.0.2.0/23"))).isTrue();
        assertThat(s.admitsRange(Hosts.cidr("10.0.4.0/22"))).as("overlaps the blocked /24").isFalse();
        assertThat(s.admitsRange(Hosts.cidr("10.0.0.0/15"))).as("not wholly inside").isFalse();
    }

    @Test
    void theAbsentScopeAdmitsNothing() {
        assertThat(ScopeRules.NONE.admitsName("example.com")).isFalse();
        assertThat(ScopeRules.NONE.admitsAddress(Hosts.ip("8.8.8.8"))).isFalse();
    }
}
