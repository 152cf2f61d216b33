package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IsolationReportTest {
    private static final List<IsolationReport.Rung> RUNGS = List.of(
            new IsolationReport.Rung("podman", false, "no container image configured"),
            new IsolationReport.Rung("docker", false, "no container image configured"),
            new IsolationReport.Rung("bwrap", true, "canary /bin/true exited 0 in 9 ms"));

    @Test
    void describeNamesTheTierEveryRungTheLimitsAndTheCanary() {
        Map<String, String> how = new LinkedHashMap<>();
        how.put("cpuSeconds", "RLIMIT_CPU");
        how.put("processCount", "RLIMIT_NPROC on a lent uid");
        IsolationReport r = new IsolationReport(IsolationTier.BWRAP, RUNGS, Set.of(), ResourceLimits.defaults(),
                List.of("/usr/bin/bwrap", "--chdir", "/tmp/a b", "--", "/bin/true"), "uids 7..8", true, how);

        assertThat(r.describe()).isEqualTo("""
                ToolYard isolation report
                tier: bwrap
                rungs, in the order visited:
                  podman  skipped  no container image configured
                  docker  skipped  no container image configured
                  bwrap   TAKEN    canary /bin/true exited 0 in 9 ms
                runs as: uids 7..8
                seccomp filter: ToolYard's own, loaded on every run
                limits: cpu 60 s, memory 1073741824 bytes, file size 67108864 bytes, 64 processes
                  cpuSeconds    RLIMIT_CPU
                  processCount  RLIMIT_NPROC on a lent uid
                limits unenforced: none
                canary command: /usr/bin/bwrap --chdir '/tmp/a b' -- /bin/true
                """);
        assertThat(r.toString()).isEqualTo(r.describe());
        assertThat(r.runsAs()).isEqualTo("uids 7..8");
        assertThat(r.seccompFilterLoaded()).isTrue();
        assertThat(r.limitEnforcement()).containsExactly(Map.entry("cpuSeconds", "RLIMIT_CPU"),
                Map.entry("processCount", "RLIMIT_NPROC on a lent uid"));
    }

    @Test
    void anUnavailableTierSaysRunsAreRefusedAndListsTheUnenforcedLimitsInOrder() {
        Set<String> all = new LinkedHashSet<>(List.of("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount"));
        IsolationReport r = new IsolationReport(IsolationTier.UNAVAILABLE, RUNGS.subList(0, 2), all,
                ResourceLimits.defaults(), List.of(), "uids 7..8", false, Map.of());

        assertThat(r.describe())
                .contains("tier: unavailable (isolated runs are refused)")
                .contains("limits unenforced: cpuSeconds, memoryBytes, fileSizeBytes, processCount")
                .contains("seccomp filter: none (no tier)")
                .doesNotContain("canary command");
        assertThat(r.limitsUnenforced()).containsExactly("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
    }

    @Test
    void itsCollectionsCannotBeChanged() {
        IsolationReport r = new IsolationReport(IsolationTier.BWRAP, RUNGS, Set.of("processCount"),
                ResourceLimits.defaults(), List.of("x"), "uids 7..8", false, Map.of("cpuSeconds", "RLIMIT_CPU"));

        assertThatThrownBy(() -> r.rungs().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.limitsUnenforced().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.canaryCommand().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.limitEnforcement().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aRungNeedsANameAndAReason() {
        assertThatThrownBy(() -> new IsolationReport.Rung(null, false, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new IsolationReport.Rung("bwrap", false, null)).isInstanceOf(NullPointerException.class);
    }
}
