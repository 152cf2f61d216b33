package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.SandboxPaths;
import dev.toolyard.sandbox.Hosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
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
        a.abandon(); // disarms each run's watchdog
        b.abandon();
    }

    @Test
    void aContainersUidIsReleasedOnlyOnceARemovalSucceededNotWhenRmTimesOut(@TempDir Path tmp) throws Exception {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot lend sandbox uids");
        // A stand-in for the engine's client: "run" never ends, "rm" hangs until the flag file exists.
        Path flag = tmp.resolve("rm-works");
        Path calls = tmp.resolve("calls");
        Path client = tmp.resolve("fake-podman");
        Files.writeString(client, "#!/bin/sh\n"
                + "echo \"$1\" >> " + calls + "\n"
                + "case \"$1\" in\n"
                + "  run) exec sleep 60 ;;\n"
                + "  rm) [ -e " + flag + " ] && exit 0; exec sleep 60 ;;\n"
                + "  *) exit 0 ;;\n"
                + "esac\n");
        Files.setPosixFilePermissions(client, PosixFilePermissions.fromString("rwx------"));
        ContainerCommand.Tools fake = new ContainerCommand.Tools(ContainerCommand.Engine.PODMAN, client, Optional.empty(),
                Path.of("/usr/bin/env"), Path.of("/usr/bin/prlimit"), Path.of("/bin/sh"), Optional.empty());
        SandboxIds ids = new SandboxIds(1_900_007_000, 1_900_007_000, 1);
        ContainerRung rung = new ContainerRung(fake, "img:1", Fixtures.DEBIAN, ResourceLimits.defaults(), CLIENT_ENV,
                Optional.of(ids), Optional.empty(), Duration.ofMillis(500), Duration.ofMillis(200));
        Path ws = Files.createDirectory(tmp.resolve("ws")).toRealPath();

        Launch launch = rung.prepare(List.of("/bin/true"), BindSet.of(SandboxPaths.of(ws), true), Map.of(), Duration.ofSeconds(1));
        Supervisor.Outcome o = Supervisor.run(launch, Duration.ofMillis(500), 4096);

        assertThat(o.timedOut()).isTrue();
        assertThat(Files.readAllLines(calls)).as("the client was told to remove the container").contains("rm");
        assertThat(ids.acquireExclusive(0)).as("rm -f timed out: the container may live, so its uid stays held").isEmpty();
        Thread.sleep(600);
        assertThat(ids.acquireExclusive(0)).as("still held while every retry times out").isEmpty();

        Files.createFile(flag);
        Optional<SandboxIds.Lease> after = ids.acquireExclusive(TimeUnit.SECONDS.toNanos(10));
        assertThat(after).as("released by the first removal that succeeded").isPresent();
        after.get().close();
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
