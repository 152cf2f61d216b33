package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.SandboxPaths;
import dev.toolyard.sandbox.Hosts;
import dev.toolyard.sandbox.ResourceLimits;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool's policy, on real bubblewrap sandboxes (this JVM as root). */
@Tag("isolation")
class WarmPoolTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ResourceLimits LIMITS = ResourceLimits.builder().cpuSeconds(5).memoryBytes(256L << 20)
            .processCount(16).build();

    @TempDir
    Path tmp;
    private BwrapRung rung;
    private Path supervisor;
    private WarmPool pool;
    private final SandboxIds ids = new SandboxIds(1_900_010_000, 1_900_010_000, 8);

    @BeforeEach
    void realRung() throws IOException {
        Hosts.require(Hosts.root(), "the warm pool runs commands as sandbox uids, which needs this JVM to be root");
        var which = TieredSandbox.searchPath();
        Optional<Path> bwrap = which.apply("bwrap");
        Hosts.require(bwrap.isPresent(), "bwrap is not installed (run .ci/setup-sandbox.sh)");
        rung = new BwrapRung(new BwrapCommand.Tools(which.apply("dash").orElseThrow(), bwrap.get(),
                which.apply("env").orElseThrow(), which.apply("setpriv")), HostLayout.inspect(), LIMITS,
                Optional.of(ids),
                Optional.empty(), Optional.empty());
        supervisor = WarmBinary.install(Files.createDirectories(tmp.resolve("bin"))).path().orElseThrow();
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    private WarmPool pool(int perWorkspace, int maxTotal) {
        pool = new WarmPool(rung, supervisor, SeccompFilter.warmCommands().bpfProgramForHost(),
                new WarmPool.Policy(perWorkspace, Duration.ofMinutes(1), maxTotal, TIMEOUT));
        return pool;
    }

    private BindSet workspace(String name) throws IOException {
        return BindSet.of(SandboxPaths.of(Files.createDirectories(tmp.resolve(name)).toRealPath()), false);
    }

    /** Waits, at most 10 s, until {@code done} holds; the assertion after it says whether it did. */
    private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private static List<String> sh(String script) {
        return List.of("/bin/sh", "-c", script);
    }

    @Test
    void atTheTotalCapWithEverySandboxBusyACommandIsNotTakenSoTheCallerRunsItCold() throws Exception {
        WarmPool p = pool(1, 1);
        BindSet a = workspace("a");
        BindSet b = workspace("b");
        Path started = a.writeRoot().resolve("started");
        CompletableFuture<Optional<Supervisor.Outcome>> busy = CompletableFuture.supplyAsync(() ->
                p.run(a, sh("echo > started; sleep 1; echo done"), Map.of(), TIMEOUT, 4096));
        await(() -> Files.exists(started));

        assertThat(p.run(b, sh("echo b"), Map.of(), TIMEOUT, 4096)).as("no room for a second sandbox").isEmpty();
        assertThat(busy.get(20, TimeUnit.SECONDS).orElseThrow().stdout().text()).isEqualTo("done\n");
        assertThat(p.live()).isEqualTo(1);
        assertThat(p.run(b, sh("echo b"), Map.of(), TIMEOUT, 4096)).as("a's idle sandbox gives way").isPresent();
        assertThat(p.starts()).isEqualTo(2);
        assertThat(p.live()).isEqualTo(1);
    }

    @Test
    void concurrentCommandsInOneWorkspaceEachGetASandboxAndOnlyPerWorkspaceIdleOnesAreKept() throws Exception {
        WarmPool p = pool(1, 4);
        BindSet a = workspace("a");
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Optional<Supervisor.Outcome>>> runs = List.of(1, 2).stream().map(i ->
                CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return p.run(a, sh("sleep 0.5; echo " + i), Map.of(), TIMEOUT, 4096);
                })).toList();
        go.countDown();

        for (CompletableFuture<Optional<Supervisor.Outcome>> r : runs) {
            assertThat(r.get(20, TimeUnit.SECONDS)).isPresent();
        }
        assertThat(p.starts()).isEqualTo(2);
        await(() -> p.live() <= 1);
        assertThat(p.live()).isEqualTo(1);
        assertThat(p.idleCount()).isEqualTo(1);
    }

    @Test
    void warmUpFillsAWorkspaceUpToItsSizeAndAfterCloseNothingIsRunWarm() throws Exception {
        WarmPool p = pool(2, 4);
        BindSet a = workspace("a");
        p.warmUp(a);
        p.warmUp(a); // already on its way: no more than two
        await(() -> p.idleCount() >= 2);
        assertThat(p.idleCount()).isEqualTo(2);
        assertThat(p.starts()).isEqualTo(2);

        p.close();

        assertThat(p.live()).isZero();
        assertThat(p.run(a, sh("echo late"), Map.of(), TIMEOUT, 4096)).isEmpty();
        assertThat(Hosts.processesMentioning(a.writeRoot().toString())).isEmpty();
    }

    /** @return whether every uid of the test's block can be lent now: nothing holds one any more */
    private boolean everyUidFree() {
        List<SandboxIds.Lease> taken = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < ids.count(); i++) {
                Optional<SandboxIds.Lease> l = ids.acquireExclusive(0);
                if (l.isEmpty()) {
                    return false;
                }
                taken.add(l.get());
            }
            return true;
        } finally {
            taken.forEach(SandboxIds.Lease::close);
        }
    }

    @Test
    void aCallerInterruptedWhileItsSandboxWarmsUpLeavesThatSandboxToThePoolNotToNoOne() throws Exception {
        WarmPool p = pool(1, 4);
        BindSet a = workspace("a");
        p.warmUp(a);
        Thread.currentThread().interrupt(); // interrupted while it waits for the sandbox warming up for it
        Optional<Supervisor.Outcome> interrupted = p.run(a, sh("echo never"), Map.of(), TIMEOUT, 4096);
        assertThat(Thread.interrupted()).as("the interrupt flag is set again").isTrue();
        assertThat(interrupted).isEmpty();

        await(() -> p.idleCount() == 1);
        assertThat(p.idleCount()).as("the sandbox that warmed up for the interrupted caller is idle").isEqualTo(1);
        assertThat(p.live()).isEqualTo(1);
        assertThat(p.run(a, sh("echo next"), Map.of(), TIMEOUT, 4096).orElseThrow().stdout().text()).isEqualTo("next\n");
        assertThat(p.starts()).isEqualTo(1);
    }

    @Test
    void closeRightAfterDiscardsEndsEverySandboxAndGivesBackEveryUid() throws Exception {
        WarmPool p = pool(1, 4);
        List<BindSet> spaces = List.of(workspace("a"), workspace("b"), workspace("c"));
        for (BindSet b : spaces) {
            assertThat(p.run(b, sh("(exec sleep 77) & echo left"), Map.of(), TIMEOUT, 4096)).isPresent();
        }
        assertThat(p.discarded()).isEqualTo(3);
        p.close();

        assertThat(p.live()).isZero();
        for (BindSet b : spaces) {
            assertThat(Hosts.processesMentioning(b.writeRoot().toString())).isEmpty();
        }
        assertThat(everyUidFree()).as("every uid of the block is free after close()").isTrue();
    }

    @Test
    void aSandboxWhoseSupervisorNeverBecomesReadyLeavesNoUidAndNoProcess() throws Exception {
        Path hanging = Files.writeString(tmp.resolve("bin").resolve("hangs"), "#!/bin/sh\nexec sleep 600\n");
        hanging.toFile().setExecutable(true, false);
        pool = new WarmPool(rung, hanging, SeccompFilter.warmCommands().bpfProgramForHost(),
                new WarmPool.Policy(1, Duration.ofMinutes(1), 2, Duration.ofSeconds(1)));
        BindSet a = workspace("a");

        assertThat(pool.run(a, sh("echo never"), Map.of(), TIMEOUT, 4096)).as("the caller runs it cold").isEmpty();
        assertThat(pool.live()).isZero();
        await(() -> Hosts.processesMentioning(a.writeRoot().toString()).isEmpty());
        assertThat(Hosts.processesMentioning(a.writeRoot().toString())).isEmpty();
        assertThat(everyUidFree()).isTrue();
    }
}
