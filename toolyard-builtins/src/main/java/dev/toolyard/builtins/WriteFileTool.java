package dev.toolyard.builtins;

import dev.toolyard.EgressClass;
import dev.toolyard.PathAccess;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.Tool;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.internal.ContainedDirectory;
import dev.toolyard.builtins.internal.FileProblem;
import dev.toolyard.builtins.internal.RootedPath;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import java.util.Set;

/**
 * {@code write_file}: one text file in the write root, written whole and atomically. The content goes
 * to a temporary file in the target's own directory, is flushed to disk, and is renamed over the
 * target ({@code renameat}), so a reader sees the old file or the new one, never a mix, and a failure
 * leaves the old file and no temporary behind. Missing parent directories are created inside the
 * root. Every step is relative to a directory opened from the root without following a link, so a
 * symbolic link as the target or any parent, even one swapped in after the executor's check, is
 * refused ({@code path_escape}). A replaced file keeps its permission bits (not its owner, ACLs,
 * extended attributes or other hard links); an existing file this process may not write is refused
 * ({@code permission_denied}) rather than replaced. Immutable. Thread-safe.
 */
final class WriteFileTool implements ToolHandler {
    static final String NAME = "write_file";
    static final long DEFAULT_MAX_BYTES = 1L << 20;
    private static final String PATH = "path";
    private static final String CONTENT = "content";

    private final long maxBytes;

    private WriteFileTool(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** @param maxBytes a cap already checked by {@link BuiltinTools} */
    static Tool create(long maxBytes) {
        return new Tool(spec(maxBytes), new WriteFileTool(maxBytes));
    }

    static ToolSpec spec(long maxBytes) {
        return ToolSpec.builder(NAME)
                .description("Write a text file in the workspace, replacing it whole if it exists and creating"
                        + " missing parent directories. The content is stored as UTF-8, at most " + maxBytes
                        + " bytes. The write is atomic: the file holds its old content or its new content, never"
                        + " a mix. Relative paths start at the workspace root.")
                .argsSchema("{\"type\":\"object\",\"properties\":{"
                        + "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
                        + "\"description\":\"The file to write, relative to the workspace root.\"},"
                        + "\"content\":{\"type\":\"string\","
                        + "\"description\":\"The complete new content of the file.\"}},"
                        + "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.WRITE)
                .egress(EgressClass.NONE)
                .pathArg(PATH, PathAccess.WRITE)
                .cooperative(true) // bounded by its size cap
                .build();
    }

    @Override
    public ToolOutput handle(ToolArgs args, ToolContext context) throws IOException {
        try {
            RootedPath target = RootedPath.forWriting(args.path(PATH), context.workspace());
            return write(target, encode(args.string(CONTENT)));
        } catch (FileProblem p) {
            return p.toOutput();
        }
    }

    private ByteBuffer encode(String content) throws FileProblem {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(content));
            if (bytes.remaining() > maxBytes) {
                throw new FileProblem(Reason.TOO_LARGE, "the content is " + bytes.remaining()
                        + " bytes, over this tool's cap of " + maxBytes + "; nothing was written");
            }
            return bytes;
        } catch (CharacterCodingException e) {
            throw new FileProblem(Reason.ARGS_INVALID,
                    "the content is not valid Unicode (it holds an unpaired surrogate); nothing was written");
        }
    }

    private ToolOutput write(RootedPath target, ByteBuffer bytes) throws FileProblem, IOException {
        String shown = target.display();
        if (target.isRoot()) {
            throw new FileProblem(Reason.NOT_A_REGULAR_FILE, shown + " is a directory");
        }
        String name = target.fileName();
        int length = bytes.remaining();
        boolean created;
        try (ContainedDirectory root = ContainedDirectory.openRoot(target.root());
                ContainedDirectory dir = root.walkCreating(target.parentNames(), root)) {
            Optional<Set<PosixFilePermission>> keep = Optional.empty();
            Optional<BasicFileAttributes> existing = dir.attributes(name);
            created = existing.isEmpty();
            if (existing.isPresent()) {
                BasicFileAttributes a = existing.get();
                if (a.isSymbolicLink()) {
                    throw ContainedDirectory.linkRefused(shown);
                }
                if (!a.isRegularFile()) {
                    throw new FileProblem(Reason.NOT_A_REGULAR_FILE, shown + " is " + ReadFileTool.kind(a));
                }
                // Renaming over a file needs only the directory's permission: ask the kernel whether this
                // process may write the file itself (open for writing, no truncation, nothing written).
                dir.openFile(name, Set.of(StandardOpenOption.WRITE)).close();
                keep = dir.permissions(name);
            }
            replace(dir, name, bytes, keep);
        }
        String summary = (created ? "created " : "replaced ") + shown + " with " + length + " bytes";
        return ToolOutput.of(summary, summary);
    }

    /** Creates the temporary file; a problem is told about the directory, never the temporary name. */
    private static FileChannel createTemporary(ContainedDirectory dir, String temporary)
            throws FileProblem, IOException {
        try {
            return dir.openFile(temporary, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        } catch (FileProblem p) {
            if (p.reason() == Reason.FILE_NOT_FOUND) {
                throw new FileProblem(Reason.FILE_NOT_FOUND, "the directory " + dir.display()
                        + " was removed while the file was being written; nothing was written");
            }
            if (p.reason() == Reason.PERMISSION_DENIED) {
                throw new FileProblem(Reason.PERMISSION_DENIED, "the operating system refused to create a file in "
                        + dir.display());
            }
            throw p;
        }
    }

    private static void replace(ContainedDirectory dir, String name, ByteBuffer bytes,
            Optional<Set<PosixFilePermission>> permissions) throws FileProblem, IOException {
        String temporary = ContainedDirectory.temporaryName();
        try {
            try (FileChannel channel = createTemporary(dir, temporary)) {
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            if (permissions.isPresent()) {
                dir.setPermissions(temporary, permissions.get());
            }
            if (Thread.currentThread().isInterrupted()) {
                // The executor gave up on this call (its deadline passed): do not land a late write.
                throw new InterruptedIOException("interrupted before the rename; nothing was written");
            }
            dir.rename(temporary, name);
        } catch (FileProblem | IOException | RuntimeException | Error e) {
            try {
                dir.deleteIfPresent(temporary);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        dir.sync();
    }
}
