package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathAccess;
import dev.toolyard.PathContainment;
import dev.toolyard.spi.PathDecision;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolOutput;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.SandboxPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A workspace on disk and a real executor over it: {@link PathContainment}, an
 * {@link InMemoryToolCallStore}, the given tools allowlisted. Every call is checked on the way out:
 * exactly one new record, agreeing with the result, and no root path in anything the model sees.
 */
final class Workspace {
    final Path base;
    final Path root;
    final Path readRoot;
    final Path outside;
    final InMemoryToolCallStore store = new InMemoryToolCallStore();
    final ToolExecutor executor;
    final ToolContext context;
    private final ToolRegistry registry = new ToolRegistry();

    /**
     * @param base an empty directory (a {@code @TempDir}); the write root is {@code base/work}, the read
     *     root {@code base/reference}, and {@code base/outside} is outside both
     */
    Workspace(Path base, Tool... tools) throws IOException {
        this(base, true, tools);
    }

    /** A workspace whose write root was never created. */
    static Workspace withoutWriteRoot(Path base, Tool... tools) throws IOException {
        return new Workspace(base, false, tools);
    }

    private Workspace(Path base, boolean createWriteRoot, Tool... tools) throws IOException {
        this.base = Files.createDirectories(base).toRealPath();
        this.root = this.base.resolve("work");
        this.readRoot = Files.createDirectories(this.base.resolve("reference"));
        this.outside = Files.createDirectories(this.base.resolve("outside"));
        if (createWriteRoot) {
            Files.createDirectories(root);
        }
        Set<String> names = new HashSet<>();
        for (Tool t : tools) {
            registry.register(t);
            names.add(t.spec().name());
        }
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(names).store(store).build();
        context = ToolContext.builder("inv-files", SandboxPaths.of(root, readRoot))
                .timeout(Duration.ofSeconds(20))
                .build();
    }

    /** Runs one call and checks its record and that it reveals no root. */
    ToolResult call(String tool, Map<String, ?> arguments) {
        int before = store.records().size();
        ToolResult result = executor.execute(ToolCallRequest.of(tool, arguments), context);
        List<ToolCallRecord> records = store.records();
        assertThat(records).hasSize(before + 1);
        ToolCallRecord record = records.get(records.size() - 1);
        assertThat(record.callId()).isEqualTo(result.callId());
        assertThat(record.toolName()).isEqualTo(tool);
        assertThat(record.status()).isEqualTo(result.status());
        assertThat(record.reason()).isEqualTo(result.reason());
        assertThat(record.reasonDetail()).isEqualTo(result.reasonDetail());
        for (String seen : List.of(result.content(), result.reasonDetail(), record.summary())) {
            assertThat(seen).doesNotContain(base.toString());
        }
        return result;
    }

    /** @return the last record */
    ToolCallRecord lastRecord() {
        List<ToolCallRecord> records = store.records();
        return records.get(records.size() - 1);
    }

    /** Resolves a candidate as the executor would before calling a handler; it must be admitted. */
    Path resolved(String candidate, PathAccess access) {
        PathDecision d = access == PathAccess.READ
                ? new PathContainment().resolveRead(candidate, context.workspace())
                : new PathContainment().resolveWrite(candidate, context.workspace());
        assertThat(d.isInside()).as(d.toString()).isTrue();
        return d.path();
    }

    /**
     * Calls a tool's handler directly with an already-resolved {@code path}, as the executor does after
     * its checks, so a test can change the file system between resolution and handling.
     */
    ToolOutput handleDirectly(Tool tool, Path resolved, Map<String, String> otherArguments) throws Exception {
        ObjectNode json = JsonMapper.builder().build().createObjectNode().put("path", resolved.toString());
        otherArguments.forEach(json::put);
        return tool.handler().handle(new ToolArgs(json, Map.of("path", resolved)), context);
    }

    /** Writes a file under the write root, creating parents. */
    Path file(String relative, String content) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, content);
    }

    /** @return the names in {@code dir}, sorted, temporaries included */
    static List<String> namesIn(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
