package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IsolationReportTest {
    private static final List<IsolationReport.Rung> RUNGS = List.of(
            new IsolationReport.Rung("podman", "no container image configured"),
            new IsolationReport.Rung("docker", "no container image configured"),
            new IsolationReport.Rung("bwrap", true, "canary /bin/true exited 0 in 9 ms", List.of(Duration.ofMillis(9)),
                    List.of("/usr/bin/bwrap", "/bin/true"), true, Map.of("cpuSeconds", "RLIMIT_CPU")));

    @Test
    void describeNamesTheTierEveryRungTheLimitsAndTheCanary() {
        Map<String, String> how = new LinkedHashMap<>();
        how.put("cpuSeconds", "RLIMIT_CPU");
        how.put("processCount", "RLIMIT_NPROC on a lent uid");
        IsolationReport r = new IsolationReport(IsolationTier.BWRAP, RUNGS, Set.of(), ResourceLimits.defaults(),
                List.of("/usr/bin/bwrap", "--chdir", "/tmp/a b", "--", "/bin/true"), "uids 7..8", true, how, IsolationTier.CONTAINER, "off", Map.of("bwrap", "can run warm"));

        assertThat(r.describe()).isEqualTo("""
                ToolYard isolation report
                tier: bwrap
                rungs, in ladder order:
                  podman  skipped: no container image configured
                  docker  skipped: no container image configured
                  bwrap   TAKEN:   canary /bin/true exited 0 in 9 ms
                runs as: uids 7..8
                seccomp filter: ToolYard's own, loaded on every run
                limits: cpu 60 s, memory 1073741824 bytes, file size 67108864 bytes, 64 processes
                  cpuSeconds    RLIMIT_CPU
                  processCount  RLIMIT_NPROC on a lent uid
                limits unenforced: none
                warm mode: off
                  bwrap   can run warm
                canary command: /usr/bin/bwrap --chdir '/tmp/a b' -- /bin/true
                """);
        assertThat(r.warmMode()).isEqualTo("off");
        assertThat(r.warmByRung()).containsExactly(Map.entry("bwrap", "can run warm"));
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
                ResourceLimits.defaults(), List.of(), "uids 7..8", false, Map.of(), IsolationTier.CONTAINER, "off", Map.of());

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
                ResourceLimits.defaults(), List.of("x"), "uids 7..8", false, Map.of("cpuSeconds", "RLIMIT_CPU"),
                IsolationTier.CONTAINER, "off", Map.of());

        assertThatThrownBy(() -> r.rungs().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.limitsUnenforced().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.canaryCommand().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.limitEnforcement().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.rungs().get(2).canaryTimes().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.rungs().get(2).canaryCommand().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.rungs().get(2).limitEnforcement().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aRungsCanaryTimeIsTheMedianOfItsRunsAndItsStandingSaysWhetherItPassed() {
        List<Duration> odd = List.of(ms(300), ms(290), ms(450), ms(310), ms(295));
        List<Duration> even = List.of(ms(20), ms(30), ms(26), ms(24));

        IsolationReport.Rung podman = new IsolationReport.Rung("podman", true, "ok", odd, List.of("podman"), true, Map.of());
        IsolationReport.Rung bwrap = new IsolationReport.Rung("bwrap", false, "ok", even, List.of("bwrap"), true, Map.of());
        IsolationReport.Rung docker = new IsolationReport.Rung("docker", "docker not found");

        assertThat(podman.canaryTime()).contains(ms(300));
        assertThat(bwrap.canaryTime()).contains(ms(25));
        assertThat(docker.canaryTime()).isEmpty();
        assertThat(List.of(podman, bwrap, docker)).extracting(IsolationReport.Rung::standing)
                .containsExactly("TAKEN", "passed", "skipped");
        assertThat(podman.canaryTimes()).as("in the order run").isEqualTo(odd);
    }

    @Test
    void aRungCannotBeTakenWithoutHavingPassedItsCanary() {
        assertThatThrownBy(() -> new IsolationReport.Rung("bwrap", true, "x", List.of(), List.of(), false, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bwrap");
    }

    @Test
    void aLadderStartedAtBubblewrapSaysSo() {
        IsolationReport r = new IsolationReport(IsolationTier.BWRAP, RUNGS, Set.of(), ResourceLimits.defaults(), List.of(),
                "uids 7..8", true, Map.of(), IsolationTier.BWRAP, "off", Map.of());

        assertThat(r.startAt()).isEqualTo(IsolationTier.BWRAP);
        assertThat(r.describe()).contains("rungs, in ladder order (the application started it at bubblewrap):\n");
    }

    private static Duration ms(long n) {
        return Duration.ofMillis(n);
    }

    @Test
    void aRungNeedsANameAndAReason() {
        assertThatThrownBy(() -> new IsolationReport.Rung(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new IsolationReport.Rung("bwrap", null)).isInstanceOf(NullPointerException.class);
    }
}
