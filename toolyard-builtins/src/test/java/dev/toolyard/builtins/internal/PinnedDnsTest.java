package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PinnedDnsTest {
    private final InetAddress one = ScriptedResolver.address("127.0.0.1");
    private final InetAddress two = ScriptedResolver.address("127.0.0.2");

    @Test
    void itAnswersExactlyTheCheckedAddressesForItsHost() throws Exception {
        assertThat(new PinnedDns("docs.example", List.of(one, two)).lookup("docs.example")).containsExactly(one, two);
    }

    @Test
    void itRefusesEveryOtherName() {
        PinnedDns dns = new PinnedDns("docs.example", List.of(one));
        assertThatThrownBy(() -> dns.lookup("evil.example")).isInstanceOf(UnknownHostException.class);
        assertThatThrownBy(() -> dns.lookup("DOCS.EXAMPLE")).isInstanceOf(UnknownHostException.class);
        assertThatThrownBy(() -> PinnedDns.REFUSE_ALL.lookup("docs.example")).isInstanceOf(UnknownHostException.class);
    }

    @Test
    void equalAnswersMakeEqualDnsAndDifferentAnswersDoNot() {
        // OkHttp reuses a pooled connection only for an equal Address, which compares the Dns by equals.
        assertThat(new PinnedDns("docs.example", List.of(one))).isEqualTo(new PinnedDns("docs.example", List.of(one)));
        assertThat(new PinnedDns("docs.example", List.of(one))).isNotEqualTo(new PinnedDns("docs.example", List.of(two)));
        assertThat(new PinnedDns("docs.example", List.of(one))).isNotEqualTo(new PinnedDns("other.example", List.of(one)));
        assertThat(new PinnedDns("docs.example", List.of(one, two)))
                .isNotEqualTo(new PinnedDns("docs.example", List.of(one)));
    }

    @Test
    void itKeepsItsOwnCopyOfTheAnswers() throws Exception {
        List<InetAddress> answers = new ArrayList<>(List.of(one));
        PinnedDns dns = new PinnedDns("docs.example", answers);
        answers.add(two);
        assertThat(dns.lookup("docs.example")).containsExactly(one);
    }
}
