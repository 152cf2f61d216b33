package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContainerRungTest {
    private static final ContainerCommand.Tools PODMAN = new ContainerCommand.Tools(ContainerCommand.Engine.PODMAN,
            Path.of("/usr/bin/podman"), Optional.empty(), Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"),
            Path.of("/bin/sh"), Optional.of(Path.of("/usr/bin/setpriv")));
    private static final Map<String, String> CLIENT_ENV = Map.of("PATH", "/usr/bin", "HOME", "/root");

    @Test
    void everyLimitIsEnforcedAndTheRungIsNamedAfterItsEngine() {
        ContainerRung rung = new ContainerRung(PODMAN, "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV, Optional.empty(), Optional.empty());

        assertThat(rung.name()).isEqualTo("podman");
        assertThat(rung.tier()).isEqualTo(IsolationTier.CONTAINER);
        assertThat(rung.limitsUnenforced()).isEmpty();
        assertThat(rung.enforcement()).containsOnlyKeys("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
        assertThat(rung.enforcement().get("processCount")).startsWith("the container's pids cgroup");
        assertThat(rung.filtered()).isFalse();
    }

    @Test
    void eachRunGetsItsOwnContainerNameAndTheClientItsOwnEnvironment() {
        ContainerRung rung = new ContainerRung(PODMAN, "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV, Optional.empty(), Optional.empty());

        Launch a = rung.prepare(List.of("/bin/true"), Fixtures.BINDS, Map.of(), Duration.ofSeconds(1));
        Launch b = rung.prepare(List.of("/bin/true"), Fixtures.BINDS, Map.of(), Duration.ofSeconds(1));

        String nameA = a.argv().get(a.argv().indexOf("--name") + 1);
        String nameB = b.argv().get(b.argv().indexOf("--name") + 1);
        assertThat(nameA).matches("toolyard-[0-9a-f]{16}").isNotEqualTo(nameB);
        assertThat(a.environment()).isEqualTo(CLIENT_ENV);
        assertThat(a.argv()).endsWith("/bin/true");
    }

    @Test
    void warmModeIsForPodmanWithSandboxUidsOnlyAndSaysWhyOtherwise() {
        ContainerRung notRoot = new ContainerRung(PODMAN, "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV,
                Optional.empty(), Optional.empty());
        ContainerRung asRoot = new ContainerRung(PODMAN, "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV,
                Optional.of(new SandboxIds(2147450880, 2147450880, 2)), Optional.empty());
        ContainerRung docker = new ContainerRung(new ContainerCommand.Tools(ContainerCommand.Engine.DOCKER,
                java.nio.file.Path.of("/usr/bin/docker"), Optional.empty(), java.nio.file.Path.of("/usr/bin/env"),
                java.nio.file.Path.of("/usr/bin/prlimit"), java.nio.file.Path.of("/bin/sh"), Optional.empty()), "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV,
                Optional.of(new SandboxIds(2147450880, 2147450880, 2)), Optional.empty());

        assertThat(asRoot.warmUnavailable()).isEmpty();
        assertThat(notRoot.warmUnavailable()).hasValueSatisfying(why -> assertThat(why).contains("root"));
        assertThat(docker.warmUnavailable()).hasValueSatisfying(why -> assertThat(why).contains("podman only"));
    }
}
