package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.Hosts;
import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class LadderTest {
    private static final Map<String, String> CLIENT_ENV = ContainerCommand.clientEnvironment("/root", Optional.empty());
    private static final Ladder.Host ROOT = new Ladder.Host(true, new SandboxIds(2147450880, 2147450880, 4), Optional.empty());

    @Test
    void withNothingVisibleEveryRungIsSkippedAndEveryLimitIsUnenforced() {
        Ladder.Climb c = Ladder.climb(name -> Optional.empty(), ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT);

        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
        assertThat(c.rung()).isEmpty();
        assertThat(c.steps()).extracting(Ladder.Step::name).containsExactly("podman", "docker", "bwrap");
        assertThat(c.steps()).noneMatch(Ladder.Step::taken);
        assertThat(c.limitsUnenforced()).containsExactlyInAnyOrder("cpuSeconds", "memoryBytes", "fileSizeBytes", "processCount");
        assertThat(c.canaryArgv()).isEmpty();
    }

    @Test
    void aWhichThatAnswersRelativePathsOrNullIsTreatedAsFindingNothing() {
        Function<String, Optional<Path>> relative = name -> Optional.of(Path.of("bin", name));
        Function<String, Optional<Path>> nulls = name -> null;

        assertThat(Ladder.climb(relative, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT).steps().get(2).why())
                .startsWith("bwrap not found");
        assertThat(Ladder.climb(nulls, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT).steps().get(2).why())
                .startsWith("bwrap not found");
    }

    @Test
    void aHelperOutsideTheBoundRuntimeSkipsTheRungAndSaysWhy() {
        Function<String, Optional<Path>> which = name -> Optional.of(Path.of(name.equals("setpriv") ? "/opt/x/setpriv" : "/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT);

        assertThat(c.steps().get(2).why()).startsWith("setpriv at /opt/x/setpriv lies outside the runtime the sandbox binds (/usr)");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void asRootWithoutSetprivTheBubblewrapRungIsNotUsedRatherThanRunTheCommandAsRoot() {
        Function<String, Optional<Path>> which = name -> name.equals("setpriv") ? Optional.empty() : Optional.of(Path.of("/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT);

        assertThat(c.steps().get(2).why()).isEqualTo("setpriv not found (apt-get install util-linux); running as root, "
                + "the command must switch to a sandbox uid, so the rung is not used");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void withoutDashTheBubblewrapRungIsSkippedBecauseTheLauncherReliesOnItsUlimit() {
        Function<String, Optional<Path>> which = name -> name.equals("dash") ? Optional.empty() : Optional.of(Path.of("/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT);

        assertThat(c.steps().get(2).why()).startsWith("dash not found");
    }

    @Test
    @Tag("isolation")
    void aFailingCanarySkipsTheRungWithWhatItSaid() {
        // A podman that exists but cannot run the image: the canary, not the presence of a binary, decides.
        Hosts.require(Hosts.hiding().apply("podman").isPresent(), "podman is not installed (apt-get install podman runc)");

        Ladder.Climb c = Ladder.climb(Hosts.hiding("docker", "bwrap"), ResourceLimits.defaults(),
                "localhost/toolyard-no-such-image:0", CLIENT_ENV, ROOT);

        assertThat(c.steps().get(0).taken()).isFalse();
        assertThat(c.steps().get(0).why()).contains("canary failed: exit 125");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }
}
