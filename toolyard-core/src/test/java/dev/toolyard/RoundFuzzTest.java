package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Whatever a model sends as one turn's calls, {@code executeRound} answers each request once, in order,
 * records each, and runs at most {@code maxCallsPerRound} of them. Runs its seed corpus in every build;
 * fuzz longer on demand with {@code JAZZER_FUZZ=1}.
 */
class RoundFuzzTest {
    private static final ToolRegistry REGISTRY = new ToolRegistry();
    private static final InMemoryToolCallStore STORE = new InMemoryToolCallStore();
    private static final ToolExecutor EXECUTOR;
    private static final ToolContext CONTEXT;

    static {
        REGISTRY.register(Fixtures.spec("echo").cooperative(true).build(), Fixtures.echo());
        EXECUTOR = ToolExecutor.builder(REGISTRY, new PathContainment()).allowlist(Set.of("echo")).store(STORE)
                .maxCallsPerRound(4).roundParallelism(3).build();
        try {
            Path root = Files.createTempDirectory("toolyard-round-fuzz");
            CONTEXT = ToolContext.of("fuzz", SandboxPaths.of(root));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    void aRoundAnswersEveryRequestOnceInOrderAndNeverThrows(byte[] data) {
        // Input: one request per line, "name<TAB>arguments"; an empty line is a null request.
        String text = new String(data, StandardCharsets.UTF_8);
        List<ToolCallRequest> requests = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            if (line.isEmpty()) {
                requests.add(null);
                continue;
            }
            int tab = line.indexOf('\t');
            requests.add(tab < 0 ? ToolCallRequest.of("echo", line)
                    : ToolCallRequest.of(line.substring(0, tab), line.substring(tab + 1)));
        }
        int before = STORE.records().size();

        List<ToolResult> results = EXECUTOR.executeRound(requests, CONTEXT);

        assertThat(results).hasSize(requests.size()).doesNotContainNull();
        assertThat(STORE.records()).hasSize(before + requests.size());
        for (int i = 4; i < results.size(); i++) {
            assertThat(results.get(i).status()).isEqualTo(ToolStatus.REFUSED);
            assertThat(results.get(i).reason()).get().isIn(Reason.ROUND_LIMIT, Reason.UNKNOWN_TOOL);
        }
        for (ToolResult r : results) {
            assertThat(r.status()).isIn(ToolStatus.OK, ToolStatus.REFUSED);
        }
    }
}
