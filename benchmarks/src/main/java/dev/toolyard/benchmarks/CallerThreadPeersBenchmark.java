package dev.toolyard.benchmarks;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.toolyard.HandlerMode;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallObserver;
import java.lang.reflect.Method;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.ai.tool.support.ToolDefinitions;

/**
 * Rows 2 and 10: {@code execute} in {@link HandlerMode#CALLER_THREAD}, and through the default path of a
 * cooperative tool (no mode given; with and without one no-op observer), beside LangChain4j's
 * {@link DefaultToolExecutor#executeWithContext} and Spring AI's {@link MethodToolCallback#call}, each
 * running the same one-string tool from the same JSON string. Run with {@code -prof gc}, the same
 * methods give the bytes allocated per call.
 *
 * <p>What each does per call, for reading the figures: ToolYard parses, validates against the closed
 * schema, checks allowlist, egress and containment, runs under a deadline, caps, digests and records
 * twice (started, completed). LangChain4j parses to a map and binds the parameter. Spring AI parses,
 * binds the parameter, and serialises the result to JSON. Neither peer validates or records.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class CallerThreadPeersBenchmark extends NoteCallState {
    private DefaultToolExecutor langchain4j;
    private ToolExecutionRequest langchain4jRequest;
    private InvocationContext langchain4jContext;
    private MethodToolCallback springAi;
    private ToolExecutor byTool;
    private ToolExecutor observed;

    @Override
    HandlerMode mode() {
        return HandlerMode.CALLER_THREAD;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        openWorkspace();
        buildExecutor();
        byTool = ExecutorFixture.builder(NoteTool.cooperativeSpec(), NoteTool.HANDLER, new DrainedInMemoryStore()).build();
        observed = ExecutorFixture.builder(NoteTool.cooperativeSpec(), NoteTool.HANDLER, new DrainedInMemoryStore())
                .observer(new ToolCallObserver() {}).build();
        NoteTool.Peer peer = new NoteTool.Peer();
        Method note = NoteTool.Peer.class.getMethod("note", String.class);

        langchain4j = new DefaultToolExecutor(peer, note);
        langchain4jRequest = ToolExecutionRequest.builder()
                .id("call-1").name(NoteTool.NAME).arguments(NoteTool.ARGUMENTS).build();
        langchain4jContext = InvocationContext.builder().invocationId(UUID.randomUUID()).timestampNow().build();

        springAi = MethodToolCallback.builder()
                .toolDefinition(ToolDefinitions.from(note))
                .toolMethod(note)
                .toolObject(peer)
                .build();

        NoteCallState.expect(toolyard(), ToolStatus.OK, null);
        NoteCallState.expect(toolyardDefault(), ToolStatus.OK, null);
        NoteCallState.expect(toolyardObserved(), ToolStatus.OK, null);
        ToolExecutionResult l4j = langchain4j();
        if (l4j.isError() || !"ok".equals(l4j.resultText())) {
            throw new IllegalStateException("LangChain4j did not run the tool: " + l4j);
        }
        String spring = springAi();
        if (!"\"ok\"".equals(spring)) {
            throw new IllegalStateException("Spring AI did not run the tool: " + spring);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        byTool.close();
        observed.close();
        closeWorkspace();
    }

    /** The figure: the whole call on the caller's thread, validated and recorded. */
    @Benchmark
    public ToolResult toolyard() {
        return executor.execute(request, context);
    }

    /** The figure of the default path: a cooperative tool, no mode given, so it runs on the caller's thread. */
    @Benchmark
    public ToolResult toolyardDefault() {
        return byTool.execute(request, context);
    }

    /** The default path with one observer that does nothing: what observation itself costs. */
    @Benchmark
    public ToolResult toolyardObserved() {
        return observed.execute(request, context);
    }

    /** Peer: LangChain4j 1.19, which validates and records nothing. */
    @Benchmark
    public ToolExecutionResult langchain4j() {
        return langchain4j.executeWithContext(langchain4jRequest, langchain4jContext);
    }

    /** Peer: Spring AI 1.1. */
    @Benchmark
    public String springAi() {
        return springAi.call(NoteTool.ARGUMENTS);
    }
}
