package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shapes of cost, measured in bytes allocated on the calling thread (deterministic, unlike time):
 * a refusal never costs more than a success, and cost grows linearly with the arguments. Speed itself
 * is measured by the JMH suite, never here.
 */
class ExecutorCostShapeTest {
    private static final String INTS_SCHEMA = """
            {"type":"object","additionalProperties":false,"required":["values"],
             "properties":{"values":{"type":"array","items":{"type":"integer"}}}}""";

    @TempDir
    Path root;

    ToolExecutor executor;
    InMemoryToolCallStore store;
    ToolContext ctx;

    @BeforeEach
    void setUp() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(Fixtures.spec("echo").build(), Fixtures.echo());
        registry.register(ToolSpec.builder("sum").description("adds").argsSchema(INTS_SCHEMA)
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).build(),
                (args, c) -> ToolOutput.of(String.valueOf(args.json().get("values").size())));
        store = new InMemoryToolCallStore();
        executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo", "sum"))
                .store(store).handlerMode(HandlerMode.CALLER_THREAD).build();
        ctx = ToolContext.of("shape", SandboxPaths.of(root));
    }

    private long bytesPerCall(Supplier<ToolResult> call) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "this JVM cannot count bytes allocated per thread, so cost shapes cannot be measured");
        for (int i = 0; i < 3_000; i++) { // warm up, so escape analysis has settled
            call.get();
        }
        store.clear();
        long tid = Thread.currentThread().getId();
        int n = 500;
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < n; i++) {
            call.get();
        }
        long perCall = (mx.getThreadAllocatedBytes(tid) - before) / n;
        store.clear();
        return perCall;
    }

    private static String ints(int count) {
        StringBuilder b = new StringBuilder("{\"values\":[");
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? "" : ",").append(i);
        }
        return b.append("]}").toString();
    }

    @Test
    void aRefusalCostsNoMoreThanASuccessBeyondItsOwnTwoTexts() {
        long success = bytesPerCall(() -> executor.execute(ToolCallRequest.of("echo", "{\"text\":\"hi\"}"), ctx));
        long unknown = bytesPerCall(() -> executor.execute(ToolCallRequest.of("nope", "{\"text\":\"hi\"}"), ctx));
        long invalid = bytesPerCall(() -> executor.execute(ToolCallRequest.of("echo", "{\"text\":5}"), ctx));
        assertThat(unknown).as("unknown_tool vs success, bytes per call").isLessThanOrEqualTo(success);
        // The closed-subset schema is judged by CompiledSchema, which builds nothing but the detail; networknt's
        // error objects (about 400 bytes more) are paid only by schemas outside the subset. What remains over a
        // success is the refusal's own two texts, the detail and the problem text the model reads (measured:
        // success 2,176 B, args_invalid 2,328 B); in time the refusal stays below the success (JMH row).
        assertThat(invalid).as("args_invalid vs success, bytes per call").isLessThanOrEqualTo(success + 256);
    }

    @Test
    void anExecutorWithNoObserverBuildsNoEventWhileAnObservedOneDoes() {
        ToolRegistry registry = new ToolRegistry();
        registry.register(Fixtures.spec("echo").build(), Fixtures.echo());
        ToolExecutor observed = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).handlerMode(HandlerMode.CALLER_THREAD)
                .observer(new dev.toolyard.spi.ToolCallObserver() {}).build();
        ToolCallRequest request = ToolCallRequest.of("echo", "{\"text\":\"hi\"}");

        long plain = bytesPerCall(() -> executor.execute(request, ctx));
        long watched = bytesPerCall(() -> observed.execute(request, ctx));

        // The event (an object of seven fields, its three Optionals) is the only difference; the observer itself
        // allocates nothing. Were the event built on the unobserved path too, the two would be equal.
        assertThat(watched - plain).as("bytes the observed path adds per call").isGreaterThanOrEqualTo(40);
    }

    @Test
    void costGrowsLinearlyWithTheSizeOfTheArguments() {
        String thousand = ints(1_000);
        String tenThousand = ints(10_000);
        long small = bytesPerCall(() -> executor.execute(ToolCallRequest.of("sum", thousand), ctx));
        long large = bytesPerCall(() -> executor.execute(ToolCallRequest.of("sum", tenThousand), ctx));
        assertThat(executor.execute(ToolCallRequest.of("sum", tenThousand), ctx).content()).isEqualTo("10000");
        assertThat((double) large / small).as("10x the data, bytes per call ratio").isLessThanOrEqualTo(12.0);
    }
}
