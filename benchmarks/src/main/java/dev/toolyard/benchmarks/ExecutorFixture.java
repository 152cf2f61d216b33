package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.PathContainment;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolSpec;
import java.util.Set;

/** Builds the executor every core row measures: one tool, {@link PathContainment}, an in-memory store. */
final class ExecutorFixture {
    private ExecutorFixture() {}

    static ToolExecutor note(HandlerMode mode, ToolCallStore store) {
        return of(NoteTool.spec(), NoteTool.HANDLER, mode, store);
    }

    static ToolExecutor of(ToolSpec spec, ToolHandler handler, HandlerMode mode, ToolCallStore store) {
        return builder(spec, handler, store).handlerMode(mode).build();
    }

    /** @return the executor as an application builds it: no mode given, so each tool's declaration decides */
    static ToolExecutor.Builder builder(ToolSpec spec, ToolHandler handler, ToolCallStore store) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(spec, handler);
        return ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(spec.name()))
                .store(store);
    }
}
