package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.builtins.HostTools;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainedDirectoryTest {
    @TempDir
    Path temp;

    Path root;
    Path outside;

    @BeforeEach
    void dirs() throws Exception {
        root = Files.createDirectories(temp.toRealPath().resolve("root"));
        outside = Files.createDirectories(temp.toRealPath().resolve("outside"));
    }

    private static void assertProblem(ThrowingCallable call, Reason reason, String detail) {
        assertThatThrownBy(call).isInstanceOfSatisfying(FileProblem.class, p -> {
            assertThat(p.reason()).isEqualTo(reason);
            assertThat(p.detail()).isEqualTo(detail);
        });
    }

    @Test
    void aWalkRefusesEveryLinkEvenOneThatPointsInside() throws Exception {
        Files.createDirectories(root.resolve("real/inner"));
        Files.createSymbolicLink(root.resolve("alias"), root.resolve("real"));
        Files.createSymbolicLink(root.resolve("away"), outside);

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            assertProblem(() -> r.walk(List.of("alias", "inner")), Reason.PATH_ESCAPE,
                    "alias is a symbolic link; links are never followed once a path was checked");
            assertProblem(() -> r.walk(List.of("away")), Reason.PATH_ESCAPE,
                    "away is a symbolic link; links are never followed once a path was checked");
            try (ContainedDirectory inner = r.walk(List.of("real", "inner"))) {
                assertThat(inner.names()).containsExactly("real", "inner");
                assertThat(inner.display()).isEqualTo("real/inner");
            }
        }
    }

    @Test
    void anOpenRefusesALinkEvenWhenNothingExaminedItFirst() throws Exception {
        Files.writeString(outside.resolve("secret.txt"), "s");
        Files.createSymbolicLink(root.resolve("file-link"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("missing.txt"));

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            for (String name : List.of("file-link", "dangling")) {
                assertProblem(() -> r.openFile(name, Set.of(StandardOpenOption.READ)), Reason.PATH_ESCAPE,
                        name + " is a symbolic link; links are never followed once a path was checked");
                assertProblem(() -> r.openFile(name, Set.of(StandardOpenOption.WRITE)), Reason.PATH_ESCAPE,
                        name + " is a symbolic link; links are never followed once a path was checked");
            }
        }
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("s");
        assertThat(Files.exists(outside.resolve("missing.txt"))).isFalse();
    }

    @Test
    void aFileOrMissingNameIsNoDirectoryToWalkInto() throws Exception {
        Files.writeString(root.resolve("plain.txt"), "x");

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            assertProblem(() -> r.walk(List.of("plain.txt", "below")), Reason.FILE_NOT_FOUND,
                    "plain.txt is not a directory");
            assertProblem(() -> r.walk(List.of("ghost", "below")), Reason.FILE_NOT_FOUND,
                    "no such file or directory: ghost");
        }
    }

    @Test
    void createdDirectoriesLandInPlaceAndLeaveNoTemporaryBehind() throws Exception {
        try (ContainedDirectory r = ContainedDirectory.openRoot(root);
                ContainedDirectory deep = r.walkCreating(List.of("a", "b", "c"), r)) {
            assertThat(deep.display()).isEqualTo("a/b/c");
        }

        assertThat(Files.isDirectory(root.resolve("a/b/c"))).isTrue();
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("a");
        }
    }

    @Test
    void aNameTakenByAFileWhileCreatingIsLeftForTheOpenToJudge() throws Exception {
        Files.writeString(root.resolve("taken"), "x");

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            r.createDirectory("taken", r);
            assertProblem(() -> r.openDirectory("taken"), Reason.FILE_NOT_FOUND, "taken is not a directory");
        }
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("taken");
        }
    }

    @Test
    void aFifoIsRefusedAsADirectoryWithoutBeingOpened() throws Exception {
        HostTools.mkfifo(root.resolve("pipe"));

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            assertProblem(() -> r.openDirectory("pipe"), Reason.FILE_NOT_FOUND, "pipe is not a directory");
            assertThat(r.attributes("pipe").orElseThrow().isOther()).isTrue();
        }
    }

    @Test
    void aRenameReplacesTheTargetAtomicallyAndADeleteOfNothingIsFine() throws Exception {
        Files.writeString(root.resolve("old"), "old");
        Files.writeString(root.resolve("new"), "new");

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            r.rename("new", "old");
            r.deleteIfPresent("never-there");
            r.sync();
        }

        assertThat(Files.readString(root.resolve("old"))).isEqualTo("new");
        assertThat(Files.exists(root.resolve("new"))).isFalse();
    }

    @Test
    void namesAreReadOnceInFileSystemOrder() throws Exception {
        for (String n : List.of("x", "y", "z")) {
            Files.writeString(root.resolve(n), n);
        }
        List<String> seen = new ArrayList<>();

        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            r.forEachName(seen::add);
        }

        assertThat(seen).containsExactlyInAnyOrder("x", "y", "z");
    }

    @Test
    void aRootThatIsMissingOrAFileIsFileNotFound() throws Exception {
        Files.writeString(temp.resolve("file-root"), "x");

        for (Path bad : List.of(temp.resolve("missing-root"), temp.resolve("file-root"))) {
            assertProblem(() -> ContainedDirectory.openRoot(bad), Reason.FILE_NOT_FOUND,
                    "the workspace root does not exist or is not a directory");
        }
    }

    @Test
    void onlyPlainNamesAreAccepted() throws Exception {
        Files.createDirectories(root.resolve("a/b"));
        try (ContainedDirectory r = ContainedDirectory.openRoot(root)) {
            for (String bad : List.of("", ".", "..", "a/b", "../outside", "nul\0")) {
                assertThatThrownBy(() -> r.attributes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> r.openFile(bad, Set.of(StandardOpenOption.READ))).as(bad)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void temporaryNamesAreFixedLengthHiddenAndUnique() {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String n = ContainedDirectory.temporaryName();
            assertThat(n).startsWith(".toolyard-").endsWith(".tmp").hasSize(46);
            names.add(n);
        }
        assertThat(names).hasSize(1000);
    }

    @Test
    void aCreatedFileIsOpenedRelativeToItsDirectory() throws Exception {
        Files.createDirectories(root.resolve("d"));
        try (ContainedDirectory r = ContainedDirectory.openRoot(root);
                ContainedDirectory d = r.walk(List.of("d"));
                FileChannel c = d.openFile("f", Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
            c.write(ByteBuffer.wrap(new byte[] {'o', 'k'}));
        }
        assertThat(Files.readString(root.resolve("d/f"))).isEqualTo("ok");
    }

}
