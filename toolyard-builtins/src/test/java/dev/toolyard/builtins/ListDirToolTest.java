package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.PathAccess;
import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListDirToolTest {
    @TempDir
    Path temp;

    Workspace ws;

    @BeforeEach
    void workspace() throws Exception {
        ws = new Workspace(temp, BuiltinTools.listDir());
    }

    private ToolResult list(String path) {
        return ws.call("list_dir", Map.of("path", path));
    }

    private static void assertProblem(ToolResult r, ToolStatus status, Reason reason) {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.reason()).contains(reason);
        assertThat(r.content()).contains(reason.wireName());
    }

    @Test
    void entriesAreSortedAndMarkedFileDirLinkOrOther() throws Exception {
        ws.file("b.txt", "12345");
        ws.file("a.md", "");
        Files.createDirectories(ws.root.resolve("src/main"));
        Files.createSymbolicLink(ws.root.resolve("latest"), Path.of("b.txt"));
        HostTools.mkfifo(ws.root.resolve("queue"));

        ToolResult r = list(".");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo(
                "file\ta.md\t0 bytes\n"
                + "file\tb.txt\t5 bytes\n"
                + "link\tlatest\n"
                + "other\tqueue\n"
                + "dir\tsrc/\n");
        assertThat(ws.lastRecord().summary()).isEqualTo("listed 5 of 5 entries in .");
    }

    @Test
    void namesSortByUnicodeCodePoint() throws Exception {
        for (String name : List.of("b", "B", "a", "\u00e9", "\ud83d\ude00", "\uff21", "_")) {
            ws.file(name, "");
        }

        ToolResult r = list(".");

        // U+FF21 (a BMP character) sorts before U+1F600 (a surrogate pair), unlike UTF-16 order.
        assertThat(r.content().lines().map(l -> l.split("\t")[1]).toList())
                .containsExactly("B", "_", "a", "b", "\u00e9", "\uff21", "\ud83d\ude00");
    }

    @Test
    void aSubdirectoryIsListedByItsRelativePath() throws Exception {
        ws.file("docs/guide.md", "hello");

        ToolResult r = list("docs");

        assertThat(r.content()).isEqualTo("file\tguide.md\t5 bytes\n");
        assertThat(ws.lastRecord().summary()).isEqualTo("listed 1 of 1 entries in docs");
    }

    @Test
    void aReadRootIsListedToo() throws Exception {
        Files.writeString(ws.readRoot.resolve("manual.txt"), "m");

        ToolResult r = list(ws.readRoot.toString());

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("file\tmanual.txt\t1 byte\n");
    }

    @Test
    void anEmptyDirectorySaysSo() throws Exception {
        Files.createDirectories(ws.root.resolve("empty"));

        assertThat(list("empty").content()).isEqualTo("(empty directory)\n");
    }

    @Test
    void entriesPastTheCapAreCountedInAnOmittedLineAndTheFirstInOrderAreShown() throws Exception {
        Workspace small = new Workspace(temp.resolve("small"), BuiltinTools.listDir(3));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            names.add(String.format("f%02d", i));
        }
        Collections.shuffle(names);
        for (String n : names) {
            Files.writeString(small.root.resolve(n), "");
        }

        ToolResult r = small.call("list_dir", Map.of("path", "."));

        assertThat(r.content()).isEqualTo(
                "file\tf00\t0 bytes\n"
                + "file\tf01\t0 bytes\n"
                + "file\tf02\t0 bytes\n"
                + "[omitted: 47 more entries, 50 in total]\n");
        assertThat(small.lastRecord().summary()).isEqualTo("listed 3 of 50 entries in .");
    }

    @Test
    void oneEntryPastTheCapIsOneMoreEntry() throws Exception {
        Workspace small = new Workspace(temp.resolve("small"), BuiltinTools.listDir(1));
        Files.writeString(small.root.resolve("a"), "");
        Files.writeString(small.root.resolve("b"), "");

        assertThat(small.call("list_dir", Map.of("path", ".")).content())
                .isEqualTo("file\ta\t0 bytes\n[omitted: 1 more entry, 2 in total]\n");
    }

    @Test
    void aLinkOutsideIsListedButNeverFollowedNorItsTargetShown() throws Exception {
        Files.writeString(ws.outside.resolve("secret.txt"), "s");
        Files.createSymbolicLink(ws.root.resolve("escape"), ws.outside);

        ToolResult r = list(".");

        assertThat(r.content()).isEqualTo("link\tescape\n");
        assertThat(r.content()).doesNotContain("secret").doesNotContain("outside");
        assertProblem(list("escape"), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
    }

    @Test
    void aNameCannotForgeALineOfTheListing() throws Exception {
        ws.file("evil\nfile\tforged.txt\t9 bytes", "");
        ws.file("back\\slash\u001b[31m", "");

        ToolResult r = list(".");

        assertThat(r.content()).isEqualTo(
                "file\tback\\\\slash\\u001b[31m\t0 bytes\n"
                + "file\tevil\\nfile\\tforged.txt\\t9 bytes\t0 bytes\n");
        assertThat(r.content().lines()).hasSize(2);
    }

    @Test
    void pathsThatLeaveTheWorkspaceArePathEscape() {
        for (String path : List.of("..", "../outside", ws.outside.toString(), "/")) {
            assertProblem(list(path), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
        }
    }

    @Test
    void aMissingDirectoryIsFileNotFound() {
        ToolResult r = list("nowhere");

        assertProblem(r, ToolStatus.FAILED, Reason.FILE_NOT_FOUND);
        assertThat(r.reasonDetail()).isEqualTo("no such file or directory: nowhere");
    }

    @Test
    void aFileOrFifoIsNotADirectoryAndSaysSoUnderNotARegularFile() throws Exception {
        ws.file("notes.txt", "x");
        HostTools.mkfifo(ws.root.resolve("pipe"));

        ToolResult file = list("notes.txt");
        ToolResult fifo = list("pipe");

        assertProblem(file, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertThat(file.reasonDetail()).isEqualTo("notes.txt is not a directory but a regular file");
        assertProblem(fifo, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertThat(fifo.reasonDetail())
                .isEqualTo("pipe is not a directory but not a regular file (a FIFO, socket or device)");
    }

    @Test
    void argumentsOutsideTheClosedSchemaAreArgsInvalid() {
        for (Map<String, ?> args : List.<Map<String, ?>>of(Map.of(), Map.of("path", ".", "recursive", true),
                Map.of("path", List.of(".")))) {
            assertProblem(ws.call("list_dir", args), ToolStatus.REFUSED, Reason.ARGS_INVALID);
        }
    }

    @Test
    void aDirectoryTheOperatingSystemRefusesIsPermissionDeniedEvenWhenTheTestRunsAsRoot() throws Exception {
        ws.file("closed/inner.txt", "hidden");
        ws.file("open/visible.txt", "v");
        Files.setPosixFilePermissions(ws.root.resolve("closed"), PosixFilePermissions.fromString("-wx------"));

        List<ChildJvm.Outcome> outcomes = ChildJvm.run(HostTools.honouringFileModes(temp), ws.root,
                BuiltinTools.DEFAULT_WRITE_FILE_MAX_BYTES, List.of(
                        new ChildJvm.Call("list_dir", "{\"path\":\"closed\"}"),
                        new ChildJvm.Call("list_dir", "{\"path\":\"open\"}")));

        ChildJvm.Outcome closed = outcomes.get(0);
        assertThat(closed.status()).as(closed.toString()).isEqualTo("FAILED");
        assertThat(closed.reason()).isEqualTo("permission_denied");
        assertThat(closed.recordReason()).isEqualTo("permission_denied");
        assertThat(closed.detail()).isEqualTo("the operating system refused access to closed");
        assertThat(closed.content()).doesNotContain("inner.txt").doesNotContain(temp.toString());
        assertThat(outcomes.get(1).content()).as("the child lists what it may")
                .isEqualTo("file\tvisible.txt\t1 byte\n");
    }

    @Test
    void aParentOrTargetSwappedForALinkAfterTheExecutorResolvedThePathIsNotFollowed() throws Exception {
        Files.createDirectories(ws.root.resolve("sub/inner"));
        Files.writeString(ws.outside.resolve("secret.txt"), "s");
        Files.createDirectories(ws.outside.resolve("inner"));
        Path parentCase = resolved("sub/inner");
        Path targetCase = resolved("sub");
        Files.move(ws.root.resolve("sub"), ws.root.resolve("sub-old"));
        Files.createSymbolicLink(ws.root.resolve("sub"), ws.outside);

        for (Path resolved : List.of(parentCase, targetCase)) {
            ToolOutput out = handle(resolved);
            assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
            assertThat(out.reasonDetail()).isEqualTo(
                    "sub is a symbolic link; links are never followed once a path was checked");
            assertThat(out.content()).doesNotContain("secret");
        }
    }

    @Test
    void aDirectoryFlippingToALinkOutsideWhileListingsRunNeverShowsTheOutside() throws Exception {
        ws.file("sub/inside.txt", "i");
        Files.writeString(ws.outside.resolve("secret.txt"), "s");
        try (LinkFlipper flipper = LinkFlipper.directory(ws.root.resolve("sub"), ws.outside)) {
            for (int i = 0; i < 300; i++) {
                ToolResult r = list("sub");
                assertThat(r.content()).doesNotContain("secret");
                if (r.isOk()) {
                    assertThat(r.content()).isEqualTo("file\tinside.txt\t1 byte\n");
                } else {
                    assertThat(r.reason().orElseThrow()).as(r.reasonDetail())
                            .isIn(Reason.PATH_ESCAPE, Reason.FILE_NOT_FOUND);
                }
            }
            assertThat(flipper.flips()).isPositive();
        }
    }

    private Path resolved(String candidate) {
        return ws.resolved(candidate, PathAccess.READ);
    }

    private ToolOutput handle(Path resolved) throws Exception {
        return ws.handleDirectly(BuiltinTools.listDir(), resolved, Map.of());
    }
}
