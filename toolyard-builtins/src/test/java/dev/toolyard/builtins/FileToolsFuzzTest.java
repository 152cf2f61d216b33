package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Whatever path and content a model sends to the file tools, nothing outside the write root is
 * written, nothing outside the workspace is read or listed, and nothing throws. Runs its seed corpus
 * (files under src/test/resources) in every build; fuzz longer on demand with
 * {@code JAZZER_FUZZ=1 mvn -pl toolyard-builtins test -Dtest=FileToolsFuzzTest}.
 *
 * <p>Input: the first byte picks the tool (modulo 3: read_file, write_file, list_dir); the rest is
 * UTF-8 text whose first line is the path and whose remainder is the content.
 */
class FileToolsFuzzTest {
    private static final String SECRET = "OUTSIDE-SECRET-7f3a";
    private static final String[] TOOLS = {"read_file", "write_file", "list_dir"};
    private static final Layout LAYOUT = Layout.create();

    @FuzzTest(maxDuration = "10s")
    void nothingOutsideIsReadListedOrWritten(byte[] data) throws IOException {
        if (data.length == 0) {
            return;
        }
        String tool = TOOLS[Math.floorMod(data[0], 3)];
        String text = new String(data, 1, data.length - 1, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        String path = newline < 0 ? text : text.substring(0, newline);
        String content = newline < 0 ? "" : text.substring(newline + 1);
        Map<String, Object> arguments = tool.equals("write_file")
                ? Map.of("path", path, "content", content)
                : Map.of("path", path);

        ToolResult r = LAYOUT.executor.execute(ToolCallRequest.of(tool, arguments), LAYOUT.context);

        assertThat(r.content()).doesNotContain(SECRET).doesNotContain(LAYOUT.base.toString());
        assertThat(r.reasonDetail()).doesNotContain(LAYOUT.base.toString());
        assertThat(r.isOk()).isEqualTo(r.reason().isEmpty());
        assertThat(snapshot(LAYOUT.outside)).as("outside after %s %s", tool, path).isEqualTo(LAYOUT.outsideBefore);
        assertThat(snapshot(LAYOUT.docs)).as("read root after %s %s", tool, path).isEqualTo(LAYOUT.docsBefore);
    }

    /** Every entry under {@code dir} (links not followed) with its content or link target. */
    private static Map<String, String> snapshot(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                String key = dir.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    out.put(key, "-> " + Files.readSymbolicLink(p));
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.put(key, Files.readString(p));
                } else {
                    out.put(key, "dir");
                }
            }
        }
        return out;
    }

    /** A workspace with links inside, links out (absolute, relative, to a file, to a directory) and loops. */
    private record Layout(Path base, Path outside, Path docs, Map<String, String> outsideBefore,
            Map<String, String> docsBefore, ToolExecutor executor, ToolContext context) {
        static Layout create() {
            try {
                Path base = Files.createTempDirectory("toolyard-files-fuzz").toRealPath();
                Path work = Files.createDirectories(base.resolve("work"));
                Path docs = Files.createDirectories(base.resolve("docs"));
                Path outside = Files.createDirectories(base.resolve("work-outside"));
                Files.writeString(outside.resolve("secret.txt"), SECRET);
                Files.createDirectories(outside.resolve("nested"));
                Files.writeString(outside.resolve("nested/also.txt"), SECRET);
                Files.writeString(docs.resolve("manual.md"), "manual");
                Files.createDirectories(work.resolve("sub/deeper"));
                Files.writeString(work.resolve("notes.md"), "notes");
                Files.createSymbolicLink(work.resolve("out"), outside);
                Files.createSymbolicLink(work.resolve("out-file"), outside.resolve("secret.txt"));
                Files.createSymbolicLink(work.resolve("rel-out"), Path.of("../work-outside/secret.txt"));
                Files.createSymbolicLink(work.resolve("in"), Path.of("sub"));
                Files.createSymbolicLink(work.resolve("docs-link"), docs);
                Files.createSymbolicLink(work.resolve("loop"), Path.of("loop"));
                Files.createSymbolicLink(work.resolve("sub/up"), Path.of("../.."));
                ToolRegistry registry = new ToolRegistry();
                registry.register(BuiltinTools.readFile());
                registry.register(BuiltinTools.writeFile());
                registry.register(BuiltinTools.listDir());
                ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                        .allowlist(Set.of(TOOLS))
                        .store(new InMemoryToolCallStore())
                        .build();
                ToolContext context = ToolContext.of("inv-fuzz", SandboxPaths.of(work, docs));
                return new Layout(base, outside, docs, snapshot(outside), snapshot(docs), executor, context);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
