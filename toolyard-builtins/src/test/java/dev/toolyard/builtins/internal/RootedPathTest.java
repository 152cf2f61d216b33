package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RootedPathTest {
    @TempDir
    Path temp;

    Path write;
    Path read;
    SandboxPaths workspace;

    @BeforeEach
    void roots() throws Exception {
        write = Files.createDirectories(temp.toRealPath().resolve("data"));
        read = Files.createDirectories(temp.toRealPath().resolve("database"));
        workspace = SandboxPaths.of(write, read);
    }

    @Test
    void aPathForReadingIsSplitUnderTheRootThatHoldsIt() throws Exception {
        RootedPath inRead = RootedPath.forReading(read.resolve("docs/guide.md"), workspace);
        RootedPath inWrite = RootedPath.forReading(write.resolve("a.txt"), workspace);

        assertThat(inRead.root()).isEqualTo(read);
        assertThat(inRead.names()).containsExactly("docs", "guide.md");
        assertThat(inRead.parentNames()).containsExactly("docs");
        assertThat(inRead.fileName()).isEqualTo("guide.md");
        assertThat(inWrite.root()).isEqualTo(write);
        assertThat(inWrite.display()).isEqualTo("a.txt");
    }

    @Test
    void aPathForWritingMustBeUnderTheWriteRoot() throws Exception {
        assertThat(RootedPath.forWriting(write.resolve("x/y.txt"), workspace).names()).containsExactly("x", "y.txt");
        assertThatThrownBy(() -> RootedPath.forWriting(read.resolve("y.txt"), workspace))
                .isInstanceOfSatisfying(FileProblem.class, p -> assertThat(p.reason()).isEqualTo(Reason.PATH_ESCAPE));
    }

    @Test
    void aSiblingRootThatSharesAPrefixIsNotInsideByStringPrefix() throws Exception {
        Path sneaky = temp.toRealPath().resolve("data-other/x.txt");

        assertThatThrownBy(() -> RootedPath.forReading(sneaky, workspace)).isInstanceOf(FileProblem.class);
        assertThatThrownBy(() -> RootedPath.forWriting(sneaky, workspace)).isInstanceOf(FileProblem.class);
    }

    @Test
    void aRelativeOrUnnormalisedPathIsNotAResolvedPath() {
        for (Path p : List.of(Path.of("a.txt"), write.resolve("sub/../a.txt"), write.resolve("../data/a.txt"))) {
            assertThatThrownBy(() -> RootedPath.forReading(p, workspace)).as(p.toString())
                    .isInstanceOfSatisfying(FileProblem.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.PATH_ESCAPE);
                        assertThat(e.detail()).doesNotContain(temp.toString());
                    });
        }
    }

    @Test
    void theRootItselfHasNoNamesAndDisplaysAsADot() throws Exception {
        RootedPath root = RootedPath.forReading(write, workspace);

        assertThat(root.isRoot()).isTrue();
        assertThat(root.display()).isEqualTo(".");
        assertThat(root.parentNames()).isEmpty();
        assertThatThrownBy(root::fileName).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theDisplayIsRelativeWithEachNameEscaped() {
        assertThat(new RootedPath(write, List.of("a b", "line\nbreak")).display()).isEqualTo("a b/line\\nbreak");
    }

    @Test
    void namesMustBePlainNames() {
        for (String bad : List.of("", ".", "..", "a/b", "nul\0")) {
            assertThatThrownBy(() -> new RootedPath(write, List.of(bad))).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
