package dev.toolyard.sandbox.internal;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A fixed host layout, as on Debian 12 (merged /usr), for command-line tests that must not depend on the host. */
final class Fixtures {
    static final HostLayout DEBIAN = new HostLayout(
            Path.of("/usr"),
            List.of(new HostLayout.TopLevel(Path.of("/bin"), Optional.of(Path.of("usr/bin"))),
                    new HostLayout.TopLevel(Path.of("/lib"), Optional.of(Path.of("usr/lib"))),
                    new HostLayout.TopLevel(Path.of("/opt/lib"), Optional.empty())),
            List.of(Path.of("/etc/passwd"), Path.of("/etc/ld.so.cache")),
            List.of(Path.of("/proc/sys"), Path.of("/proc/irq")),
            List.of(Path.of("/proc/kcore"), Path.of("/proc/keys")),
            List.of(Path.of("/proc/keys")));

    static final BindSet BINDS = new BindSet(Path.of("/tmp/ws"), List.of(Path.of("/srv/ref"), Path.of("/tmp/data")));

    private Fixtures() {}

    /** @return the index of the first occurrence of the sequence {@code seq} in {@code argv}, or -1 */
    static int indexOf(List<String> argv, String... seq) {
        outer:
        for (int i = 0; i + seq.length <= argv.size(); i++) {
            for (int j = 0; j < seq.length; j++) {
                if (!argv.get(i + j).equals(seq[j])) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
