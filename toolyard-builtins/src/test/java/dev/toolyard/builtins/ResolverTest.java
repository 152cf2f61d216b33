package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/**
 * The system resolver, asked only about literals: a test must not send a DNS query off the machine,
 * and a literal is answered by the JVM without one.
 */
class ResolverTest {
    @Test
    void theSystemResolverIsOneExplicitInstance() {
        assertThat(Resolver.system()).isSameAs(Resolver.system());
        assertThat(Resolver.system().toString()).isEqualTo("Resolver.system()");
    }

    @Test
    void theSystemResolverAnswersThroughTheJvm() throws Exception {
        assertThat(Resolver.system().resolve("127.0.0.1"))
                .containsExactly(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
    }

    @Test
    void anEmptyNameDoesNotResolveToLoopback() {
        assertThatThrownBy(() -> Resolver.system().resolve("")).isInstanceOf(UnknownHostException.class);
        assertThatThrownBy(() -> Resolver.system().resolve(null)).isInstanceOf(NullPointerException.class);
    }
}
