package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.spi.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** The real doctor on this host, which has podman (with the skeleton image) and bubblewrap. */
@Timeout(180) // a hang guard only
class DoctorCommandTest {
    @Test
    void doctorProbesEveryRungTimesEachCanaryAndMarksTheOneTheLadderTakes() {
        Engines.requireBoth();

        CliRun r = CliRun.of("doctor");

        Engines.require(r.out().contains("tier:   container (podman)"), "the container rung did not pass here:\n" + r.out());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("run 5 times (spawn to exit; TAKEN is the rung runs use):")
                .containsPattern("rung +ladder +canary \\(median of 5\\) +fastest\\.\\.slowest +seccomp filter")
                .containsPattern("\n    podman +TAKEN +\\d+\\.\\d ms +\\d+\\.\\d ms\\.\\.\\d+\\.\\d ms +ToolYard's own\n")
                .containsPattern("\n    docker +skipped +- +- +-\n")
                .containsPattern("\n    bwrap +passed +\\d+\\.\\d ms +\\d+\\.\\d ms\\.\\.\\d+\\.\\d ms +ToolYard's own\n")
                .contains("  podman, TAKEN: podman at ", "canary /bin/true exited 0 on each of 5 runs, median ")
                // docker: not installed, or (here) a client with no daemon, whose canary fails with what it said
                .containsPattern("\n  docker, skipped: (docker not found|docker at .*; canary failed: .*)\n")
                .contains("  bwrap, passed: bwrap at ", "; not taken: podman is higher on the ladder")
                .contains("    what enforces each limit on podman:\n      cpuSeconds: RLIMIT_CPU, set by prlimit inside the container")
                .contains("      processCount: the container's pids cgroup (--pids-limit)")
                .contains("    what enforces each limit on bwrap:\n      cpuSeconds: RLIMIT_CPU, set by toolyard-warm --exec-once")
                .contains("      processCount: RLIMIT_NPROC on a uid lent to this run alone")
                .containsPattern("\n    warm mode on podman: can run warm: a warm start and its first /bin/true took \\d+ ms; "
                        + "each further warm /bin/true, median of 5, \\d+\\.\\d\\d ms\n")
                .containsPattern("\n    warm mode on bwrap: can run warm: a warm start and its first /bin/true took \\d+ ms; ")
                .contains("  warm mode:       off (the default; TieredSandbox.builder().warm(true) turns it on)\n")
                .contains("\n    network for commands on podman: available: cold runs, through toolyard-relay",
                        "\n    network for commands on bwrap: available: cold runs, through toolyard-relay");
    }

    @Test
    void withTierBubblewrapTheContainerRungsAreSkippedInTheApplicationsWordsAndBubblewrapIsTaken() {
        Engines.requireBoth();

        CliRun r = CliRun.of("doctor", "--tier", "bwrap");

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("tier:   bwrap (bwrap); the ladder starts at bubblewrap (--tier bwrap)")
                .containsPattern("\n    podman +skipped +- +- +-\n")
                .containsPattern("\n    bwrap +TAKEN +\\d+\\.\\d ms")
                .contains("  podman, skipped: the application started the ladder at bubblewrap\n")
                .contains("  docker, skipped: the application started the ladder at bubblewrap\n")
                .contains("to climb: container rung: skipped because the ladder was started at bubblewrap")
                .doesNotContain("what enforces each limit on podman");
    }

    @Test
    void withTierGvisorCommandNetworkOnTheGvisorRungNamesTheOneRuntimeFlagItAdds() {
        Engines.requireBoth();
        Engines.require(TieredSandbox.searchPath().apply("runsc").isPresent(), "runsc (gVisor) is not installed"
                + " (.ci/setup-sandbox.sh installs it)");

        CliRun r = CliRun.of("doctor", "--tier", "gvisor");

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("tier:   gvisor")
                .contains("\n    network for commands on gvisor: available: cold runs, through toolyard-relay on 127.0.0.1"
                        + " inside, listening before the command starts; runsc may open the bound proxy socket"
                        + " (host-uds=open) on those runs only\n")
                .contains("\n    network for commands on bwrap: available: cold runs, through toolyard-relay")
                .doesNotContain("on bwrap: available: cold runs, through toolyard-relay on 127.0.0.1 inside, listening"
                        + " before the command starts; runsc");
    }

    @Test
    void theJsonCarriesEveryRungsTimesCommandLineEnforcementAndFilter() {
        Engines.requireBoth();

        CliRun r = CliRun.of("doctor", "--json");

        JsonNode root = Json.MAPPER.readTree(r.out());
        Engines.require(root.get("tier").asString().equals("container"), "the container rung did not pass here:\n" + r.out());
        assertThat(r.exit()).isZero();
        assertThat(root.get("startAt").asString()).isEqualTo("container");
        assertThat(root.get("canaryRuns").asInt()).isEqualTo(5);
        JsonNode podman = root.get("rungs").get(0);
        JsonNode docker = root.get("rungs").get(1);
        JsonNode bwrap = root.get("rungs").get(2);
        assertThat(podman.get("standing").asString()).isEqualTo("taken");
        assertThat(podman.get("taken").asBoolean()).isTrue();
        assertThat(docker.get("standing").asString()).isEqualTo("skipped");
        assertThat(docker.get("canaryMillis").isNull()).isTrue();
        assertThat(docker.get("canaryTimesMillis")).isEmpty();
        assertThat(bwrap.get("standing").asString()).isEqualTo("passed");
        for (JsonNode rung : new JsonNode[] {podman, bwrap}) {
            assertThat(rung.get("canaryMillis").isNumber()).as(rung.toString()).isTrue();
            assertThat(rung.get("canaryTimesMillis")).as(rung.toString()).hasSize(5);
            assertThat(rung.get("seccompFilterLoaded").asBoolean()).isTrue();
            assertThat(rung.get("limitEnforcement").propertyNames())
                    .containsExactly("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
            assertThat(rung.get("canaryCommand").get(rung.get("canaryCommand").size() - 1).asString()).isEqualTo("/bin/true");
            assertThat(rung.get("warm").asString()).as(rung.toString()).startsWith("can run warm: a warm start ");
            assertThat(rung.get("commandNetwork").asString()).as(rung.toString()).startsWith("available: cold runs");
        }
        assertThat(docker.get("warm").isNull()).isTrue();
        assertThat(docker.get("commandNetwork").isNull()).isTrue();
        assertThat(root.get("warmMode").asString()).startsWith("off");
        assertThat(podman.get("canaryCommand").toString()).contains("\"--pull=never\"");
        assertThat(bwrap.get("canaryCommand").toString()).contains("\"--unshare-net\"");
    }
}
