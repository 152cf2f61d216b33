package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the core rows share: a workspace, a context, the note tool's request, and an executor recording
 * into the in-memory store, drained (see {@link DrainedInMemoryStore} for why).
 */
abstract class NoteCallState {
    Path root;
    ToolContext context;
    ToolCallRequest request;
    ToolCallStore store;
    ToolExecutor executor;

    abstract HandlerMode mode();

    void openWorkspace() {
        root = Workspace.create();
        context = ToolContext.of("bench", SandboxPaths.of(root));
        request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
    }

    void buildExecutor() {
        store = new DrainedInMemoryStore();
        executor = ExecutorFixture.note(mode(), store);
    }

    void closeWorkspace() {
        Workspace.delete(root);
    }

    /** Refuses to measure anything but the outcome the row names: a wrong answer fast is no figure. */
    static ToolResult expect(ToolResult result, ToolStatus status, Reason reason) {
        if (result.status() != status || !result.reason().equals(Optional.ofNullable(reason))) {
            throw new IllegalStateException("the benchmark expects " + status + "/" + reason + " but got "
                    + result.status() + "/" + result.reason() + ": " + result.content());
        }
        return result;
    }
}
