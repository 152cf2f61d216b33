package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.builtins.FetchLimits;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import javax.net.SocketFactory;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class PinnedClientsTest {
    private final InetAddress one = ScriptedResolver.address("127.0.0.1");
    private final InetAddress two = ScriptedResolver.address("127.0.0.2");
    private final PinnedClients clients = new PinnedClients(
            HttpFetch.client(FetchLimits.defaults(), SocketFactory.getDefault(), null));

    @Test
    void theSameHostAndAnswersGetTheSameClientAndAnyChangeAnother() {
        OkHttpClient first = clients.pinnedTo("docs.example", List.of(one));
        assertThat(clients.pinnedTo("docs.example", List.of(one))).isSameAs(first);
        assertThat(clients.pinnedTo("docs.example", List.of(two))).isNotSameAs(first);
        assertThat(clients.pinnedTo("docs.example", List.of(one, two))).isNotSameAs(first);
        assertThat(clients.pinnedTo("other.example", List.of(one))).isNotSameAs(first);
        assertThat(clients.size()).isEqualTo(4);
    }

    @Test
    void aClientAnswersOnlyItsHostWithOnlyItsAnswersAndGuardsTheConnection() throws Exception {
        OkHttpClient pinned = clients.pinnedTo("docs.example", List.of(one));
        assertThat(pinned.dns().lookup("docs.example")).containsExactly(one);
        assertThatThrownBy(() -> pinned.dns().lookup("evil.example")).isInstanceOf(UnknownHostException.class);
        assertThat(pinned.networkInterceptors()).singleElement().isInstanceOf(CheckedAddressGuard.class);
        assertThat(pinned.connectionPool()).as("one pool for all").isSameAs(clients.pinnedTo("x.example", List.of(two))
                .connectionPool());
    }

    @Test
    void atMostTheCapIsKeptTheLeastRecentlyUsedGoingFirst() {
        OkHttpClient kept = clients.pinnedTo("h0.example", List.of(one));
        for (int i = 1; i <= PinnedClients.MAX_CLIENTS + 10; i++) {
            clients.pinnedTo("h" + i + ".example", List.of(one));
            assertThat(clients.pinnedTo("h0.example", List.of(one))).isSameAs(kept); // used again: kept
        }
        assertThat(clients.size()).isEqualTo(PinnedClients.MAX_CLIENTS);
    }
}
