package dev.toolyard;

import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review finding: a cooperative handler runs on the caller's thread under that thread's one
 * {@code Deadlines} slot; a cooperative handler that itself calls {@code execute} for another
 * cooperative tool (a batch or delegating tool) re-arms and disarms the same slot, so the outer
 * {@code disarm} finds it idle, spins forever waiting for an interrupt that never comes, and the
 * outer {@code execute} never returns.
 */
class ToolExecutorNestedCooperativeCallTest {
    @TempDir
    Path root;

    @Test
    void aCooperativeHandlerCallingTheExecutorForAnotherCooperativeToolReturns() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        AtomicReference<ToolExecutor> executor = new AtomicReference<>();
        ToolContext context = ToolContext.builder("inv", SandboxPaths.of(root)).timeout(Duration.ofSeconds(5)).build();
        registry.register(spec("inner").cooperative(true).build(), (args, c) -> ToolOutput.of("inner"));
        registry.register(spec("outer").cooperative(true).build(), (args, c) ->
                ToolOutput.of("outer+" + executor.get().execute(ToolCallRequest.of("inner", "{\"text\":\"a\"}"), context).content()));
        executor.set(Fixtures.executor(registry, store, "inner", "outer"));
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nested-caller");
            t.setDaemon(true);
            return t;
        });
        Future<ToolResult> outer = caller.submit(() -> executor.get().execute(ToolCallRequest.of("outer", "{\"text\":\"a\"}"), context));

        ToolResult r = null;
        boolean stuck = false;
        try {
            r = outer.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            stuck = true;
            System.err.println("outer call stuck at: " + java.util.Arrays.toString(
                    Thread.getAllStackTraces().entrySet().stream().filter(x -> x.getKey().getName().equals("nested-caller"))
                            .findFirst().map(x -> x.getValue()).orElse(new StackTraceElement[0])));
        }
        assertThat(stuck).as("the outer execute never returned").isFalse();
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("outer+inner");
    }
}
