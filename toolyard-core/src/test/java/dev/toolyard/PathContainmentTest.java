package dev.toolyard;

import dev.toolyard.spi.PathDecision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathContainmentTest {
    @TempDir
    Path tmp;

    Path work;
    Path docs;
    Path outside;
    SandboxPaths paths;
    final PathContainment containment = new PathContainment();

    @BeforeEach
    void layout() throws Exception {
        work = Files.createDirectories(tmp.resolve("work"));
        docs = Files.createDirectories(tmp.resolve("docs"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(work.resolve("notes.md"), "n");
        Files.createDirectories(work.resolve("sub"));
        Files.writeString(docs.resolve("manual.md"), "m");
        Files.writeString(outside.resolve("secret"), "s");
        paths = SandboxPaths.of(work, docs);
    }

    private PathDecision read(String candidate) {
        return containment.resolveRead(candidate, paths);
    }

    private PathDecision write(String candidate) {
        return containment.resolveWrite(candidate, paths);
    }

    @Test
    void aRelativeCandidateResolvesAgainstTheWriteRootNotTheWorkingDirectory() throws Exception {
        assertThat(read("notes.md").path()).isEqualTo(work.toRealPath().resolve("notes.md"));
        assertThat(read("sub/../notes.md").path()).isEqualTo(work.toRealPath().resolve("notes.md"));
    }

    @Test
    void dotDotOutOfTheRootIsRefused() {
        assertThat(read("../outside/secret").isInside()).isFalse();
        assertThat(read("sub/../../outside/secret").isInside()).isFalse();
        assertThat(write("../outside/new").isInside()).isFalse();
    }

    @Test
    void anAbsoluteCandidateIsAdmittedOnlyInsideARoot() throws Exception {
        assertThat(read(docs.resolve("manual.md").toString()).path()).isEqualTo(docs.toRealPath().resolve("manual.md"));
        assertThat(read(outside.resolve("secret").toString()).isInside()).isFalse();
        assertThat(read("/etc/passwd").isInside()).isFalse();
        assertThat(read("/").isInside()).isFalse();
    }

    @Test
    void readRootsAreReadOnly() {
        assertThat(read(docs.resolve("manual.md").toString()).isInside()).isTrue();
        assertThat(write(docs.resolve("manual.md").toString()).isInside()).isFalse();
    }

    @Test
    void aReadRootInsideNoOtherRootIsContainedOnItsOwn() throws Exception {
        Path sibling = Files.createDirectories(tmp.resolve("docs-extra"));
        Files.writeString(sibling.resolve("x"), "x");
        assertThat(read(sibling.resolve("x").toString()).isInside()).isFalse();
        assertThat(read(docs.resolve("manual.md").toString()).isInside()).isTrue();
    }

    @Test
    void rootsAreComparedByAncestryNotStringPrefix() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path database = Files.createDirectories(tmp.resolve("database"));
        Files.writeString(database.resolve("dump.sql"), "d");
        SandboxPaths onlyData = SandboxPaths.of(data);
        assertThat(containment.resolveRead(database.resolve("dump.sql").toString(), onlyData).isInside()).isFalse();
        assertThat(containment.resolveRead("../database/dump.sql", onlyData).isInside()).isFalse();
    }

    @Test
    void aSymlinkedFileLeavingTheRootIsRefusedWithAbsoluteOrRelativeTarget() throws Exception {
        Files.createSymbolicLink(work.resolve("abs-link"), outside.resolve("secret"));
        Files.createSymbolicLink(work.resolve("rel-link"), Path.of("../outside/secret"));
        assertThat(read("abs-link").isInside()).isFalse();
        assertThat(read("rel-link").isInside()).isFalse();
    }

    @Test
    void aSymlinkedDirectoryLeavingTheRootIsRefused() throws Exception {
        Files.createSymbolicLink(work.resolve("dir-link"), outside);
        assertThat(read("dir-link/secret").isInside()).isFalse();
        assertThat(read("dir-link/not-yet").isInside()).isFalse();
        assertThat(write("dir-link/new-file").isInside()).isFalse();
    }

    @Test
    void dotDotAfterASymlinkedDirectoryFollowsTheLinkFirstAsTheKernelDoes() throws Exception {
        Path deep = Files.createDirectories(outside.resolve("deep"));
        Files.createSymbolicLink(work.resolve("jump"), deep);
        // Lexically "jump/../notes.md" is work/notes.md; the kernel resolves jump first: outside/notes.md.
        Files.writeString(outside.resolve("notes.md"), "outside");
        assertThat(read("jump/../notes.md").isInside()).isFalse();
    }

    @Test
    void aChainOfLinksIsFollowedToItsEnd() throws Exception {
        Files.createSymbolicLink(work.resolve("hop3"), outside.resolve("secret"));
        Files.createSymbolicLink(work.resolve("hop2"), Path.of("hop3"));
        Files.createSymbolicLink(work.resolve("hop1"), work.resolve("hop2"));
        assertThat(read("hop1").isInside()).isFalse();
        Files.createSymbolicLink(work.resolve("in2"), Path.of("notes.md"));
        Files.createSymbolicLink(work.resolve("in1"), Path.of("in2"));
        assertThat(read("in1").path()).isEqualTo(work.toRealPath().resolve("notes.md"));
    }

    @Test
    void aLinkLoopIsRefusedNotSpunOn() throws Exception {
        Files.createSymbolicLink(work.resolve("loop-a"), Path.of("loop-b"));
        Files.createSymbolicLink(work.resolve("loop-b"), Path.of("loop-a"));
        assertThat(read("loop-a").isInside()).isFalse();
        assertThat(write("loop-a/x").isInside()).isFalse();
    }

    @Test
    void aDanglingLinkToOutsideIsRefused() throws Exception {
        Files.createSymbolicLink(work.resolve("dangling"), outside.resolve("does-not-exist"));
        assertThat(read("dangling").isInside()).isFalse();
        assertThat(write("dangling").isInside()).isFalse();
    }

    @Test
    void aFileThatDoesNotExistYetResolvesThroughItsNearestExistingAncestor() throws Exception {
        assertThat(write("sub/new/deeper/file.txt").path())
                .isEqualTo(work.toRealPath().resolve("sub/new/deeper/file.txt"));
        assertThat(read("missing.md").path()).isEqualTo(work.toRealPath().resolve("missing.md"));
    }

    @Test
    void dotDotAfterAMissingComponentIsRefused() {
        assertThat(read("nope/../notes.md").isInside()).isFalse();
        assertThat(write("nope/../../outside/x").isInside()).isFalse();
    }

    @Test
    void writesThroughASymlinkedParentAreRefusedEvenWhenItPointsInside() throws Exception {
        Files.createSymbolicLink(work.resolve("alias"), work.resolve("sub"));
        assertThat(read("alias/new.txt").isInside()).isTrue();
        assertThat(write("alias/new.txt").isInside()).isFalse();
        assertThat(write("sub/new.txt").isInside()).isTrue();
    }

    @Test
    void writesToASymlinkedTargetAreRefusedEvenWhenItPointsInside() throws Exception {
        Files.createSymbolicLink(work.resolve("notes-link"), work.resolve("notes.md"));
        assertThat(write("notes-link").isInside()).isFalse();
        assertThat(write("notes.md").isInside()).isTrue();
    }

    @Test
    void aWriteRootReachedThroughASymlinkIsStillItself() throws Exception {
        Path real = Files.createDirectories(tmp.resolve("real-root"));
        Path alias = Files.createSymbolicLink(tmp.resolve("alias-root"), real);
        SandboxPaths viaAlias = SandboxPaths.of(alias);
        assertThat(containment.resolveWrite("a.txt", viaAlias).path()).isEqualTo(real.toRealPath().resolve("a.txt"));
        assertThat(containment.resolveWrite(alias.resolve("a.txt").toString(), viaAlias).isInside()).isTrue();
        assertThat(containment.resolveWrite(real.resolve("a.txt").toString(), viaAlias).isInside()).isTrue();
    }

    @Test
    void nulBytesEmptyStringsAndOverlongCandidatesAreRefused() {
        for (String bad : List.of("", "notes.md\0.png", "\0", "a/".repeat(3000))) {
            assertThat(read(bad).isInside()).as("read %s", bad.length()).isFalse();
            assertThat(write(bad).isInside()).as("write %s", bad.length()).isFalse();
            assertThat(read(bad).refusal()).isEqualTo("not a valid path");
        }
    }

    @Test
    void refusalsNeverRevealTheRoots() throws Exception {
        Files.createSymbolicLink(work.resolve("leak"), outside);
        for (PathDecision d : List.of(read("../x"), read("leak/secret"), write("leak/y"), read("/etc/passwd"))) {
            assertThat(d.refusal()).doesNotContain(tmp.toString()).doesNotContain(work.toString()).isNotEmpty();
        }
    }

    @Test
    void aFileUsedAsADirectoryIsRefused() {
        assertThat(write("notes.md/child").isInside()).isFalse();
    }

    @Test
    void itIsOnlyThePathHalfAndOffersNoWayToRunACommand() {
        // Before the split it implemented the whole Sandbox port and its runIsolated could only throw.
        assertThat((Object) containment).isInstanceOf(dev.toolyard.spi.PathPolicy.class)
                .isNotInstanceOf(dev.toolyard.spi.IsolatedRunner.class);
    }
}
