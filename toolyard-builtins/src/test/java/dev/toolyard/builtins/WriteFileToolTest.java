package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.PathAccess;
import dev.toolyard.Reason;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteFileToolTest {
    @TempDir
    Path temp;

    Workspace ws;

    @BeforeEach
    void workspace() throws Exception {
        ws = new Workspace(temp, BuiltinTools.writeFile());
    }

    private ToolResult write(String path, String content) {
        return ws.call("write_file", Map.of("path", path, "content", content));
    }

    private static void assertProblem(ToolResult r, ToolStatus status, Reason reason) {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.reason()).contains(reason);
        assertThat(r.content()).contains(reason.wireName());
    }

    @Test
    void aNewFileIsCreatedWithItsMissingParentsInsideTheWriteRoot() throws Exception {
        ToolResult r = write("notes/2024/today.md", "buy milk \u2603\n");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("created notes/2024/today.md with 13 bytes");
        assertThat(ws.lastRecord().summary()).isEqualTo("created notes/2024/today.md with 13 bytes");
        assertThat(Files.readString(ws.root.resolve("notes/2024/today.md"))).isEqualTo("buy milk \u2603\n");
        assertThat(Workspace.namesIn(ws.root)).containsExactly("notes");
        assertThat(Workspace.namesIn(ws.root.resolve("notes"))).containsExactly("2024");
    }

    @Test
    void anExistingFileIsReplacedWholeAndKeepsItsPermissionBits() throws Exception {
        Path file = ws.file("script.sh", "a much longer old content that must not survive at the end");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));

        ToolResult r = write("script.sh", "new");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("replaced script.sh with 3 bytes");
        assertThat(Files.readString(file)).isEqualTo("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rwxr-x---");
        assertThat(Workspace.namesIn(ws.root)).containsExactly("script.sh");
    }

    @Test
    void anEmptyContentMakesAnEmptyFile() throws Exception {
        assertThat(write("empty.txt", "").status()).isEqualTo(ToolStatus.OK);
        assertThat(Files.size(ws.root.resolve("empty.txt"))).isZero();
    }

    @Test
    void pathsOutsideTheWriteRootArePathEscapeAndWriteNothing() throws Exception {
        Files.createSymbolicLink(ws.root.resolve("out"), ws.outside);
        for (String path : List.of("../outside/a.txt", ws.outside.resolve("b.txt").toString(), "out/c.txt",
                ws.readRoot.resolve("d.txt").toString(), "/etc/toolyard-test.txt")) {
            assertProblem(write(path, "x"), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
        }
        assertThat(Workspace.namesIn(ws.outside)).isEmpty();
        assertThat(Workspace.namesIn(ws.readRoot)).isEmpty();
        assertThat(Files.exists(Path.of("/etc/toolyard-test.txt"))).isFalse();
    }

    @Test
    void aSymlinkedTargetOrParentIsRefusedEvenWhenItPointsInside() throws Exception {
        Path real = ws.file("real/file.txt", "original");
        Files.createSymbolicLink(ws.root.resolve("alias.txt"), real);
        Files.createSymbolicLink(ws.root.resolve("aliasdir"), ws.root.resolve("real"));

        assertProblem(write("alias.txt", "x"), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
        assertProblem(write("aliasdir/file.txt", "x"), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
        assertProblem(write("aliasdir/new.txt", "x"), ToolStatus.REFUSED, Reason.PATH_ESCAPE);
        assertThat(Files.readString(real)).isEqualTo("original");
        assertThat(Workspace.namesIn(ws.root.resolve("real"))).containsExactly("file.txt");
    }

    @Test
    void contentOverTheCapIsTooLargeAndNothingIsWritten() throws Exception {
        Workspace small = new Workspace(temp.resolve("small"), BuiltinTools.writeFile(1024));
        small.file("kept.txt", "old");

        ToolResult exact = small.call("write_file", Map.of("path", "exact.txt", "content", "\u00e9".repeat(512)));
        ToolResult over = small.call("write_file", Map.of("path", "kept.txt", "content", "\u00e9".repeat(512) + "x"));

        assertThat(exact.status()).isEqualTo(ToolStatus.OK);
        assertProblem(over, ToolStatus.REFUSED, Reason.TOO_LARGE);
        assertThat(over.reasonDetail()).isEqualTo(
                "the content is 1025 bytes, over this tool's cap of 1024; nothing was written");
        assertThat(Files.readString(small.root.resolve("kept.txt"))).isEqualTo("old");
        assertThat(Workspace.namesIn(small.root)).containsExactly("exact.txt", "kept.txt");
    }

    @Test
    void contentThatIsNotValidUnicodeIsArgsInvalidAndNothingIsWritten() throws Exception {
        ToolResult r = ws.executor.execute(ToolCallRequest.of("write_file",
                "{\"path\":\"a.txt\",\"content\":\"half a pair: \\ud800\"}"), ws.context);

        assertProblem(r, ToolStatus.REFUSED, Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).contains("unpaired surrogate");
        assertThat(ws.lastRecord().reason()).contains(Reason.ARGS_INVALID);
        assertThat(Workspace.namesIn(ws.root)).isEmpty();
    }

    @Test
    void argumentsOutsideTheClosedSchemaAreArgsInvalid() {
        for (Map<String, ?> args : List.<Map<String, ?>>of(Map.of("path", "a.txt"), Map.of("content", "x"),
                Map.of("path", "a.txt", "content", 5), Map.of("path", "a.txt", "content", "x", "mode", "append"),
                Map.of("path", "", "content", "x"))) {
            assertProblem(ws.call("write_file", args), ToolStatus.REFUSED, Reason.ARGS_INVALID);
        }
    }

    @Test
    void aWriteRootThatDoesNotExistIsFileNotFoundAndIsNotCreated() throws Exception {
        Workspace missing = Workspace.withoutWriteRoot(temp.resolve("elsewhere"), BuiltinTools.writeFile());

        ToolResult r = missing.call("write_file", Map.of("path", "a.txt", "content", "x"));

        assertProblem(r, ToolStatus.FAILED, Reason.FILE_NOT_FOUND);
        assertThat(Files.exists(missing.root)).isFalse();
    }

    @Test
    void aDirectoryFifoOrSocketTargetIsNotARegularFileAndIsLeftAlone() throws Exception {
        Files.createDirectories(ws.root.resolve("docs/inner"));
        HostTools.mkfifo(ws.root.resolve("pipe"));

        assertProblem(write("docs", "x"), ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertProblem(write(".", "x"), ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        ToolResult fifo = write("pipe", "x");

        assertProblem(fifo, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertThat(fifo.reasonDetail()).isEqualTo("pipe is not a regular file (a FIFO, socket or device)");
        assertThat(Files.isDirectory(ws.root.resolve("docs/inner"))).isTrue();
        assertThat(Workspace.namesIn(ws.root)).containsExactly("docs", "pipe");
    }

    @Test
    void aFileOrDirectoryTheOperatingSystemRefusesIsPermissionDeniedEvenWhenTheTestRunsAsRoot() throws Exception {
        Path readOnly = ws.file("readonly.txt", "keep");
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r--r--r--"));
        Files.createDirectories(ws.root.resolve("sealed"));
        Files.setPosixFilePermissions(ws.root.resolve("sealed"), PosixFilePermissions.fromString("r-xr-xr-x"));

        List<ChildJvm.Outcome> outcomes = ChildJvm.run(HostTools.honouringFileModes(temp), ws.root,
                BuiltinTools.DEFAULT_WRITE_FILE_MAX_BYTES, List.of(
                        new ChildJvm.Call("write_file", "{\"path\":\"readonly.txt\",\"content\":\"x\"}"),
                        new ChildJvm.Call("write_file", "{\"path\":\"sealed/new.txt\",\"content\":\"x\"}"),
                        new ChildJvm.Call("write_file", "{\"path\":\"sealed/deeper/new.txt\",\"content\":\"x\"}"),
                        new ChildJvm.Call("write_file", "{\"path\":\"free.txt\",\"content\":\"x\"}")));

        for (ChildJvm.Outcome o : outcomes.subList(0, 3)) {
            assertThat(o.status()).as(o.toString()).isEqualTo("FAILED");
            assertThat(o.reason()).as(o.toString()).isEqualTo("permission_denied");
            assertThat(o.recordReason()).isEqualTo("permission_denied");
            assertThat(o.content()).doesNotContain(temp.toString());
        }
        assertThat(outcomes.get(0).detail()).isEqualTo("the operating system refused access to readonly.txt");
        assertThat(outcomes.get(3).status()).as("the child writes where it may").isEqualTo("OK");
        assertThat(Files.readString(readOnly)).isEqualTo("keep");
        assertThat(Workspace.namesIn(ws.root.resolve("sealed"))).isEmpty();
        assertThat(Workspace.namesIn(ws.root)).containsExactly("free.txt", "readonly.txt", "sealed");
    }

    @Test
    void anImmutableFileIsPermissionDeniedEvenForRootAndKeepsItsContent() throws Exception {
        Path locked = ws.file("locked.txt", "immutable");
        HostTools.immutable(locked, true);
        try {
            ToolResult r = write("locked.txt", "changed");

            assertProblem(r, ToolStatus.FAILED, Reason.PERMISSION_DENIED);
            assertThat(Files.readString(locked)).isEqualTo("immutable");
            assertThat(Workspace.namesIn(ws.root)).containsExactly("locked.txt");
        } finally {
            HostTools.immutable(locked, false);
        }
    }

    @Test
    void aWriteThatFailsHalfwayLeavesTheOldFileAndNoPartialFile() throws Exception {
        Path file = ws.file("big.txt", "old content");
        Optional<Path> prlimit = HostTools.which("prlimit");
        HostTools.require(prlimit.isPresent(), "prlimit (util-linux) is not installed");
        Path argsFile = temp.resolve("args.json");
        Files.writeString(argsFile, "{\"path\":\"big.txt\",\"content\":\"" + "z".repeat(512 * 1024) + "\"}");

        // The child may not grow any file past 256 KiB, so the 512 KiB write stops halfway with EFBIG.
        List<ChildJvm.Outcome> outcomes = ChildJvm.run(
                List.of(prlimit.get().toString(), "--fsize=262144", "--"), ws.root,
                BuiltinTools.DEFAULT_WRITE_FILE_MAX_BYTES,
                List.of(new ChildJvm.Call("write_file", "@" + argsFile)));

        ChildJvm.Outcome o = outcomes.get(0);
        assertThat(o.status()).isEqualTo("FAILED");
        assertThat(o.reason()).isEqualTo("handler_error");
        assertThat(o.detail()).isEqualTo("java.io.IOException");
        assertThat(o.recordReason()).isEqualTo("handler_error");
        assertThat(Files.readString(file)).isEqualTo("old content");
        assertThat(Workspace.namesIn(ws.root)).containsExactly("big.txt");
    }

    @Test
    void aReaderNeverSeesHalfAFile() throws Exception {
        int size = 256 * 1024;
        String as = "a".repeat(size);
        String bs = "b".repeat(size);
        write("shared.txt", as);
        Path shared = ws.root.resolve("shared.txt");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<String> torn = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    byte[] seen = Files.readAllBytes(shared);
                    String text = new String(seen, StandardCharsets.UTF_8);
                    if (!text.equals(as) && !text.equals(bs)) {
                        torn.compareAndSet(null, "read " + seen.length + " bytes, mixed or short");
                    }
                    reads.incrementAndGet();
                } catch (Exception e) {
                    torn.compareAndSet(null, e.toString());
                }
            }
        });
        reader.start();
        try {
            for (int i = 0; i < 60; i++) {
                assertThat(write("shared.txt", i % 2 == 0 ? bs : as).status()).isEqualTo(ToolStatus.OK);
            }
        } finally {
            stop.set(true);
            reader.join();
        }
        assertThat(torn.get()).isNull();
        assertThat(reads.get()).isPositive();
    }

    @Test
    void aHardLinkToAFileOutsideIsReplacedNeverWrittenThrough() throws Exception {
        Path outsideFile = Files.writeString(ws.outside.resolve("shared.txt"), "outside original");
        Files.createLink(ws.root.resolve("linked.txt"), outsideFile);

        ToolResult r = write("linked.txt", "new inside");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(Files.readString(ws.root.resolve("linked.txt"))).isEqualTo("new inside");
        assertThat(Files.readString(outsideFile)).isEqualTo("outside original");
    }

    @Test
    void aParentSwappedForALinkAfterTheExecutorResolvedThePathIsNotFollowed() throws Exception {
        ws.file("sub/keep.txt", "inside");
        Path resolved = resolved("sub/new.txt");
        Files.move(ws.root.resolve("sub"), ws.root.resolve("sub-old"));
        Files.createSymbolicLink(ws.root.resolve("sub"), ws.outside);

        ToolOutput out = handle(resolved, "planted");

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(out.reasonDetail()).isEqualTo(
                "sub is a symbolic link; links are never followed once a path was checked");
        assertThat(Workspace.namesIn(ws.outside)).isEmpty();
        assertThat(Workspace.namesIn(ws.root)).containsExactly("sub", "sub-old");
    }

    @Test
    void aMissingParentPlantedAsALinkAfterTheExecutorResolvedThePathIsNotFollowed() throws Exception {
        Path resolved = resolved("fresh/deeper/new.txt");
        Files.createSymbolicLink(ws.root.resolve("fresh"), ws.outside);

        ToolOutput out = handle(resolved, "planted");

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(Workspace.namesIn(ws.outside)).isEmpty();
        assertThat(Workspace.namesIn(ws.root)).containsExactly("fresh");
    }

    @Test
    void aTargetSwappedForALinkAfterTheExecutorResolvedThePathIsRefusedAndTheOutsideFileUntouched() throws Exception {
        Path target = ws.file("target.txt", "inside");
        Path outsideFile = Files.writeString(ws.outside.resolve("victim.txt"), "outside original");
        Path resolved = resolved("target.txt");
        Files.delete(target);
        Files.createSymbolicLink(target, outsideFile);

        ToolOutput out = handle(resolved, "planted");

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(Files.readString(outsideFile)).isEqualTo("outside original");
        assertThat(Files.isSymbolicLink(target)).isTrue();
    }

    @Test
    void aParentThatBecameAFileAfterTheExecutorResolvedThePathIsFileNotFound() throws Exception {
        Path resolved = resolved("later/new.txt");
        ws.file("later", "now a file");

        ToolOutput out = handle(resolved, "x");

        assertThat(out.reason()).contains(Reason.FILE_NOT_FOUND);
        assertThat(out.reasonDetail()).isEqualTo("later is not a directory");
    }

    @Test
    void aPathTheExecutorDidNotResolveForThisWorkspaceIsPathEscape() throws Exception {
        ToolOutput out = handle(ws.outside.resolve("x.txt"), "x");

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(Workspace.namesIn(ws.outside)).isEmpty();
    }

    @Test
    void aDirectoryFlippingToALinkOutsideWhileWritesRunNeverLetsAWriteOut() throws Exception {
        ws.file("sub/data.txt", "inside");
        try (LinkFlipper flipper = LinkFlipper.directory(ws.root.resolve("sub"), ws.outside)) {
            for (int i = 0; i < 300; i++) {
                ToolResult r = write("sub/data.txt", "write " + i);
                if (!r.isOk()) {
                    assertThat(r.reason().orElseThrow()).as(r.reasonDetail())
                            .isIn(Reason.PATH_ESCAPE, Reason.FILE_NOT_FOUND);
                }
            }
            assertThat(flipper.flips()).isPositive();
        }
        assertThat(Workspace.namesIn(ws.outside)).isEmpty();
    }

    @Test
    void aFileFlippingToALinkOutsideWhileWritesRunNeverWritesTheOutsideFile() throws Exception {
        ws.file("data.txt", "inside");
        Path victim = Files.writeString(ws.outside.resolve("victim.txt"), "outside original");
        try (LinkFlipper flipper = LinkFlipper.file(ws.root.resolve("data.txt"), victim)) {
            for (int i = 0; i < 300; i++) {
                ToolResult r = write("data.txt", "write " + i);
                if (!r.isOk()) {
                    assertThat(r.reason().orElseThrow()).as(r.reasonDetail()).isEqualTo(Reason.PATH_ESCAPE);
                }
            }
            assertThat(flipper.flips()).isPositive();
        }
        assertThat(Files.readString(victim)).isEqualTo("outside original");
        assertThat(Workspace.namesIn(ws.outside)).containsExactly("victim.txt");
    }

    private Path resolved(String candidate) {
        return ws.resolved(candidate, PathAccess.WRITE);
    }

    private ToolOutput handle(Path resolved, String content) throws Exception {
        return ws.handleDirectly(BuiltinTools.writeFile(), resolved, Map.of("content", content));
    }
}
