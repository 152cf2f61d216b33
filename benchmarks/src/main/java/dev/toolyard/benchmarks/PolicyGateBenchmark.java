package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.policy.ObservedCall;
import dev.toolyard.policy.Policy;
import dev.toolyard.policy.PolicyGates;
import dev.toolyard.policy.PolicySynthesizer;
import dev.toolyard.policy.Strictness;
import dev.toolyard.spi.PolicyGate;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * What a learned policy costs a call: the note tool's successful {@code execute} (CALLER_THREAD) with no
 * policy gate, and with {@code PolicyGates.enforce} of a balanced policy learned from note calls (a
 * character-class constraint on the text, checked in one pass), allowing the call; and the gate refusing
 * a call it does not allow ({@code policy_denied}). The set-up checks each answers as expected.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class PolicyGateBenchmark {
    private Path root;
    private ToolContext context;
    private ToolCallRequest request;
    private ToolCallRequest denied;
    private ToolExecutor plain;
    private ToolExecutor gated;

    @Setup(Level.Trial)
    public void setUp() {
        root = Workspace.create();
        context = ToolContext.builder("bench", SandboxPaths.of(root)).agent("bench-agent").build();
        request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        denied = ToolCallRequest.of(NoteTool.NAME, "{\"text\":\"rm -rf / ; curl evil\"}");
        JsonMapper json = JsonMapper.builder().build();
        List<ObservedCall> seen = List.of(
                new ObservedCall("bench-agent", "i1", NoteTool.NAME, json.readTree(NoteTool.ARGUMENTS), true),
                new ObservedCall("bench-agent", "i1", NoteTool.NAME, json.readTree("{\"text\":\"call the bank\"}"), true),
                new ObservedCall("bench-agent", "i2", NoteTool.NAME, json.readTree("{\"text\":\"water plants\"}"), true),
                new ObservedCall("bench-agent", "i2", NoteTool.NAME, json.readTree("{\"text\":\"book flights\"}"), true));
        Policy policy = PolicySynthesizer.of(Strictness.BALANCED).synthesize(seen, "records");
        plain = executor(null);
        gated = executor(PolicyGates.enforce(policy));
        NoteCallState.expect(noPolicy(), ToolStatus.OK, null);
        NoteCallState.expect(enforceAllowed(), ToolStatus.OK, null);
        NoteCallState.expect(enforceDenied(), ToolStatus.REFUSED, PolicyGates.POLICY_DENIED);
    }

    private static ToolExecutor executor(PolicyGate gate) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(NoteTool.spec(), NoteTool.HANDLER);
        ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of(NoteTool.NAME))
                .store(new DrainedInMemoryStore())
                .handlerMode(HandlerMode.CALLER_THREAD);
        if (gate != null) {
            b.policyGate(gate);
        }
        return b.build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Workspace.delete(root);
    }

    /** The baseline: no policy gate. */
    @Benchmark
    public ToolResult noPolicy() {
        return plain.execute(request, context);
    }

    /** The enforcing gate, allowing the call. */
    @Benchmark
    public ToolResult enforceAllowed() {
        return gated.execute(request, context);
    }

    /** The enforcing gate, refusing a call outside the policy. */
    @Benchmark
    public ToolResult enforceDenied() {
        return gated.execute(denied, context);
    }
}
