package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void theSandboxesOfOneJvmShareOneDirectoryUntilAnEtcEntryChangesThenTheNextGetsANewSnapshot(@TempDir Path host)
            throws IOException {
        Path passwd = Files.writeString(host.resolve("passwd"), "root:x:0:0::/root:/bin/sh\n");
        Path alternatives = Files.createDirectory(host.resolve("alternatives"));
        Files.createSymbolicLink(alternatives.resolve("awk"), Path.of("/usr/bin/mawk"));
        HostLayout real = HostLayout.inspect();
        HostLayout layout = new HostLayout(real.usr(), real.topLevel(), List.of(passwd, alternatives), real.procReadOnly(),
                real.procMasked(), real.procMaskedUnprivileged());
        byte[] program = {1, 2, 3, 4, 5, 6, 7, 8};
        SandboxFiles first = SandboxFiles.shared(layout, Optional.of(program), Optional.of("{}"), Optional.empty());
        SandboxFiles changed = null;
        SandboxFiles otherProgram = null;
        try {
            assertThat(SandboxFiles.shared(layout, Optional.of(program.clone()), Optional.of("{}"), Optional.empty()))
                    .as("the same content: the same directory").isSameAs(first);
            otherProgram = SandboxFiles.shared(layout, Optional.of(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}), Optional.of("{}"),
                    Optional.empty());
            assertThat(otherProgram.directory()).as("another filter: a directory of its own").isNotEqualTo(first.directory());

            Files.writeString(passwd, "root:x:0:0::/root:/bin/sh\nsvc:x:1:1::/:/bin/false\n");
            Files.setLastModifiedTime(passwd, FileTime.from(Instant.now().plusSeconds(5)));
            changed = SandboxFiles.shared(layout, Optional.of(program), Optional.of("{}"), Optional.empty());
            assertThat(changed.directory()).isNotEqualTo(first.directory());
            assertThat(Files.readString(changed.etcSnapshot().resolve("passwd"))).contains("svc:x:1:1");
            assertThat(Files.readString(first.etcSnapshot().resolve("passwd")))
                    .as("a sandbox probed before the change keeps its snapshot").doesNotContain("svc");
            assertThat(Files.readSymbolicLink(changed.etcSnapshot().resolve("alternatives/awk"))).isEqualTo(Path.of("/usr/bin/mawk"));

            changed.delete();
            SandboxFiles again = SandboxFiles.shared(layout, Optional.of(program), Optional.of("{}"), Optional.empty());
            assertThat(again).as("a removed directory is written again").isNotSameAs(changed);
            assertThat(again.directory()).isNotEqualTo(changed.directory());
            assertThat(again.etcSnapshot().resolve("passwd")).exists();
            changed = again;
        } finally {
            first.delete();
            if (changed != null) {
                changed.delete();
            }
            if (otherProgram != null) {
                otherProgram.delete();
            }
        }
    }

    @Test
    void aDirectoryLeftByAProcessThatEndedIsRemovedAndOneWhoseProcessLivesOrThatIsNotYetMarkedIsKept(@TempDir Path tmp)
            throws Exception {
        Path victim = Files.writeString(Files.createDirectory(tmp.resolve("elsewhere")).resolve("keep-me"), "x");
        Path dead = leftBehind(tmp, "toolyard-sandbox-dead", true);
        Files.createDirectories(dead.resolve("w-1/nested"));
        Files.createSymbolicLink(dead.resolve("link"), victim.getParent());
        Files.createSymbolicLink(dead.resolve("w-1/file-link"), victim);
        Path alive = leftBehind(tmp, "toolyard-sandbox-alive", true);
        Path unmarked = leftBehind(tmp, "toolyard-sandbox-unmarked", false);
        Path target = leftBehind(tmp, "not-a-sandbox", true);
        Path link = Files.createSymbolicLink(tmp.resolve("toolyard-sandbox-link"), target);
        Path otherName = leftBehind(tmp, "toolyard-warm-survey-x", true);

        Process holder = new ProcessBuilder("python3", "-c", "import fcntl, sys, time\n"
                + "f = open(sys.argv[1], 'r+')\nfcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nprint('held', flush=True)\n"
                + "time.sleep(120)\n", alive.resolve(SandboxFiles.LOCK).toString()).redirectErrorStream(true).start();
        try {
            assertThat(new String(holder.getInputStream().readNBytes(4), StandardCharsets.UTF_8)).isEqualTo("held");

            assertThat(SandboxFiles.removeLeftBehind(tmp)).isEqualTo(1);
            assertThat(dead).doesNotExist();
            assertThat(victim).as("nothing in a removed directory is followed").exists();
            assertThat(alive.resolve(SandboxFiles.LOCKED)).as("its process holds the lock").exists();
            assertThat(unmarked.resolve(SandboxFiles.LOCK)).as("not yet marked: another JVM may be writing it").exists();
            assertThat(target.resolve(SandboxFiles.LOCKED)).as("a link is not a directory of ours").exists();
            assertThat(link).isSymbolicLink();
            assertThat(otherName.resolve(SandboxFiles.LOCKED)).as("another prefix").exists();
        } finally {
            holder.destroyForcibly();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(SandboxFiles.removeLeftBehind(tmp)).as("its process has ended").isEqualTo(1);
        assertThat(alive).doesNotExist();
        assertThat(unmarked).exists();
    }

    @Test
    void thisJvmsOwnDirectoriesAreNeverTakenForLeftBehindAndKeepTheirLock() throws Exception {
        SandboxFiles files = SandboxFiles.write(HostLayout.inspect(), Optional.empty(), Optional.empty());
        try {
            assertThat(files.directory().getFileName().toString()).startsWith(SandboxFiles.PREFIX);
            assertThat(Files.readString(files.directory().resolve(SandboxFiles.LOCKED))).isEqualTo(SandboxFiles.THIS_PROCESS);
            assertThat(lockableByAnotherProcess(files.directory().resolve(SandboxFiles.LOCK))).as("held while it lives").isFalse();
            SandboxFiles.removeLeftBehind(files.directory().getParent());
            assertThat(files.etcSnapshot().resolve("passwd")).exists();
            assertThat(lockableByAnotherProcess(files.directory().resolve(SandboxFiles.LOCK)))
                    .as("the sweep did not drop this process's lock by closing a descriptor of the file").isFalse();
        } finally {
            files.delete();
        }
    }

    @Test
    void aDirectoryThisProcessMarkedIsNeverOpenedEvenUnknownToThisCopyOfTheClass(@TempDir Path tmp) throws IOException {
        // As another class loader's directory looks to this one: marked by this process, its lock not held here.
        Path otherLoaders = leftBehind(tmp, "toolyard-sandbox-other-loader", true);
        Files.writeString(otherLoaders.resolve(SandboxFiles.LOCKED), SandboxFiles.THIS_PROCESS);
        assertThat(SandboxFiles.removeLeftBehind(tmp)).isZero();
        assertThat(otherLoaders.resolve("seccomp.bpf")).exists();
    }

    /** @return whether a python3 process can take the lock on {@code file} (a POSIX lock, as the JVM's) */
    private static boolean lockableByAnotherProcess(Path file) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", "import fcntl, sys\nf = open(sys.argv[1], 'r+')\n"
                + "try:\n    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    sys.exit(3)\n",
                file.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isIn(0, 3);
        return p.exitValue() == 0;
    }

    @Test
    void aLeftBehindDirectoryOfAnotherUserIsKept(@TempDir Path tmp) throws IOException {
        Assumptions.assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")),
                "needs root, to give a directory to another user");
        Path theirs = leftBehind(tmp, "toolyard-sandbox-theirs", true);
        for (Path p : List.of(theirs.resolve(SandboxFiles.LOCK), theirs.resolve(SandboxFiles.LOCKED), theirs)) {
            Files.setAttribute(p, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
        }
        assertThat(SandboxFiles.removeLeftBehind(tmp)).isZero();
        assertThat(theirs.resolve(SandboxFiles.LOCKED)).exists();
    }

    private static Path leftBehind(Path tmp, String name, boolean marked) throws IOException {
        Path d = Files.createDirectory(tmp.resolve(name));
        Files.writeString(d.resolve(SandboxFiles.LOCK), "");
        if (marked) {
            Files.writeString(d.resolve(SandboxFiles.LOCKED), "4194304@2026-12-03T00:00:00Z"); // another process
        }
        Files.writeString(d.resolve("seccomp.bpf"), "12345678");
        return d;
    }
}
