package dev.toolyard.sandbox;

import static org.junit.jupiter.api.Assertions.fail;

import dev.toolyard.IsolationTier;
import dev.toolyard.testing.Skip;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.time.Duration;

/**
 * The real sandboxes the isolation tests run on, one per rung, probed once per test JVM. Outside CI
 * a missing rung skips loudly; with {@code CI=true} it fails, because CI installs both.
 */
public final class Hosts {
    /** The skeleton image {@code .ci/setup-sandbox.sh} builds. */
    public static final String IMAGE = System.getProperty("toolyard.test.image", "localhost/toolyard-skeleton:1");
    /** Short limits, so the whole module's tests stay fast. */
    public static final ResourceLimits LIMITS = ResourceLimits.builder()
            .cpuSeconds(1)
            .memoryBytes(64L << 20)
            .fileSizeBytes(1L << 20)
            .processCount(16)
            .build();
    /**
     * Room for python3 and a copy of it: the probe and the setuid tests run on these. 60 CPU seconds:
     * the probe forks once a request, and on gVisor each fork costs tens of ms of the command's CPU.
     */
    public static final ResourceLimits ROOMY = ResourceLimits.builder()
            .cpuSeconds(60)
            .memoryBytes(512L << 20)
            .fileSizeBytes(64L << 20)
            .processCount(64)
            .build();
    public static final int OUTPUT_CAP = 64 * 1024;
    /**
     * {@link #LIMITS} with 10 CPU seconds: the process-limit tests' limits on gVisor, whose kernel
     * charges its own work for a {@code fork} to the forking process (about 50 ms each under load
     * here), so a fork loop under 1 CPU second can be killed by its CPU limit before it reaches the
     * process limit the test is about.
     */
    public static final ResourceLimits FORKING_ON_GVISOR = ResourceLimits.builder()
            .cpuSeconds(10)
            .memoryBytes(LIMITS.memoryBytes())
            .fileSizeBytes(LIMITS.fileSizeBytes())
            .processCount(LIMITS.processCount())
            .build();

    private static final Map<IsolationTier, TieredSandbox> SANDBOXES = new EnumMap<>(IsolationTier.class);
    private static final Map<IsolationTier, TieredSandbox> ROOMY_SANDBOXES = new EnumMap<>(IsolationTier.class);
    private static final Map<IsolationTier, TieredSandbox> WARM_SANDBOXES = new EnumMap<>(IsolationTier.class);
    private static final Map<IsolationTier, TieredSandbox> ROOMY_WARM_SANDBOXES = new EnumMap<>(IsolationTier.class);
    private static final Map<IsolationTier, TieredSandbox> FORKING_SANDBOXES = new EnumMap<>(IsolationTier.class);
    private static final Map<IsolationTier, TieredSandbox> FORKING_WARM_SANDBOXES = new EnumMap<>(IsolationTier.class);

    private Hosts() {}

    /** @return a "which" that sees what this host has, minus the names given */
    public static Function<String, Optional<Path>> hiding(String... names) {
        List<String> hidden = List.of(names);
        Function<String, Optional<Path>> all = TieredSandbox.searchPath();
        return name -> hidden.contains(name) ? Optional.empty() : all.apply(name);
    }

    /** @return the sandbox whose runs use {@code tier}, skipping (or, in CI, failing) if this host lacks it */
    public static synchronized TieredSandbox on(IsolationTier tier) {
        return on(tier, LIMITS, SANDBOXES);
    }

    /** @return as {@link #on}, with the {@link #FORKING_ON_GVISOR} limits */
    public static synchronized TieredSandbox forkingOnGvisor() {
        return on(IsolationTier.GVISOR, FORKING_ON_GVISOR, FORKING_SANDBOXES);
    }

    /** @return as {@link #forkingOnGvisor}, with warm mode on */
    public static synchronized TieredSandbox forkingWarmOnGvisor() {
        return warmOn(on(IsolationTier.GVISOR, FORKING_ON_GVISOR, FORKING_WARM_SANDBOXES, true));
    }

