package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.AddressClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class AddressClassTest {
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "169.254.169.254, LINK_LOCAL", "169.254.0.0, LINK_LOCAL", "169.254.255.255, LINK_LOCAL",
        "169.253.255.255, PUBLIC", "169.255.0.0, PUBLIC",
        "127.0.0.1, LOOPBACK", "127.255.255.254, LOOPBACK",
        "10.0.0.1, PRIVATE", "172.16.0.1, PRIVATE", "172.31.255.255, PRIVATE", "172.15.255.255, PUBLIC",
        "172.32.0.0, PUBLIC", "192.168.1.1, PRIVATE", "192.169.0.1, PUBLIC", "100.64.0.0, PRIVATE",
        "100.127.255.255, PRIVATE", "100.63.255.255, PUBLIC", "100.128.0.0, PUBLIC", "100.100.100.200, PRIVATE",
        "192.0.0.192, PRIVATE", "198.18.0.1, PRIVATE", "198.19.255.255, PRIVATE", "198.20.0.0, PUBLIC",
        "0.0.0.0, NEVER", "0.255.255.255, NEVER", "224.0.0.1, NEVER", "239.255.255.250, NEVER",
        "240.0.0.1, NEVER", "255.255.255.255, NEVER", "93.184.216.34, PUBLIC", "8.8.8.8, PUBLIC",
        "::, NEVER", "::1, LOOPBACK", "fe80::1, LINK_LOCAL", "febf:ffff::1, LINK_LOCAL", "fec0::1, PRIVATE",
        "fc00::1, PRIVATE", "fd00:ec2::254, PRIVATE", "ff02::1, NEVER", "ff0e::1, NEVER", "100::1, NEVER",
        "2001:db8::1, PUBLIC", "2606:4700::1111, PUBLIC",
        "::ffff:169.254.169.254, LINK_LOCAL", "::ffff:127.0.0.1, LOOPBACK", "::ffff:10.0.0.1, PRIVATE",
        "::ffff:8.8.8.8, PUBLIC", "::169.254.169.254, LINK_LOCAL", "::10.0.0.1, PRIVATE", "::0.0.0.2, NEVER",
        "::ffff:0:169.254.169.254, LINK_LOCAL", "64:ff9b::169.254.169.254, LINK_LOCAL", "64:ff9b::10.0.0.1, PRIVATE",
        "64:ff9b::8.8.8.8, PUBLIC", "64:ff9b:1::8.8.8.8, PRIVATE", "64:ff9b:1:a9fe:a9:fe00::, LINK_LOCAL",
        "2002:a9fe:a9fe::1, LINK_LOCAL", "2002:0808:0808::1, PUBLIC", "2002:7f00:1::, LOOPBACK",
        "2001:0:0808:0808::5601:5601, LINK_LOCAL", "2001:0:a9fe:a9fe::, LINK_LOCAL", "2001:0:0808:0808::f7f7:f7f7, PUBLIC"})
    void everyAddressHasItsClass(String literal, AddressClass expected) {
        assertThat(AddressClass.of(ScriptedResolver.address(literal))).isEqualTo(expected);
    }

    @Test
    void theWorstOfTwoClassesIsTheMoreRestricted() {
        assertThat(AddressClass.PUBLIC.worst(AddressClass.LINK_LOCAL)).isEqualTo(AddressClass.LINK_LOCAL);
        assertThat(AddressClass.NEVER.worst(AddressClass.PRIVATE)).isEqualTo(AddressClass.NEVER);
        assertThat(AddressClass.LOOPBACK.worst(AddressClass.PUBLIC)).isEqualTo(AddressClass.LOOPBACK);
    }

    @Test
    void anAddressOfAnotherLengthIsACallerBug() {
        assertThatThrownBy(() -> AddressClass.of(new byte[5])).isInstanceOf(IllegalArgumentException.class);
    }
}
