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
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;

/**
 * {@code read_file}: the text of one UTF-8 file in a read root or the write root. The file is
 * examined before it is opened (a directory, FIFO, device or socket is refused unopened), refused
 * whole when it is over the cap, opened without following a link, read to at most one byte past the
 * cap (a file that grows meanwhile is refused too), and decoded strictly. Immutable. Thread-safe.
 */
final class ReadFileTool implements ToolHandler {
    static final String NAME = "read_file";
    static final long DEFAULT_MAX_BYTES = 1L << 20;
    private static final String PATH = "path";

    private final long maxBytes;

    private ReadFileTool(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** @param maxBytes a cap already checked by {@link BuiltinTools} */
    static Tool create(long maxBytes) {
        return new Tool(spec(maxBytes), new ReadFileTool(maxBytes));
    }

    static ToolSpec spec(long maxBytes) {
        return ToolSpec.builder(NAME)
                .description("Read a text file from the workspace and return its content. The file must be UTF-8"
                        + " and at most " + maxBytes + " bytes; a larger file is refused whole, never cut."
                        + " Relative paths start at the workspace root.")
                .argsSchema("{\"type\":\"object\","
                        + "\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
                        + "\"description\":\"The file to read, relative to the workspace root.\"}},"
                        + "\"required\":[\"path\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .pathArg(PATH, PathAccess.READ)
                .cooperative(true) // bounded by its size cap
                .build();
    }

    @Override
    public ToolOutput handle(ToolArgs args, ToolContext context) throws IOException {
        try {
            return read(RootedPath.forReading(args.path(PATH), context.workspace()));
        } catch (FileProblem p) {
            return p.toOutput();
        }
    }

    private ToolOutput read(RootedPath target) throws FileProblem, IOException {
        String shown = target.display();
        if (target.isRoot()) {
            throw new FileProblem(Reason.NOT_A_REGULAR_FILE, shown + " is a directory");
        }
        String name = target.fileName();
        byte[] bytes;
        int length;
        try (ContainedDirectory root = ContainedDirectory.openRoot(target.root());
                ContainedDirectory dir = root.walk(target.parentNames())) {
            BasicFileAttributes a = dir.attributes(name).orElseThrow(() -> ContainedDirectory.notFound(shown));
            if (a.isSymbolicLink()) {
                throw ContainedDirectory.linkRefused(shown);
            }
            if (!a.isRegularFile()) {
                throw new FileProblem(Reason.NOT_A_REGULAR_FILE, shown + " is " + kind(a));
            }
            if (a.size() > maxBytes) {
                throw tooLarge(shown, a.size());
            }
            try (FileChannel channel = dir.openFile(name, Set.of(StandardOpenOption.READ))) {
                ByteBuffer buffer = readAtMost(channel, a.size());
                length = buffer.position();
                bytes = buffer.array();
            }
        }
        if (length > maxBytes) {
            throw new FileProblem(Reason.TOO_LARGE, shown + " grew past this tool's cap of " + maxBytes
                    + " bytes while it was read; nothing of it is returned");
        }
        String text = decode(bytes, length, shown);
        return ToolOutput.of(text, "read " + length + " bytes from " + shown);
    }

    /** Reads to the end or to one byte past the cap, whichever comes first. */
    private ByteBuffer readAtMost(FileChannel channel, long sizeHint) throws IOException {
        long limit = maxBytes + 1;
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(limit, Math.max(8192, sizeHint + 1)));
        while (true) {
            if (!buffer.hasRemaining()) {
                if (buffer.capacity() >= limit) {
                    return buffer;
                }
                ByteBuffer larger = ByteBuffer.allocate((int) Math.min(limit, 2L * buffer.capacity()));
                buffer.flip();
                larger.put(buffer);
                buffer = larger;
            }
            if (channel.read(buffer) < 0) {
                return buffer;
            }
        }
    }

    private static String decode(byte[] bytes, int length, String shown) throws FileProblem {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, length);
        CharBuffer out = CharBuffer.allocate(length); // UTF-8 never decodes to more chars than bytes
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError() || result.isOverflow()) {
            throw new FileProblem(Reason.NOT_UTF8, shown + " is not valid UTF-8 (first invalid byte at offset "
                    + in.position() + "); only UTF-8 text files can be read");
        }
        return out.flip().toString();
    }

    private FileProblem tooLarge(String shown, long size) {
        return new FileProblem(Reason.TOO_LARGE, shown + " is " + size + " bytes, over this tool's cap of "
                + maxBytes + "; nothing of it is returned");
    }

    static String kind(BasicFileAttributes a) {
        if (a.isDirectory()) {
            return "a directory";
        }
        if (a.isSymbolicLink()) {
            return "a symbolic link";
        }
        return "not a regular file (a FIFO, socket or device)";
    }
}
