package dev.toolyard.store.jdbc;

import dev.toolyard.EgressClass;
import dev.toolyard.PathContainment;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * The child JVM of the crash test: appends under load through a real {@link ToolExecutor} on an
 * SQLite store until it is killed. Prints {@code ack <callId>} after each call returns (so the call
 * is committed), and {@code blocking} once the handler of the one call that never ends is running
 * (so its mark is committed). Arguments: the database file, the number of appending threads.
 */
public final class AppendingChild {
    static final String BLOCKER_INVOCATION = "blocker";

    private AppendingChild() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        Path workspace = Files.createTempDirectory("toolyard-child");

        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("note")
                .description("Returns its text.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                        + "\"required\":[\"text\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .build(), (a, c) -> ToolOutput.of(a.string("text")));
        registry.register(ToolSpec.builder("hold")
                .description("Never returns.")
                .argsSchema("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .build(), (a, c) -> {
                    out.println("blocking");
                    Thread.sleep(Long.MAX_VALUE);
                    return ToolOutput.of("unreachable");
                });
        JdbcToolCallStore store = JdbcToolCallStore.sqlite(file);
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("note", "hold"))
                .store(store)
                .build();

        Thread blocker = new Thread(() -> executor.execute(ToolCallRequest.of("hold", "{}"),
                ToolContext.builder(BLOCKER_INVOCATION, SandboxPaths.of(workspace)).timeout(Duration.ofHours(1)).build()));
        blocker.start();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            new Thread(() -> {
                ToolContext context = ToolContext.of("worker-" + thread, SandboxPaths.of(workspace));
                for (long i = 0; ; i++) {
                    ToolCallRequest request = i % 10 == 9
                            ? ToolCallRequest.of("no_such_tool", "{}")
                            : ToolCallRequest.of("note", "{\"text\":\"call " + i + " of thread " + thread + "\"}");
                    ToolResult result = executor.execute(request, context);
                    out.println("ack " + result.callId());
                }
            }).start();
        }
        blocker.join();
    }
}
