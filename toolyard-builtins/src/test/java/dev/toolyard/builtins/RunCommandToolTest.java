package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.IsolationTier;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** run_command through a real executor and a real TieredSandbox, on each rung of the ladder. */
@Tag("isolation")
@Timeout(120) // a hang guard only
class RunCommandToolTest {
    /** The image .ci/setup-sandbox.sh builds; no registry is ever pulled from. */
    static final String IMAGE = "localhost/toolyard-skeleton:1";

    @TempDir
    Path work;

    private final InMemoryToolCallStore store = new InMemoryToolCallStore();

    /** A sandbox forced onto one rung by narrowing what its probe can see. */
    private static TieredSandbox on(IsolationTier tier) {
        Function<String, Optional<Path>> which = TieredSandbox.searchPath();
        TieredSandbox.Builder b = TieredSandbox.builder()
                .limits(ResourceLimits.builder().cpuSeconds(10).memoryBytes(512L << 20).fileSizeBytes(16L << 20)
                        .processCount(32).build());
        if (tier == IsolationTier.BWRAP) {
            b.which(name -> name.equals("podman") || name.equals("docker") ? Optional.empty() : which.apply(name));
        } else if (tier == IsolationTier.CONTAINER) {
            b.containerImage(IMAGE);
        } else {
            b.which(name -> Optional.empty());
        }
        TieredSandbox sandbox = b.build();
        HostTools.require(sandbox.isolationTier() == tier,
                "the " + tier + " rung is not available on this host: " + sandbox.report().describe());
        return sandbox;
    }

