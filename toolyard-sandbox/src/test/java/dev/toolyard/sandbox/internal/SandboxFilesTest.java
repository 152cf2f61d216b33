package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SandboxFilesTest {
    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void theFilterAndTheProfileAreWrittenOnceInAPrivateDirectoryAndOnlyTheOwnerMayReadThem() throws IOException {
        byte[] program = {1, 2, 3, 4, 5, 6, 7, 8};
        SandboxFiles files = SandboxFiles.write(HostLayout.inspect(), Optional.of(program), Optional.of("{\"defaultAction\":1}"));
        try {
            assertThat(mode(files.directory())).isEqualTo("rwx------");
            Path bpf = files.seccompProgram().orElseThrow();
            Path json = files.seccompProfile().orElseThrow();
            assertThat(bpf.getParent()).isEqualTo(files.directory());
            assertThat(mode(bpf)).isEqualTo("rw-------");
            assertThat(mode(json)).isEqualTo("rw-------");
            assertThat(Files.readAllBytes(bpf)).isEqualTo(program);
            assertThat(Files.readString(json)).isEqualTo("{\"defaultAction\":1}");
        } finally {
            files.delete();
        }
        assertThat(files.directory()).doesNotExist();
    }

    @Test
    void theEtcSnapshotHoldsTheNamedEntriesAsTheHostHasThemLinksStayingLinks() throws IOException {
        HostLayout layout = HostLayout.inspect();
        SandboxFiles files = SandboxFiles.write(layout, Optional.empty(), Optional.empty());
        try {
            Path etc = files.etcSnapshot();
            assertThat(mode(etc)).isEqualTo("rwxr-xr-x");
            assertThat(files.seccompProgram()).isEmpty();
            assertThat(files.seccompProfile()).isEmpty();
            for (Path entry : layout.etc()) {
                Path copy = etc.resolve(entry.getFileName().toString());
                assertThat(Files.isSymbolicLink(copy)).as(copy.toString()).isEqualTo(Files.isSymbolicLink(entry));
                if (Files.isSymbolicLink(entry)) {
                    assertThat(Files.readSymbolicLink(copy)).isEqualTo(Files.readSymbolicLink(entry));
                } else if (Files.isRegularFile(entry)) {
                    assertThat(Files.readString(copy, StandardCharsets.ISO_8859_1))
                            .isEqualTo(Files.readString(entry, StandardCharsets.ISO_8859_1));
                    assertThat(mode(copy)).isEqualTo("rw-r--r--");
                }
            }
            assertThat(etc.resolve("shadow")).as("only the named entries").doesNotExist();
            assertThat(etc.resolve("passwd")).exists();
        } finally {
            files.delete();
        }
    }
}
