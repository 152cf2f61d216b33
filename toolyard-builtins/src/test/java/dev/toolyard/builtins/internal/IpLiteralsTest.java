package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.AddressClass;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpLiteralsTest {
    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "127.0.0.1", "255.255.255.255", "10.20.30.40"})
    void aCanonicalDottedQuadIsRead(String s) throws Exception {
        assertThat(IpLiterals.canonicalIpv4(s)).isEqualTo(InetAddress.getByName(s).getAddress());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", "1.2.3.0x4", "1..2.3", "1.2.3.4.",
            "", "a.b.c.d", "1.2.3.-4", "+1.2.3.4", "1.2.3.4 ", "１.2.3.4", "1000.2.3.4"})
    void anythingElseIsNotACanonicalDottedQuad(String s) {
        assertThat(IpLiterals.canonicalIpv4(s)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"::", "::1", "1::", "fe80::1", "2001:db8:0:0:0:0:2:1", "2001:db8::2:1",
            "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4",
            "FE80::ABCD", "::ffff:0:1.2.3.4", "1::8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8"})
    void ipv6TextIsReadAsJavaReadsIt(String s) throws Exception {
        // InetAddress.getByName parses a literal without any lookup; a mapped address comes back as IPv4.
        byte[] expected = InetAddress.getByName("[" + s + "]").getAddress();
        byte[] actual = IpLiterals.ipv6(s);
        assertThat(actual).hasSize(16);
        if (expected.length == 4) {
            assertThat(java.util.Arrays.copyOfRange(actual, 12, 16)).isEqualTo(expected);
        } else {
            assertThat(actual).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":", ":::", "1:", ":1", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "g::1",
            "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "::01.2.3.4", "1:2:3:4:5:6::7:8", "fe80::1%eth0", "[::1]", "::1 "})
    void malformedIpv6TextIsNotRead(String s) {
        assertThat(IpLiterals.ipv6(s)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2852039166", "0xa9fea9fe", "0xA9FEA9FE", "0251.0376.0251.0376", "169.254.43518",
            "169.16689662", "0xa9.0xfe.0xa9.0xfe", "0251.254.169.254", "7147006462", "169.254.169.254.",
            "0x0a9fea9fe", "169.0xfe.0xa9fe", "169.254.0xa9fe"})
    void everyNumericSpellingOfTheMetadataAddressHasALinkLocalReading(String host) {
        List<byte[]> readings = IpLiterals.numericReadings(host);
        assertThat(readings).anySatisfy(r -> assertThat(AddressClass.of(r)).isEqualTo(AddressClass.LINK_LOCAL));
    }

    @Test
    void aDecimalReadingIsKeptBesideTheOctalOne() {
        // "0251" is 169 in octal (inet_aton) and 251 in decimal (Java); both readings are classified.
        assertThat(IpLiterals.numericReadings("0251.254.169.254"))
                .anySatisfy(r -> assertThat(r).containsExactly(169, 254, 169, 254))
                .anySatisfy(r -> assertThat(r).containsExactly(251, 254, 169, 254));
    }

    @ParameterizedTest
    @ValueSource(strings = {"docs.example", "1.2.3.4.5", "0x", "", "a.1", "1.2.3.4a"})
    void namesAndTooManyPartsHaveNoUsefulReading(String host) {
        assertThat(IpLiterals.numericReadings(host))
                .noneSatisfy(r -> assertThat(AddressClass.of(r)).isEqualTo(AddressClass.LINK_LOCAL));
    }

    @ParameterizedTest
    @CsvSource({"2852039166, true", "0xa9fea9fe, true", "0x, true", "docs.example.123, true", "1.2.3.4., true",
            "127.1, true", "docs.example, false", "1.2.3.x, false", "0xg, false", "., false", "example.com., false"})
    void aHostEndingInANumberIsNeverAName(String host, boolean expected) {
        assertThat(IpLiterals.endsInNumber(host)).isEqualTo(expected);
    }
}
