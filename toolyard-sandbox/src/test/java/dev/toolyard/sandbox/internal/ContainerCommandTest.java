package dev.toolyard.sandbox.internal;

import static dev.toolyard.sandbox.internal.Fixtures.BINDS;
import static dev.toolyard.sandbox.internal.Fixtures.DEBIAN;
import static dev.toolyard.sandbox.internal.Fixtures.indexOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContainerCommandTest {
    private static final ContainerCommand.Tools PODMAN = new ContainerCommand.Tools(ContainerCommand.Engine.PODMAN,
            Path.of("/usr/bin/podman"), Optional.of(Path.of("/usr/sbin/runc")), Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"),
            Path.of("/bin/sh"), Optional.of(Path.of("/usr/bin/setpriv")));
    private static final ContainerCommand.Tools DOCKER = new ContainerCommand.Tools(ContainerCommand.Engine.DOCKER,
            Path.of("/usr/bin/docker"), Optional.empty(), Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"),
            Path.of("/bin/sh"), Optional.empty());
    private static final ContainerCommand.Tools GVISOR = new ContainerCommand.Tools(ContainerCommand.Engine.PODMAN,
            Path.of("/usr/bin/podman"), Optional.of(Path.of("/usr/bin/runsc")), true, Path.of("/usr/bin/env"),
            Path.of("/usr/bin/prlimit"), Path.of("/bin/sh"), Optional.of(Path.of("/usr/bin/setpriv")));
    private static final ResourceLimits LIMITS = ResourceLimits.builder().memoryBytes(64L << 20).processCount(16).build();

    private static final ContainerCommand.Run AS_SANDBOX_UID = new ContainerCommand.Run(
            Optional.of(new SandboxIds.Pair(2147450881, 2147450882)), Optional.of(Path.of("/run/ty/seccomp.json")));

    private static List<String> run(ContainerCommand.Tools tools) {
        return run(tools, AS_SANDBOX_UID);
    }

    private static List<String> run(ContainerCommand.Tools tools, ContainerCommand.Run run) {
        return ContainerCommand.run(tools, "localhost/skeleton:1", "toolyard-abc", DEBIAN, LIMITS, BINDS,
                Map.of("PATH", "/usr/bin", "A", "x y"), List.of("A=B", "--help"), Duration.ofMillis(1500), run);
    }

    @Test
    void asRootTheCommandRunsAsTheLentUidAndGidUnderToolYardsSeccompProfile() {
        List<String> a = run(PODMAN);
        List<String> plain = run(PODMAN, new ContainerCommand.Run(Optional.empty(), Optional.empty()));

        assertThat(indexOf(a, "--user", "2147450881:2147450882")).isPositive().isLessThan(a.indexOf("localhost/skeleton:1"));
        assertThat(indexOf(a, "--security-opt", "seccomp=/run/ty/seccomp.json")).isPositive();
        assertThat(plain).doesNotContain("--user").noneMatch(arg -> arg.startsWith("seccomp="));
    }

    @Test
    void theContainerIsNamedNeverPulledOfflineReadOnlyAndPowerless() {
        List<String> a = run(PODMAN);

        assertThat(a.subList(0, 8)).as("the client dies with the JVM's thread").containsExactly("/usr/bin/setpriv",
                "--pdeathsig=KILL", "--", "/usr/bin/podman", "run", "--rm", "--name", "toolyard-abc");
        assertThat(a).contains("--pull=never", "--network=none", "--read-only", "--cap-drop=ALL", "--cgroupns=private");
        assertThat(indexOf(a, "--security-opt", "no-new-privileges")).isPositive();
        assertThat(indexOf(a, "--runtime", "/usr/sbin/runc")).isPositive();
        assertThat(a).doesNotContain("--privileged", "--network=host");
    }

    @Test
    void underGvisorTheRuntimeKeepsItsNetworkOffAppliesTheProfileAndThePidsCgroupLeavesItRoomWhileNprocBinds() {
        List<String> a = run(GVISOR);
        List<String> container = run(PODMAN);

        assertThat(indexOf(a, "--runtime", "/usr/bin/runsc", "--runtime-flag", "network=none", "--runtime-flag", "oci-seccomp"))
                .isPositive();
        assertThat(container).doesNotContain("--runtime-flag", "oci-seccomp");
        assertThat(indexOf(a, "--pids-limit", Integer.toString(512 + 32 * 16))).isPositive();
        assertThat(a).contains("--nproc=16");
        // Everything else is the container rung's line, flag for flag.
        List<String> expected = new java.util.ArrayList<>(container);
        int runtime = expected.indexOf("/usr/sbin/runc");
        expected.set(runtime, "/usr/bin/runsc");
        expected.addAll(runtime + 1, List.of("--runtime-flag", "network=none", "--runtime-flag", "oci-seccomp"));
        expected.set(expected.indexOf("--pids-limit") + 1, Integer.toString(512 + 32 * 16));
        assertThat(a).isEqualTo(expected);
    }

    @Test
    void underGvisorOnlyARunWithNetworkMayOpenHostUnixSocketsAndOnlyOpenNotCreate() {
        BindSet networked = BINDS.withNetwork(new BindSet.Network(Path.of("/run/ty/toolyard-relay"), Path.of("/run/ty/net-1")));
        List<String> offline = run(GVISOR);
        List<String> online = ContainerCommand.run(GVISOR, "localhost/skeleton:1", "toolyard-abc", DEBIAN, LIMITS, networked,
                Map.of("PATH", "/usr/bin"), List.of("true"), Duration.ofMillis(1500), AS_SANDBOX_UID);
        List<String> container = ContainerCommand.run(PODMAN, "localhost/skeleton:1", "toolyard-abc", DEBIAN, LIMITS,
                networked, Map.of("PATH", "/usr/bin"), List.of("true"), Duration.ofMillis(1500), AS_SANDBOX_UID);

        assertThat(offline).as("a gVisor run without network gets no host-uds flag at all")
                .noneMatch(arg -> arg.contains("host-uds"));
        assertThat(indexOf(online, "--runtime-flag", "network=none", "--runtime-flag", "oci-seccomp", "--runtime-flag",
                "host-uds=open")).isPositive();
        assertThat(online).filteredOn(arg -> arg.contains("host-uds")).containsExactly("host-uds=open");
        assertThat(online).contains("--network=none", "type=bind,source=/run/ty/net-1,destination=/toolyard-net,readonly");
        assertThat(container).as("runc needs no such flag").noneMatch(arg -> arg.contains("host-uds"))
                .doesNotContain("--runtime-flag");
    }

    @Test
    void memoryAndProcessesAreHeldByTheEngineAndTheRestByPrlimitInside() {
        List<String> a = run(PODMAN);

        assertThat(indexOf(a, "--memory", "67108864", "--memory-swap", "67108864")).isPositive();
        assertThat(indexOf(a, "--pids-limit", "16")).isPositive();
        assertThat(indexOf(a, "--ulimit", "nofile=1024:1024")).isPositive();
        assertThat(indexOf(a, "--ulimit", "nproc=1024:1024")).isPositive();
        assertThat(indexOf(a, "/usr/bin/prlimit", "--cpu=60", "--as=67108864", "--fsize=67108864")).isPositive();
    }

    @Test
    void theRuntimeAndTheRootsAreBoundAtTheirOwnPathsAndOnlyTheWriteRootIsWritableNosuidAndNodev() {
        List<String> a = run(PODMAN);

        assertThat(a).contains("type=bind,source=/usr,destination=/usr,readonly",
                "type=bind,source=/etc/passwd,destination=/etc/passwd,readonly",
                "type=bind,source=/opt/lib,destination=/opt/lib,readonly",
                "type=bind,source=/tmp/ws,destination=/tmp/ws,nosuid,nodev",
                "type=bind,source=/srv/ref,destination=/srv/ref,readonly");
        assertThat(a).noneMatch(arg -> arg.contains("/bin,") || arg.contains("source=/etc,"));
        assertThat(indexOf(a, "--workdir", "/tmp/ws")).isPositive();
    }

    @Test
    void theEnvironmentIsReplacedByTheAllowlistAndTheCommandFollowsPrlimitsSeparator() {
        List<String> a = run(PODMAN);
        int image = a.indexOf("localhost/skeleton:1");

        assertThat(a.subList(image, a.size())).containsExactly("localhost/skeleton:1", "/usr/bin/env", "-i", "--",
                "A=x y", "PATH=/usr/bin", "/usr/bin/prlimit", "--cpu=60", "--as=67108864", "--fsize=67108864",
                "--nofile=1024", "--nproc=16", "--core=0", "--", "A=B", "--help");
    }

    @Test
    void podmanOutputBypassesItsLogsAndItsOwnTimeoutBacksUpOurs() {
        List<String> a = run(PODMAN);

        assertThat(a).contains("--log-driver=passthrough", "--http-proxy=false");
        assertThat(indexOf(a, "--timeout", "12")).as("1.5 s rounded up, plus the grace").isPositive();
    }

    @Test
    void dockerTalksOnlyToTheLocalDaemonAndHasNoPodmanOnlyFlags() {
        List<String> a = run(DOCKER);

        assertThat(a.subList(0, 4)).containsExactly("/usr/bin/docker", "--host", "unix:///var/run/docker.sock", "run");
        assertThat(a).doesNotContain("--runtime", "--timeout", "--log-driver=passthrough", "--http-proxy=false");
        assertThat(a).contains("--pull=never", "--network=none");
    }

    @Test
    void removalKillsAtOnce() {
        assertThat(ContainerCommand.remove(PODMAN, "toolyard-abc"))
                .containsExactly("/usr/bin/podman", "rm", "-f", "-t", "0", "toolyard-abc");
        assertThat(ContainerCommand.remove(DOCKER, "toolyard-abc"))
                .containsExactly("/usr/bin/docker", "--host", "unix:///var/run/docker.sock", "rm", "-f", "toolyard-abc");
    }

    @Test
    void theClientGetsAFixedPathAndHomeAndNothingElseOfOurs() {
        assertThat(ContainerCommand.clientEnvironment("/root", Optional.empty()))
                .containsOnlyKeys("PATH", "HOME").containsEntry("HOME", "/root");
        assertThat(ContainerCommand.clientEnvironment("/home/a", Optional.of("/run/user/1000")))
                .containsEntry("XDG_RUNTIME_DIR", "/run/user/1000");
    }

    @Test
    void theEngineTimeoutRoundsUpAndNeverOverflows() {
        assertThat(ContainerCommand.engineTimeoutSeconds(Duration.ofSeconds(5))).isEqualTo(15);
        assertThat(ContainerCommand.engineTimeoutSeconds(Duration.ofMillis(1))).isEqualTo(11);
        assertThat(ContainerCommand.engineTimeoutSeconds(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void aWarmContainerIsTheSameContainerKeptOnItsInputWithTheSupervisorAsRootInitHoldingOnlyWhatItNeeds() {
        List<String> cold = run(PODMAN);
        List<String> warm = ContainerCommand.warmRun(PODMAN, "localhost/skeleton:1", "toolyard-warm-abc", DEBIAN, LIMITS, BINDS,
                AS_SANDBOX_UID, Path.of("/run/ty/toolyard-warm"));
        int image = warm.indexOf("localhost/skeleton:1");

        assertThat(indexOf(warm, "run", "--rm", "-i", "--name", "toolyard-warm-abc")).isPositive();
        assertThat(indexOf(warm, "--cap-drop=ALL", "--cap-add=SETUID,SETGID,SETPCAP,KILL")).isPositive();
        assertThat(indexOf(warm, "--user", "0:0")).isPositive().isLessThan(image);
        assertThat(indexOf(warm, "--pids-limit", "18")).as("room for the supervisor and its wipe").isPositive();
        assertThat(indexOf(warm, "--mount", "type=bind,source=/run/ty/toolyard-warm,destination=/toolyard-warm,readonly"))
                .isPositive().isLessThan(image);
        assertThat(warm).contains("--read-only", "--network=none", "--pull=never", "no-new-privileges",
                "seccomp=/run/ty/seccomp.json", "--log-driver=passthrough").doesNotContain("--timeout");
        assertThat(warm.subList(image + 1, warm.size())).containsExactly("/toolyard-warm", "2147450881", "2147450882", "60",
                Long.toString(64L << 20), "67108864", "1024", "16", "/tmp/ws", "/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue");
        assertThat(warm.get(0)).as("a warm container ends when its supervisor's input closes").isEqualTo("/usr/bin/podman");
        List<String> shared = new java.util.ArrayList<>(cold.subList(3, cold.indexOf("localhost/skeleton:1")));
        shared.removeAll(List.of("--user", "2147450881:2147450882", "--timeout", "12", "--pids-limit", "16", "toolyard-abc"));
        assertThat(warm.subList(0, image)).as("every other option as a cold run's").containsAll(shared);
    }

    @Test
    void aWarmGvisorContainerRunsUnderRunscWithItsFlagsAndAlsoWipesRunWhichRunscMountsWorldWritable() {
        List<String> warm = ContainerCommand.warmRun(GVISOR, "localhost/skeleton:1", "toolyard-warm-abc", DEBIAN, LIMITS, BINDS,
                AS_SANDBOX_UID, Path.of("/run/ty/toolyard-warm"));
        int image = warm.indexOf("localhost/skeleton:1");
        for (String flag : ContainerCommand.GVISOR_RUNTIME_FLAGS) {
            assertThat(indexOf(warm, "--runtime-flag", flag)).isPositive().isLessThan(image);
        }
        assertThat(indexOf(warm, "--cap-add=SETUID,SETGID,SETPCAP,KILL")).isPositive();
        assertThat(warm.subList(image + 1, warm.size())).endsWith("/tmp/ws", "/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run");
        assertThat(warm.get(image + 8)).as("RLIMIT_NPROC one lower: gVisor never counts the first process, forked as root")
                .isEqualTo("15");
        assertThat(ContainerCommand.warmRun(PODMAN, "localhost/skeleton:1", "toolyard-warm-abc", DEBIAN, LIMITS, BINDS,
                AS_SANDBOX_UID, Path.of("/run/ty/toolyard-warm"))).as("runc's /run is root's 0755: not wiped there")
                .doesNotContain("/run");
    }
}
