package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.PathAccess;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadFileToolTest {
    @TempDir
    Path temp;

    Workspace ws;

    @BeforeEach
    void workspace() throws Exception {
        ws = new Workspace(temp, BuiltinTools.readFile());
    }

    private ToolResult read(String path) {
        return ws.call("read_file", Map.of("path", path));
    }

    private static void assertProblem(ToolResult r, ToolStatus status, Reason reason) {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.reason()).contains(reason);
        assertThat(r.content()).contains(reason.wireName());
    }

    @Test
    void aUtf8FileIsReturnedWholeAndTheRecordKeepsASummaryNotTheText() throws Exception {
        ws.file("notes/today.md", "buy milk\nb\u00e4ck \u2603 \ud83d\ude00\n");

        ToolResult r = read("notes/today.md");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.reason()).isEmpty();
        assertThat(r.content()).isEqualTo("buy milk\nb\u00e4ck \u2603 \ud83d\ude00\n");
        ToolCallRecord record = ws.lastRecord();
        assertThat(record.status()).isEqualTo(ToolStatus.OK);
        assertThat(record.summary()).isEqualTo("read 24 bytes from notes/today.md");
    }

    @Test
    void anEmptyFileIsAnEmptyText() throws Exception {
        ws.file("empty.txt", "");

        ToolResult r = read("empty.txt");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEmpty();
    }

    @Test
    void aFileInAReadRootIsReadByItsAbsolutePath() throws Exception {
        Files.writeString(ws.readRoot.resolve("guide.md"), "read me");

        ToolResult r = read(ws.readRoot.resolve("guide.md").toString());

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("read me");
        assertThat(ws.lastRecord().summary()).isEqualTo("read 7 bytes from guide.md");
    }

    @Test
    void aLinkThatStaysInsideTheWorkspaceIsReadAsItsTarget() throws Exception {
        ws.file("real.txt", "target text");
        Files.createSymbolicLink(ws.root.resolve("alias.txt"), Path.of("real.txt"));

        ToolResult r = read("alias.txt");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("target text");
    }

    @Test
    void pathsThatLeaveTheWorkspaceArePathEscape() throws Exception {
        Files.writeString(ws.outside.resolve("secret.txt"), "outside secret");
        Files.createSymbolicLink(ws.root.resolve("leak.txt"), ws.outside.resolve("secret.txt"));
        Files.createSymbolicLink(ws.root.resolve("leakdir"), ws.outside);

        for (String path : List.of("../outside/secret.txt", ws.outside.resolve("secret.txt").toString(), "leak.txt",
                "leakdir/secret.txt", "/etc/passwd")) {
            ToolResult r = read(path);
            assertProblem(r, ToolStatus.REFUSED, Reason.PATH_ESCAPE);
            assertThat(r.content()).doesNotContain("outside secret");
        }
    }

    @Test
    void aMissingFileIsFileNotFound() {
        ToolResult r = read("nope/missing.txt");

        assertProblem(r, ToolStatus.FAILED, Reason.FILE_NOT_FOUND);
        assertThat(r.reasonDetail()).isEqualTo("no such file or directory: nope");
        assertThat(read("missing.txt").reasonDetail()).isEqualTo("no such file or directory: missing.txt");
    }

    @Test
    void aWriteRootThatDoesNotExistIsFileNotFound() throws Exception {
        Workspace missing = Workspace.withoutWriteRoot(temp.resolve("elsewhere"), BuiltinTools.readFile());

        ToolResult r = missing.call("read_file", Map.of("path", "a.txt"));

        assertProblem(r, ToolStatus.FAILED, Reason.FILE_NOT_FOUND);
        assertThat(r.reasonDetail()).isEqualTo("the workspace root does not exist or is not a directory");
    }

    @Test
    void aDirectoryIsNotARegularFile() throws Exception {
        Files.createDirectories(ws.root.resolve("docs"));

        ToolResult r = read("docs");

        assertProblem(r, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertThat(r.reasonDetail()).isEqualTo("docs is a directory");
        assertProblem(read("."), ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
    }

    @Test
    void aFifoIsNotARegularFileAndIsNeverOpened() throws Exception {
        HostTools.mkfifo(ws.root.resolve("pipe"));

        // Opening a FIFO for reading blocks until a writer comes; the 20 s deadline would show it as TIMEOUT.
        ToolResult r = read("pipe");

        assertProblem(r, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        assertThat(r.reasonDetail()).isEqualTo("pipe is not a regular file (a FIFO, socket or device)");
        assertThat(r.duration()).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void aSocketIsNotARegularFile() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(ws.root.resolve("sock")));

            assertProblem(read("sock"), ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        }
    }

    @Test
    void aDeviceIsNotARegularFileAndIsNeverRead() throws Exception {
        Workspace devices = new Workspace(temp.resolve("devices"), BuiltinTools.readFile());
        // /dev as a read root: reading /dev/zero would never end, and only the refusal shows /dev/null was not read.
        ToolContext withDev = ToolContext.of("inv-dev", SandboxPaths.of(devices.root, Path.of("/dev")));
        for (String device : List.of("/dev/zero", "/dev/null")) {
            ToolResult r = devices.executor.execute(ToolCallRequest.of("read_file", Map.of("path", device)), withDev);
            assertProblem(r, ToolStatus.FAILED, Reason.NOT_A_REGULAR_FILE);
        }
    }

    @Test
    void bytesThatAreNotUtf8AreNotUtf8WithTheOffsetOfTheFirstBadByte() throws Exception {
        byte[][] invalid = {
            {'o', 'k', (byte) 0xff},                        // never valid
            {'a', (byte) 0xc0, (byte) 0xaf},                // overlong '/'
            {'a', 'b', (byte) 0xed, (byte) 0xa0, (byte) 0x80}, // a UTF-16 surrogate encoded as UTF-8
            {'a', 'b', 'c', (byte) 0xe2, (byte) 0x82},      // truncated at the end
            {(byte) 0xfe, (byte) 0xff, 0, 'a'},             // UTF-16 with a byte order mark
        };
        int[] offsets = {2, 1, 2, 3, 0};
        for (int i = 0; i < invalid.length; i++) {
            Files.write(ws.root.resolve("bin" + i), invalid[i]);

            ToolResult r = read("bin" + i);

            assertProblem(r, ToolStatus.FAILED, Reason.NOT_UTF8);
            assertThat(r.reasonDetail()).contains("first invalid byte at offset " + offsets[i]);
        }
    }

    @Test
    void aFileOverTheCapIsTooLargeAndRefusedWhole() throws Exception {
        Workspace small = new Workspace(temp.resolve("small"), BuiltinTools.readFile(1024));
        Files.writeString(small.root.resolve("exact.txt"), "x".repeat(1024));
        Files.writeString(small.root.resolve("over.txt"), "y".repeat(1025));

        ToolResult exact = small.call("read_file", Map.of("path", "exact.txt"));
        ToolResult over = small.call("read_file", Map.of("path", "over.txt"));

        assertThat(exact.status()).isEqualTo(ToolStatus.OK);
        assertThat(exact.content()).hasSize(1024);
        assertProblem(over, ToolStatus.REFUSED, Reason.TOO_LARGE);
        assertThat(over.reasonDetail()).isEqualTo("over.txt is 1025 bytes, over this tool's cap of 1024;"
                + " nothing of it is returned");
        assertThat(over.content()).doesNotContain("yyyy");
    }

    @Test
    void argumentsOutsideTheClosedSchemaAreArgsInvalid() {
        for (Map<String, ?> args : List.<Map<String, ?>>of(Map.of(), Map.of("path", "a.txt", "encoding", "latin1"),
                Map.of("path", 7), Map.of("path", ""))) {
            assertProblem(ws.call("read_file", args), ToolStatus.REFUSED, Reason.ARGS_INVALID);
        }
    }

    @Test
    void aFileTheOperatingSystemRefusesIsPermissionDeniedEvenWhenTheTestRunsAsRoot() throws Exception {
        ws.file("locked.txt", "private");
        ws.file("open.txt", "public");
        Files.setPosixFilePermissions(ws.root.resolve("locked.txt"), PosixFilePermissions.fromString("---------"));
        Files.createDirectories(ws.root.resolve("closed"));

        List<ChildJvm.Outcome> outcomes = ChildJvm.run(HostTools.honouringFileModes(temp), ws.root,
                BuiltinTools.DEFAULT_WRITE_FILE_MAX_BYTES, List.of(
                        new ChildJvm.Call("read_file", "{\"path\":\"locked.txt\"}"),
                        new ChildJvm.Call("read_file", "{\"path\":\"open.txt\"}")));

        ChildJvm.Outcome locked = outcomes.get(0);
        assertThat(locked.status()).isEqualTo("FAILED");
        assertThat(locked.reason()).isEqualTo("permission_denied");
        assertThat(locked.recordStatus()).isEqualTo("FAILED");
        assertThat(locked.recordReason()).isEqualTo("permission_denied");
        assertThat(locked.detail()).isEqualTo("the operating system refused access to locked.txt");
        assertThat(locked.content()).doesNotContain("private").doesNotContain(temp.toString());
        assertThat(outcomes.get(1).status()).as("the child reads what it may").isEqualTo("OK");
        assertThat(outcomes.get(1).content()).isEqualTo("public");
    }

    @Test
    void aParentSwappedForALinkAfterTheExecutorResolvedThePathIsNotFollowed() throws Exception {
        ws.file("sub/data.txt", "inside");
        Files.writeString(ws.outside.resolve("data.txt"), "outside secret");
        Path resolved = resolved("sub/data.txt");
        Files.move(ws.root.resolve("sub"), ws.root.resolve("sub-old"));
        Files.createSymbolicLink(ws.root.resolve("sub"), ws.outside);

        ToolOutput out = handle(resolved);

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(out.reasonDetail()).isEqualTo(
                "sub is a symbolic link; links are never followed once a path was checked");
        assertThat(out.content()).doesNotContain("outside secret");
    }

    @Test
    void aFileSwappedForALinkAfterTheExecutorResolvedThePathIsNotFollowed() throws Exception {
        ws.file("data.txt", "inside");
        Files.writeString(ws.outside.resolve("data.txt"), "outside secret");
        Path resolved = resolved("data.txt");
        Files.delete(resolved);
        Files.createSymbolicLink(resolved, ws.outside.resolve("data.txt"));

        ToolOutput out = handle(resolved);

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(out.content()).doesNotContain("outside secret");
    }

    @Test
    void aPathTheExecutorDidNotResolveForThisWorkspaceIsPathEscape() throws Exception {
        Files.writeString(ws.outside.resolve("data.txt"), "outside secret");

        ToolOutput out = handle(ws.outside.resolve("data.txt"));

        assertThat(out.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(out.reasonDetail()).isEqualTo("the path resolves outside the workspace");
    }

    @Test
    void aDirectoryFlippingToALinkOutsideWhileReadsRunNeverLeaksTheOutside() throws Exception {
        ws.file("sub/data.txt", "inside");
        Files.writeString(ws.outside.resolve("data.txt"), "outside secret");
        try (LinkFlipper flipper = LinkFlipper.directory(ws.root.resolve("sub"), ws.outside)) {
            for (int i = 0; i < 300; i++) {
                ToolResult r = read("sub/data.txt");
                assertThat(r.content()).doesNotContain("outside secret");
                if (r.isOk()) {
                    assertThat(r.content()).isEqualTo("inside");
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
        return ws.handleDirectly(BuiltinTools.readFile(), resolved, Map.of());
    }
}
