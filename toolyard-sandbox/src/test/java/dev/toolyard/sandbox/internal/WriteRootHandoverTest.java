package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real {@code lchown}s on a real file system: needs a root test JVM, as the isolation tests do. */
class WriteRootHandoverTest {
    private static final SandboxIds IDS = new SandboxIds(2147450880, 2147450880, 4);
    private static final SandboxIds.Pair LEASE = new SandboxIds.Pair(2147450881, 2147450881);
    private static final int OTHER_USER = 1000;

    @TempDir
    Path tmp;
    Path work;
    Path outside;

    @BeforeEach
    void setUp() throws IOException {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot change owners");
        work = Files.createDirectories(tmp.resolve("work"));
        outside = Files.createDirectories(tmp.resolve("outside"));
    }

    private static int uid(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static int gid(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void theWriteRootAndWhatRootOwnsUnderItGoToTheLeaseAndNothingIsChmodded() throws IOException {
        Path deep = Files.createDirectories(work.resolve("a/b"));
        Files.writeString(deep.resolve("f.txt"), "x");
        Files.setPosixFilePermissions(deep.resolve("f.txt"), PosixFilePermissions.fromString("rw-------"));

        int changed = WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(changed).isEqualTo(4);
        for (Path p : new Path[] {work, work.resolve("a"), deep, deep.resolve("f.txt")}) {
            assertThat(uid(p)).as(p.toString()).isEqualTo(LEASE.uid());
            assertThat(gid(p)).as(p.toString()).isEqualTo(LEASE.gid());
        }
        assertThat(mode(deep.resolve("f.txt")) & 0777).isEqualTo(0600);
        assertThat(uid(tmp)).as("the parent is never touched").isZero();
        assertThat(WriteRootHandover.handOver(work, LEASE, IDS)).as("a second hand-over finds nothing to do").isZero();
    }

    @Test
    void aHardLinkToAFileOutsideTheWorkspaceIsNotHandedOver() throws IOException {
        // A stand-in for /etc/shadow (same file system, root's, 0600): handing the link over would hand it over.
        Path shadow = Files.writeString(outside.resolve("shadow"), "root:$6$secret");
        Files.setPosixFilePermissions(shadow, PosixFilePermissions.fromString("rw-------"));
        Files.createLink(work.resolve("shadow"), shadow);

        WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(uid(shadow)).isZero();
        assertThat(gid(shadow)).isZero();
        assertThat(uid(work)).isEqualTo(LEASE.uid());
    }

    @Test
    void aSymbolicLinkIsNeverFollowedNorChanged() throws IOException {
        Path target = Files.createDirectories(outside.resolve("dir"));
        Files.writeString(target.resolve("inner"), "x");
        Files.createSymbolicLink(work.resolve("link"), target);
        Files.createSymbolicLink(work.resolve("file-link"), target.resolve("inner"));

        WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(uid(target)).isZero();
        assertThat(uid(target.resolve("inner"))).isZero();
        assertThat(uid(work.resolve("link"))).isZero();
        assertThat(uid(work)).isEqualTo(LEASE.uid());
    }

    @Test
    void aNamedPipeIsLeftAloneRatherThanOpened() throws Exception {
        Path fifo = work.resolve("fifo");
        Process mkfifo = new ProcessBuilder("/usr/bin/mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        Files.writeString(work.resolve("after"), "x");

        WriteRootHandover.handOver(work, LEASE, IDS); // returns: opening the pipe would block until a writer came

        assertThat(uid(fifo)).isZero();
        assertThat(uid(work.resolve("after"))).isEqualTo(LEASE.uid());
    }

    @Test
    void aSetuidFileLosesItsSetuidBitWhenHandedOver() throws IOException {
        Path planted = Files.copy(Path.of("/usr/bin/true"), work.resolve("planted"));
        Files.setAttribute(planted, "unix:mode", 06755);

        WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(uid(planted)).isEqualTo(LEASE.uid());
        assertThat(mode(planted) & 06000).isZero();
    }

    @Test
    void whatAnotherUserOwnsIsLeftAloneAndWhatAnotherSandboxUidOwnsIsHandedOver() throws IOException {
        Path alices = Files.writeString(work.resolve("alices"), "x");
        Files.setAttribute(alices, "unix:uid", OTHER_USER);
        Path previousRun = Files.writeString(work.resolve("previous"), "x");
        Files.setAttribute(previousRun, "unix:uid", 2147450883);

        WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(uid(alices)).isEqualTo(OTHER_USER);
        assertThat(uid(previousRun)).isEqualTo(LEASE.uid());
    }

    @Test
    void aWriteRootAnotherUserOwnsIsRefusedAndLeftAsItIs() throws IOException {
        Files.setAttribute(work, "unix:uid", OTHER_USER);
        Files.writeString(work.resolve("f"), "x");

        assertThatThrownBy(() -> WriteRootHandover.handOver(work, LEASE, IDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("writeRoot must be owned by root (this process) or by a sandbox uid")
                .hasMessageContaining("owned by uid 1000");
        assertThat(uid(work.resolve("f"))).isZero();
    }

    @Test
    void aWriteRootASandboxUidAlreadyOwnsIsAccepted() throws IOException {
        Files.setAttribute(work, "unix:uid", 2147450882);

        WriteRootHandover.handOver(work, LEASE, IDS);

        assertThat(uid(work)).isEqualTo(LEASE.uid());
    }
}