    private ToolExecutor executor(TieredSandbox sandbox) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(sandbox));
        return ToolExecutor.builder(registry, sandbox).allowlist(Set.of("run_command")).store(store).build();
    }

    private ToolResult run(TieredSandbox sandbox, Duration timeout, String... argv) {
        ToolContext ctx = ToolContext.builder("inv", SandboxPaths.of(work)).timeout(timeout).build();
        String args = Stream.of(argv).map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                .reduce((a, b) -> a + "," + b).map(s -> "{\"argv\":[" + s + "]}").orElseThrow();
        return executor(sandbox).execute(ToolCallRequest.of("run_command", args), ctx);
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER"})
    void pythonRunsInTheSandboxInTheWriteRoot(IsolationTier tier) throws Exception {
        ToolResult r = run(on(tier), Duration.ofSeconds(60), "python3", "-c",
                "import os; open('made-inside.txt','w').write('x'); print('hello', os.getcwd())");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).startsWith("exit_code: 0\ntier: " + tier.wireName() + "\ntimed_out: false\n")
                .contains("--- stdout ---\nhello " + work.toRealPath());
        assertThat(work.resolve("made-inside.txt")).hasContent("x");
        assertThat(store.records()).singleElement().satisfies(rec -> {
            assertThat(rec.status()).isEqualTo(ToolStatus.OK);
            assertThat(rec.summary()).contains("exit_code 0").contains(tier.wireName());
        });
    }

    @ParameterizedTest
    @EnumSource(value = IsolationTier.class, names = {"BWRAP", "CONTAINER"})
    void theEnvironmentIsPathAndNothingElse(IsolationTier tier) {
        // env itself, not python3: Python adds LC_CTYPE to its own environment when the locale is C (PEP 538).
        ToolResult r = run(on(tier), Duration.ofSeconds(60), "env");
        assertThat(r.content()).contains("--- stdout ---\nPATH=/usr/local/bin:/usr/bin:/bin\n--- stderr ---\n");
    }

    @Test
    void aNonZeroExitIsAnOkResultThatSaysSo() {
        ToolResult r = run(on(IsolationTier.BWRAP), Duration.ofSeconds(60), "python3", "-c",
                "import sys; sys.stderr.write('bad input'); sys.exit(3)");
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).startsWith("exit_code: 3\n").endsWith("--- stderr ---\nbad input");
    }

    @Test
    void aCommandPastTheInvocationsTimeoutEndsTimeoutAndItsTreeIsKilled() throws Exception {
        ToolResult r = run(on(IsolationTier.BWRAP), Duration.ofSeconds(1), "sh", "-c",
                "sleep 3; echo late > late-marker.txt");
        assertThat(r.status()).isEqualTo(ToolStatus.TIMEOUT);
        assertThat(r.reason()).contains(Reason.TIMEOUT);
        Thread.sleep(4_000);
        assertThat(work.resolve("late-marker.txt")).as("the command was killed, not abandoned").doesNotExist();
        assertThat(store.records()).extracting(ToolCallRecord::status).containsExactly(ToolStatus.TIMEOUT);
    }

    @Test
    void noShellInterpretsTheArguments() throws Exception {
        ToolResult r = run(on(IsolationTier.BWRAP), Duration.ofSeconds(60), "echo", "$(touch pwned)", ";", "rm", "-rf", "*");
        assertThat(r.content()).contains("--- stdout ---\n$(touch pwned) ; rm -rf *\n");
        assertThat(work.resolve("pwned")).doesNotExist();
    }

    @Test
    void aHostWithNoTierRefusesBeforeAnythingRuns() {
        TieredSandbox blind = TieredSandbox.builder().which(name -> Optional.empty()).build();
        ToolResult r = run(blind, Duration.ofSeconds(5), "touch", "ran");
        assertThat(r.reason()).contains(Reason.ISOLATION_UNAVAILABLE);
        assertThat(work.resolve("ran")).doesNotExist();
        assertThat(store.records()).extracting(rec -> rec.reason().orElse(null)).containsExactly(Reason.ISOLATION_UNAVAILABLE);
    }

    @Test
    void theArgvShapeIsCheckedBeforeAnythingRuns() {
        TieredSandbox blind = TieredSandbox.builder().which(name -> Optional.empty()).build();
        ToolExecutor executor = executor(blind);
        ToolContext ctx = ToolContext.of("inv", SandboxPaths.of(work));
        for (String args : List.of("{\"argv\":[]}", "{\"argv\":\"ls -la\"}", "{\"argv\":[1]}", "{\"cmd\":[\"ls\"]}",
                "{\"argv\":[\"" + "x".repeat(4097) + "\"]}", "{\"argv\":" + "[\"a\",".repeat(1) + "\"b\"],\"x\":1}")) {
            assertThat(executor.execute(ToolCallRequest.of("run_command", args), ctx).reason()).as(args)
                    .contains(Reason.ARGS_INVALID);
        }
        String tooMany = "{\"argv\":[" + "\"a\",".repeat(256) + "\"a\"]}";
        assertThat(executor.execute(ToolCallRequest.of("run_command", tooMany), ctx).reason()).contains(Reason.ARGS_INVALID);
    }

    @Test
    void aNulInAnArgumentIsRefusedByTheHandler() {
        ToolResult r = run(on(IsolationTier.BWRAP), Duration.ofSeconds(60), "echo", "a\u0000b");
        assertThat(r.reason()).contains(Reason.ARGS_INVALID);
    }

    @Test
    void anInvalidEnvironmentFailsAtTheFactoryNamingIt() {
        TieredSandbox blind = TieredSandbox.builder().which(name -> Optional.empty()).build();
        assertThatThrownBy(() -> BuiltinTools.runCommand(blind, Map.of("A=B", "x"))).hasMessageContaining("A=B");
    }

    @Test
    void itsWireDefinitionIsPinnedByAGoldenFile() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        registry.register(BuiltinTools.runCommand(TieredSandbox.builder().which(name -> Optional.empty()).build()));
        String wire = registry.wireDefinitions(List.of("run_command")) + "\n";
        if (Boolean.getBoolean("toolyard.golden.update")) {
            Files.writeString(Path.of("src/test/resources/golden/run_command.json"), wire);
        }
        try (InputStream golden = getClass().getResourceAsStream("/golden/run_command.json")) {
            assertThat(golden).as("golden file for run_command").isNotNull();
            assertThat(new String(golden.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(wire);
        }
    }
}
