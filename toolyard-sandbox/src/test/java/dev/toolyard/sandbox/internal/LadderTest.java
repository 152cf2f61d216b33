package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.IsolationTier;
import dev.toolyard.sandbox.Hosts;
import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LadderTest {
    private static final String STARTED_LOWER = "the application started the ladder at bubblewrap";
    private static final Map<String, String> CLIENT_ENV = ContainerCommand.clientEnvironment("/root", Optional.empty());
    private static final Ladder.Host ROOT = new Ladder.Host(true, new SandboxIds(1_900_009_000, 1_900_009_000, 4), Optional.empty());

    @Test
    void withNothingVisibleEveryRungIsSkippedAndEveryLimitIsUnenforced() {
        Ladder.Climb c = Ladder.climb(name -> Optional.empty(), ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

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

        assertThat(Ladder.climb(relative, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT, IsolationTier.CONTAINER).steps().get(2).why())
                .startsWith("bwrap not found");
        assertThat(Ladder.climb(nulls, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT, IsolationTier.CONTAINER).steps().get(2).why())
                .startsWith("bwrap not found");
    }

    @Test
    void aHelperOutsideTheBoundRuntimeSkipsTheRungAndSaysWhy() {
        Function<String, Optional<Path>> which = name -> Optional.of(Path.of(name.equals("setpriv") ? "/opt/x/setpriv" : "/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(c.steps().get(2).why()).startsWith("setpriv at /opt/x/setpriv lies outside the runtime the sandbox binds (/usr)");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void asRootWithoutSetprivTheBubblewrapRungIsNotUsedRatherThanRunTheCommandAsRoot() {
        Function<String, Optional<Path>> which = name -> name.equals("setpriv") ? Optional.empty() : Optional.of(Path.of("/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(c.steps().get(2).why()).isEqualTo("setpriv not found (apt-get install util-linux); running as root, "
                + "the command must switch to a sandbox uid, so the rung is not used");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void withoutDashTheBubblewrapRungIsSkippedBecauseTheLauncherReliesOnItsUlimit() {
        Function<String, Optional<Path>> which = name -> name.equals("dash") ? Optional.empty() : Optional.of(Path.of("/usr/bin/" + name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), null, CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(c.steps().get(2).why()).startsWith("dash not found");
    }

    @Test
    @Tag("isolation")
    void aFailingCanarySkipsTheRungWithWhatItSaid() {
        // A podman that exists but cannot run the image: the canary, not the presence of a binary, decides.
        Hosts.require(Hosts.hiding().apply("podman").isPresent(), "podman is not installed (apt-get install podman runc)");

        Ladder.Climb c = Ladder.climb(Hosts.hiding("docker", "bwrap"), ResourceLimits.defaults(),
                "localhost/toolyard-no-such-image:0", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(c.steps().get(0).taken()).isFalse();
        assertThat(c.steps().get(0).why()).contains("canary failed: exit 125");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void podmanWithoutItsNamedRuntimeIsNotProbedAndTheReportSaysWhich() {
        Function<String, Optional<Path>> which = name -> name.equals("runc") ? Optional.empty()
                : Optional.of(Path.of("/usr/bin", name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(c.steps().get(0).taken()).isFalse();
        assertThat(c.steps().get(0).canaryArgv()).as("no container was started with the engine's default runtime").isEmpty();
        assertThat(c.steps().get(0).why()).startsWith("OCI runtime runc not found (apt-get install runc)")
                .contains("never the engine's default");
    }

    @Test
    @Tag("isolation")
    @Timeout(120)
    void aRuntimeThatCannotStartContainersFailsTheCanaryAndTheLadderFallsToBubblewrap(@TempDir Path tmp) throws IOException {
        // What crun says on a hybrid cgroup layout, as a runtime of its own: podman runs it, it fails.
        Hosts.require(Hosts.hiding().apply("podman").isPresent(), "podman is not installed (apt-get install podman runc)");
        Hosts.require(Hosts.hiding().apply("bwrap").isPresent(), "bubblewrap is not installed (apt-get install bubblewrap)");
        Path broken = tmp.resolve("broken-runtime");
        Files.writeString(broken, "#!/bin/sh\necho 'crun: cgroups in hybrid mode not supported, drop all controllers "
                + "from cgroupv2' >&2\nexit 1\n");
        Files.setPosixFilePermissions(broken, PosixFilePermissions.fromString("rwxr-xr-x"));

        Ladder.Climb c = Ladder.climb(Hosts.hiding("docker"), Hosts.LIMITS, Hosts.IMAGE, broken.toString(), CLIENT_ENV,
                new Ladder.Host(Ladder.runsAsRoot(), new SandboxIds(1_900_009_100, 1_900_009_100, 4), Optional.empty()),
                IsolationTier.CONTAINER);

        assertThat(c.steps().get(0).taken()).isFalse();
        assertThat(c.steps().get(0).canaryArgv()).containsSequence("--runtime", broken.toString());
        assertThat(c.steps().get(0).why()).contains("OCI runtime " + broken).contains("canary failed")
                .contains("cgroups in hybrid mode not supported");
        assertThat(c.tier()).isEqualTo(IsolationTier.BWRAP);
    }

    @Test
    void startingAtBubblewrapSkipsBothContainerRungsInTheApplicationsWordsWithoutLookingForAnEngine() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        Function<String, Optional<Path>> which = name -> {
            asked.add(name);
            return Optional.empty();
        };

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT, IsolationTier.BWRAP);

        assertThat(c.steps()).extracting(Ladder.Step::name).containsExactly("podman", "docker", "bwrap");
        assertThat(c.steps().subList(0, 2)).extracting(Ladder.Step::why).containsOnly(STARTED_LOWER);
        assertThat(c.steps().get(2).why()).startsWith("bwrap not found");
        assertThat(asked).as("no engine is looked up above where the ladder starts").doesNotContain("podman", "docker", "runc")
                .contains("bwrap");
        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
    }

    @Test
    void startingAtTheContainerIsTheWholeLadderAndAsksForEveryEngine() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        Function<String, Optional<Path>> which = name -> {
            asked.add(name);
            return Optional.empty();
        };

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        assertThat(asked).contains("podman", "docker", "bwrap");
        assertThat(c.steps()).extracting(Ladder.Step::why).noneMatch(why -> why.contains("started the ladder"));
    }

    @Test
    void gvisorIsVisitedOnlyWhenTheApplicationStartsTheLadderThere() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        Function<String, Optional<Path>> which = name -> {
            asked.add(name);
            return Optional.empty();
        };

        Ladder.Climb whole = Ladder.climb(which, ResourceLimits.defaults(), "img:1", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);
        Ladder.Climb fromGvisor = Ladder.climb(which, ResourceLimits.defaults(), "img:1", "runc", CLIENT_ENV, ROOT,
                IsolationTier.GVISOR);

        assertThat(whole.steps()).extracting(Ladder.Step::name).containsExactly("podman", "docker", "bwrap");
        assertThat(fromGvisor.steps()).extracting(Ladder.Step::name).containsExactly("gvisor", "podman", "docker", "bwrap");
        assertThat(asked.subList(0, asked.indexOf("bwrap") + 1)).as("the default ladder never looks for runsc")
                .doesNotContain("runsc");
        assertThat(fromGvisor.steps().get(0).why()).isEqualTo("podman not found (apt-get install podman runsc): gVisor runs "
                + "through podman");
    }

    @Test
    void fromGvisorWithoutRunscTheLadderGoesOnAndSaysWhy() {
        Function<String, Optional<Path>> which = name -> name.equals("runsc") ? Optional.empty()
                : Optional.of(Path.of("/nonexistent-toolyard", name));

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), "img:1", "runc", CLIENT_ENV, ROOT,
                IsolationTier.GVISOR);

        assertThat(c.steps().get(0).why()).isEqualTo("runsc not found (apt-get install runsc)");
        assertThat(c.steps().get(1).why()).doesNotStartWith("not probed").doesNotContain("lowest tier");
    }

    @Test
    void gvisorOrNothingRefusesEveryRungBelowItWithoutProbingThem() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        Function<String, Optional<Path>> which = name -> {
            asked.add(name);
            return name.equals("runsc") ? Optional.empty() : Optional.of(Path.of("/usr/bin", name));
        };

        Ladder.Climb c = Ladder.climb(which, ResourceLimits.defaults(), "img:1", "runc", CLIENT_ENV, ROOT,
                IsolationTier.GVISOR, IsolationTier.GVISOR);

        assertThat(c.tier()).isEqualTo(IsolationTier.UNAVAILABLE);
        assertThat(c.steps().subList(1, 4)).extracting(Ladder.Step::why)
                .containsOnly("below the lowest tier the application accepts (gvisor): runs are refused rather than run there");
        assertThat(c.steps().subList(1, 4)).allMatch(st -> st.canaryArgv().isEmpty());
        assertThat(asked).doesNotContain("bwrap", "docker", "runc");
    }

    @Test
    void theLowestTierCannotBeAboveTheStart() {
        assertThatThrownBy(() -> Ladder.climb(name -> Optional.empty(), ResourceLimits.defaults(), null, "runc", CLIENT_ENV,
                ROOT, IsolationTier.BWRAP, IsolationTier.GVISOR)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lowest tier");
        assertThatThrownBy(() -> dev.toolyard.sandbox.TieredSandbox.builder().lowestTier(IsolationTier.GVISOR).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("lowestTier (GVISOR) is above startAt (CONTAINER)");
        assertThatThrownBy(() -> dev.toolyard.sandbox.TieredSandbox.builder().lowestTier(IsolationTier.IN_PROCESS).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("lowestTier must be GVISOR, CONTAINER or BWRAP");
    }

    @Test
    @Tag("isolation")
    @Timeout(180)
    void onThisHostGvisorPassesAForkingCanaryAndTheReportNamesTheRuntimeAndWhatEnforcesEachLimit() {
        Hosts.require(Hosts.hiding().apply("runsc").isPresent(), "runsc is not installed (apt-get install runsc)");

        Ladder.Climb c = Ladder.climb(Hosts.hiding("docker"), Hosts.LIMITS, Hosts.IMAGE, "runc", CLIENT_ENV,
                new Ladder.Host(Ladder.runsAsRoot(), new SandboxIds(1_900_009_200, 1_900_009_200, 4), Optional.empty()),
                IsolationTier.GVISOR, IsolationTier.GVISOR);

        assertThat(c.tier()).as(c.steps().toString()).isEqualTo(IsolationTier.GVISOR);
        Ladder.Step g = c.steps().get(0);
        assertThat(g.canaryArgv()).containsSequence("--runtime-flag", "network=none", "--runtime-flag", "oci-seccomp")
                .endsWith(Ladder.FORKING_CANARY.toArray(String[]::new));
        assertThat(g.why()).contains("runsc version").contains("forked from /bin/sh");
        assertThat(c.rung().orElseThrow().enforcement().get("processCount")).contains("RLIMIT_NPROC")
                .contains("enforced by gVisor's kernel");
    }

    /**
     * Our profile is what refuses inside gVisor, not gVisor by itself: two calls gVisor's kernel
     * implements and lets an unprivileged process make (a new user namespace, and being traced)
     * succeed on the gVisor rung without the profile, and fail with the filter's EPERM with it. One
     * launch each; the isolation tests show every other denial on this rung.
     */
    @Test
    @Tag("isolation")
    @Timeout(180)
    void onGvisorOurProfileIsWhatRefusesCallsGvisorImplements(@TempDir Path tmp) throws IOException {
        Hosts.require(Hosts.hiding().apply("runsc").isPresent(), "runsc is not installed (apt-get install runsc)");
        Path work = Files.createDirectories(tmp.resolve("work"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        String script = "import ctypes, os\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                + "pid = os.fork()\n"
                + "if pid == 0:\n"
                + "    r = libc.unshare(0x10000000)\n" // CLONE_NEWUSER, in a child: it changes the caller
                + "    print('unshare-user', 0 if r == 0 else ctypes.get_errno(), flush=True)\n"
                + "    os._exit(0)\n"
                + "os.waitpid(pid, 0)\n"
                + "r = libc.ptrace(0, 0, None, None)\n" // PTRACE_TRACEME
                + "print('ptrace-traceme', 0 if r == 0 else ctypes.get_errno(), flush=True)\n";
        SandboxFiles files = SandboxFiles.write(HostLayout.inspect(), Optional.empty(), Optional.empty(),
                Optional.of(SeccompFilter.standard().forGvisor().ociProfileJson()));
        try {
            SandboxIds ids = new SandboxIds(1_900_009_300, 1_900_009_300, 4);
            Map<String, String> got = new java.util.LinkedHashMap<>();
            for (boolean filtered : new boolean[] {false, true}) {
                Ladder.Climb c = Ladder.climb(Hosts.hiding("docker"), Hosts.ROOMY, Hosts.IMAGE, "runc", CLIENT_ENV,
                        new Ladder.Host(Ladder.runsAsRoot(), ids, filtered ? Optional.of(files) : Optional.empty()),
                        IsolationTier.GVISOR, IsolationTier.GVISOR);
                assertThat(c.tier()).as(c.steps().toString()).isEqualTo(IsolationTier.GVISOR);
                Rung rung = c.rung().orElseThrow();
                assertThat(rung.filtered()).isEqualTo(filtered);
                Duration timeout = Duration.ofSeconds(60);
                Supervisor.Outcome o = Supervisor.run(rung.prepare(List.of("/usr/bin/python3", "-c", script),
                        BindSet.of(dev.toolyard.SandboxPaths.of(work.toRealPath()), true), Map.of(), timeout), timeout, 4096);
                got.put(filtered ? "with" : "without", o.stdout().text() + o.stderr().text());
            }

            assertThat(got.get("without")).as("gVisor itself allows both").isEqualTo("unshare-user 0\nptrace-traceme 0\n");
            assertThat(got.get("with")).as("our profile refuses both").isEqualTo("unshare-user 1\nptrace-traceme 1\n");
        } finally {
            files.delete();
        }
    }

    @Test
    void theLadderNeverStartsBelowBubblewrap() {
        assertThatThrownBy(() -> Ladder.climb(name -> Optional.empty(), ResourceLimits.defaults(), null, CLIENT_ENV, ROOT,
                IsolationTier.UNAVAILABLE)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("never below bubblewrap");
        assertThatThrownBy(() -> Ladder.survey(name -> Optional.empty(), ResourceLimits.defaults(), null, "runc", CLIENT_ENV, ROOT,
                IsolationTier.UNAVAILABLE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Tag("isolation")
    void aSurveyRunsEveryRungsCanaryFiveTimesAndMarksTheFirstThatPassedAsTaken() {
        Hosts.require(Hosts.hiding().apply("podman").isPresent(), "podman is not installed (apt-get install podman runc)");
        Hosts.require(Hosts.hiding().apply("bwrap").isPresent(), "bubblewrap is not installed (apt-get install bubblewrap)");

        Ladder.Climb c = Ladder.survey(Hosts.hiding("docker"), Hosts.LIMITS, Hosts.IMAGE, "runc", CLIENT_ENV, ROOT, IsolationTier.CONTAINER);

        Hosts.require(c.tier() == IsolationTier.CONTAINER, "the container rung did not pass: " + c.steps());
        Ladder.Step podman = c.steps().get(0);
        Ladder.Step docker = c.steps().get(1);
        Ladder.Step bwrap = c.steps().get(2);
        assertThat(podman.taken()).isTrue();
        assertThat(podman.canaryTimes()).hasSize(Ladder.SURVEY_RUNS).allMatch(t -> t.compareTo(Duration.ZERO) > 0);
        assertThat(podman.why()).contains("canary /bin/true exited 0 on each of 5 runs, median ");
        assertThat(podman.canaryArgv()).contains("--pull=never", "--network=none").endsWith("/bin/true");
        assertThat(docker.why()).isEqualTo("docker not found");
        assertThat(docker.canaryTimes()).isEmpty();
        assertThat(bwrap.taken()).as("below the rung taken").isFalse();
        assertThat(bwrap.rung()).as("but probed, and it passed").isPresent();
        assertThat(bwrap.canaryTimes()).hasSize(Ladder.SURVEY_RUNS);
        assertThat(bwrap.why()).endsWith("; not taken: podman is higher on the ladder");
        assertThat(bwrap.canaryArgv()).contains("--unshare-pid", "--unshare-net").endsWith("/bin/true");
        assertThat(c.canaryArgv()).isEqualTo(podman.canaryArgv());
    }

    @Test
    @Tag("isolation")
    void theLadderRunsEachCanaryOnceAndLeavesTheRungsBelowTheOneTakenUnprobed() {
        Hosts.require(Hosts.hiding().apply("bwrap").isPresent(), "bubblewrap is not installed (apt-get install bubblewrap)");

        Ladder.Climb c = Ladder.climb(Hosts.hiding("podman", "docker"), Hosts.LIMITS, Hosts.IMAGE, CLIENT_ENV, ROOT,
                IsolationTier.BWRAP);

        Hosts.require(c.tier() == IsolationTier.BWRAP, "the bubblewrap rung did not pass: " + c.steps());
        assertThat(c.steps().subList(0, 2)).extracting(Ladder.Step::why).containsOnly(STARTED_LOWER);
        assertThat(c.steps().get(2).taken()).isTrue();
        assertThat(c.steps().get(2).canaryTimes()).hasSize(1);
        assertThat(c.steps().get(2).why()).containsPattern("canary /bin/true exited 0 in \\d+ ms$");
    }

    @Test
    @Tag("isolation")
    @Timeout(60) // a hang guard only: the survey itself must give up on the engine after 2 s
    void anEngineThatHangsIsAbandonedAtItsDeadlineAndTheSurveyGoesOnToTheNextRung(@TempDir Path dir) throws IOException {
        Hosts.require(Hosts.hiding().apply("bwrap").isPresent(), "bubblewrap is not installed (apt-get install bubblewrap)");
        // An engine whose client never answers, neither to run nor to the rm -f that stops a run: a daemon
        // that stopped answering its socket. It stands in for the engine only here, to show the deadline.
        Path engine = dir.resolve("docker");
        Files.writeString(engine, "#!/bin/sh\nwhile :; do sleep 1; done\n");
        Files.setPosixFilePermissions(engine, PosixFilePermissions.fromString("rwx------"));
        Function<String, Optional<Path>> host = Hosts.hiding("podman");
        Function<String, Optional<Path>> which = name -> name.equals("docker") ? Optional.of(engine) : host.apply(name);
        Ladder.Mode quick = new Ladder.Mode(true, 3, Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(1));

        try {
            Ladder.Climb c = Ladder.climb(which, Hosts.LIMITS, Hosts.IMAGE, "runc", CLIENT_ENV, ROOT, IsolationTier.CONTAINER, quick);

            Ladder.Step docker = c.steps().get(1);
            assertThat(docker.why()).contains("canary abandoned: no answer within 2 s (the engine hangs?) (run 1 of 3)");
            assertThat(docker.canaryArgv()).as("the command line that hung").contains(engine.toString(), "run", "--pull=never");
            assertThat(docker.rung()).isEmpty();
            assertThat(c.steps().get(2).taken()).as("the survey went on to bubblewrap").isTrue();
        } finally {
            for (long pid : Hosts.processesMentioning(dir.toString())) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // the rm -f the deadline left behind
            }
        }
    }
}
