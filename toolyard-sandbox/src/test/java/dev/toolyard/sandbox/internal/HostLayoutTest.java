package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostLayoutTest {
    @Test
    void thisHostsLayoutHasUsrAndOnlyNamedEtcEntriesNeverSecrets() {
        HostLayout layout = HostLayout.inspect();

        assertThat(layout.usr()).isEqualTo(Path.of("/usr"));
        assertThat(layout.etc()).allMatch(p -> HostLayout.ETC_ENTRIES.contains(p.getFileName().toString()));
        assertThat(layout.etc()).doesNotContain(Path.of("/etc"), Path.of("/etc/shadow"), Path.of("/etc/gshadow"),
                Path.of("/etc/sudoers"));
        assertThat(layout.procReadOnly()).contains(Path.of("/proc/sys"));
        assertThat(layout.topLevel()).extracting(HostLayout.TopLevel::path).contains(Path.of("/bin"));
    }

    @Test
    void aTopLevelLinkIsKeptAsALink() {
        HostLayout layout = HostLayout.inspect();

        for (HostLayout.TopLevel t : layout.topLevel()) {
            assertThat(t.linkTarget().isPresent()).isEqualTo(java.nio.file.Files.isSymbolicLink(t.path()));
        }
    }

    @Test
    void onlyPathsInTheBoundRuntimeAreVisibleInside() {
        HostLayout layout = new HostLayout(Path.of("/usr"),
                List.of(new HostLayout.TopLevel(Path.of("/bin"), Optional.of(Path.of("usr/bin")))), List.of(), List.of(), List.of(), List.of());

        assertThat(layout.visibleInside(Path.of("/usr/bin/prlimit"))).isTrue();
        assertThat(layout.visibleInside(Path.of("/bin/env"))).isTrue();
        assertThat(layout.visibleInside(Path.of("/opt/bin/prlimit"))).isFalse();
        assertThat(layout.visibleInside(Path.of("/usr/../opt/prlimit"))).isFalse();
        assertThat(layout.visibleInside(Path.of("usr/bin/prlimit"))).isFalse();
        assertThat(layout.visibleInside(Path.of("/usrx/prlimit"))).isFalse();
    }
}