    /** @return as {@link #on}, with the {@link #ROOMY} limits */
    public static synchronized TieredSandbox roomy(IsolationTier tier) {
        return on(tier, ROOMY, ROOMY_SANDBOXES);
    }

    /**
     * @return as {@link #on}, with warm mode on, which this host must support (it is root): a sandbox
     *     whose report says warm mode is not on fails the test, so no warm test passes cold
     */
    public static synchronized TieredSandbox warm(IsolationTier tier) {
        return warmOn(on(tier, LIMITS, WARM_SANDBOXES, true));
    }

    /** @return as {@link #warm}, with the {@link #ROOMY} limits */
    public static synchronized TieredSandbox roomyWarm(IsolationTier tier) {
        return warmOn(on(tier, ROOMY, ROOMY_WARM_SANDBOXES, true));
    }

    /** @return the commands the warm sandboxes of these hosts answered warm so far */
    public static synchronized long warmRunsServed() {
        long n = 0;
        for (TieredSandbox s : WARM_SANDBOXES.values()) {
            n += s.warmRunsServed();
        }
        for (TieredSandbox s : ROOMY_WARM_SANDBOXES.values()) {
            n += s.warmRunsServed();
        }
        for (TieredSandbox s : FORKING_WARM_SANDBOXES.values()) {
            n += s.warmRunsServed();
        }
        return n;
    }

    private static TieredSandbox warmOn(TieredSandbox s) {
        if (!s.report().warmMode().startsWith("on")) {
            fail("warm mode is not on: " + s.report().warmMode());
        }
        return s;
    }

    /** @return whether this test JVM runs as root (the owner of {@code /proc/self}) */
    public static boolean root() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static TieredSandbox on(IsolationTier tier, ResourceLimits limits, Map<IsolationTier, TieredSandbox> cache) {
        return on(tier, limits, cache, false);
    }

    private static TieredSandbox on(IsolationTier tier, ResourceLimits limits, Map<IsolationTier, TieredSandbox> cache,
            boolean warm) {
        // Each test has a workspace of its own: idle warm sandboxes of earlier tests end soon, and give
        // back their sandbox uids.
        TieredSandbox s = cache.computeIfAbsent(tier, t -> builder(t, limits).warm(warm)
                .warmIdleTimeout(Duration.ofSeconds(2)).build());
        require(s.isolationTier() == tier, "the " + tier.wireName() + " rung is not available on this host "
                + "(run .ci/setup-sandbox.sh as root to install it):\n" + s.report().describe());
        return s;
    }

    /** @return a builder for a sandbox on {@code tier} with {@code limits} and the tests' output cap */
    public static TieredSandbox.Builder builder(IsolationTier tier, ResourceLimits limits) {
        TieredSandbox.Builder b = TieredSandbox.builder().limits(limits).outputCapBytes(OUTPUT_CAP);
        if (tier == IsolationTier.GVISOR) {
            b.containerImage(IMAGE).startAt(IsolationTier.GVISOR).lowestTier(IsolationTier.GVISOR);
        } else if (tier == IsolationTier.CONTAINER) {
            b.containerImage(IMAGE);
        } else {
            b.which(hiding("podman", "docker"));
        }
        return b;
    }

    /** Skips loudly when {@code ok} is false, or fails under {@code CI=true}: the test kit's {@link Skip}. */
    public static void require(boolean ok, String whatIsMissing) {
        Skip.unless(ok, whatIsMissing);
    }

    /** @return the pids of host processes whose command line contains {@code token} */
    public static List<Long> processesMentioning(String token) {
        List<Long> found = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    long pid = Long.parseLong(p.getFileName().toString());
                    if (pid != self && cmdline.contains(token)) {
                        found.add(pid);
                    }
                } catch (IOException | NumberFormatException e) {
                    // gone while we looked
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }
}
