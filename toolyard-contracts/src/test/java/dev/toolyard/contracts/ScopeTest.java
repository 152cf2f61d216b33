package dev.toolyard.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScopeTest {
    @Test
    void aScopeFileLoadsAndNeverShowsItsMembers() {
        Scope s = Scope.load(Manifests.path("scope.toml"));
        assertThat(s.isPresent()).isTrue();
        assertThat(s.toString()).isEqualTo("Scope[2 domains, 2 ranges allowed; 1 blocked]").doesNotContain("example");
        assertThat(Scope.none().isPresent()).isFalse();
    }

    @Test
    void unknownKeysAndBadEntriesAreRefusedNamingThem() {
        assertThatThrownBy(() -> Scope.parse("s.toml", "[scope]\nallowed_hosts = []\n"))
                .isInstanceOf(ContractException.class).hasMessageContaining("s.toml: [scope] key 'allowed_hosts'");
        assertThatThrownBy(() -> Scope.parse("s.toml", "[other]\n")).hasMessageContaining("key 'other'");
        assertThatThrownBy(() -> Scope.parse("s.toml", "[scope]\nallowed_cidrs = [\"10.0.0.0/33\"]\n"))
                .hasMessageContaining("allowed_cidrs[0]");
        assertThatThrownBy(() -> Scope.parse("s.toml", "[scope]\nallowed_domains = [\"exa mple.com\"]\n"))
                .hasMessageContaining("allowed_domains[0]");
        assertThatThrownBy(() -> Scope.parse("s.toml", "")).hasMessageContaining("[scope] is missing");
    }
}
