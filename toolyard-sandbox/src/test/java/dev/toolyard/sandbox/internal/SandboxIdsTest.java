package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease rules of {@link SandboxIds} on their own (no sandbox): uids lent once, exclusive leases,
 * nested trees, and the lock directory. Leases lock files under the default directory, which only root
 * may make, so these run as root (CI does).
 */
class SandboxIdsTest {
    private static final long NO_WAIT = 0;
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(200);

    @TempDir
    Path tmp;

    @BeforeAll
    static void root() {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot lock sandbox uids under " + HostUidLocks.DEFAULT);
    }

    @Test
    void runsUnderWayAtOnceAreNeverLentTheSameUid() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_000_000, 1_900_000_000, 8);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch allHold = new CountDownLatch(8);
        List<SandboxIds.Lease> leases = new ArrayList<>();
        try {
            List<Future<SandboxIds.Lease>> held = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                held.add(pool.submit(() -> {
                    SandboxIds.Lease l = ids.acquireExclusive(TimeUnit.SECONDS.toNanos(5)).orElseThrow();
                    allHold.countDown();
                    allHold.await();
                    return l;
                }));
            }
            Set<Integer> uids = new HashSet<>();
            for (Future<SandboxIds.Lease> f : held) {
                SandboxIds.Lease l = f.get();
                leases.add(l);
                assertThat(l.gid() - 1_900_000_000).isEqualTo(l.uid() - 1_900_000_000);
                uids.add(l.uid());
            }
            assertThat(uids).hasSize(8).allMatch(ids::owns);
            assertThat(ids.acquireExclusive(NO_WAIT)).as("all lent").isEmpty();
        } finally {
            pool.shutdownNow();
            leases.forEach(SandboxIds.Lease::close);
        }
    }

    @Test
    void aReleasedPairIsLentAgainFirstSoOneRunAfterAnotherKeepsItsFilesOwner() {
        SandboxIds ids = new SandboxIds(1_900_001_000, 1_900_001_000, 4);

        SandboxIds.Lease first = ids.acquireExclusive(NO_WAIT).orElseThrow();
        first.close();
        SandboxIds.Lease second = ids.acquireExclusive(NO_WAIT).orElseThrow();
        second.close();

        assertThat(second.pair()).isEqualTo(first.pair());
    }

    @Test
    void aLeaseIsReleasedExactlyOnceHoweverOftenItIsClosed() {
        SandboxIds ids = new SandboxIds(1_900_001_100, 1_900_001_100, 2);
        SandboxIds.Lease a = ids.acquireExclusive(NO_WAIT).orElseThrow();
        a.close();
        SandboxIds.Lease b = ids.acquireExclusive(NO_WAIT).orElseThrow(); // a's pair, lent again
        SandboxIds.Lease c = ids.acquireExclusive(NO_WAIT).orElseThrow();

        a.close(); // a second close of a released lease must not free b's uid

        assertThat(a.released()).isTrue();
        assertThat(b.pair()).isEqualTo(a.pair());
        assertThat(ids.acquireExclusive(NO_WAIT)).as("b and c still hold both uids").isEmpty();
        b.close();
        c.close();
    }

    @Test
    void coldRunsOfOneWriteRootShareTheirPairAndRunsOfAnotherRootDoNot() {
        SandboxIds ids = new SandboxIds(1_900_005_000, 1_900_005_000, 4);
        Path w = Path.of("/srv/work"), other = Path.of("/srv/other");

        SandboxIds.Lease a = ids.acquire(w, NO_WAIT).orElseThrow();
        SandboxIds.Lease b = ids.acquire(w, NO_WAIT).orElseThrow();
        SandboxIds.Lease c = ids.acquire(other, NO_WAIT).orElseThrow();
        a.close();
        SandboxIds.Lease d = ids.acquire(w, NO_WAIT).orElseThrow();

        assertThat(b.pair()).isEqualTo(a.pair());
        assertThat(c.pair()).isNotEqualTo(a.pair());
        assertThat(d.pair()).as("one run still held it").isEqualTo(a.pair());
        b.close();
        d.close();
        c.close();
        SandboxIds.Lease next = ids.acquireExclusive(NO_WAIT).orElseThrow();
        assertThat(next.pair()).as("all released, the last released first").isEqualTo(c.pair());
        next.close();
    }

    @Test
    void anExclusiveLeaseSharesItsUidWithNoColdRunAndNoOtherSandbox() throws IOException {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot change owners");
        SandboxIds ids = new SandboxIds(1_900_005_100, 1_900_005_100, 3);
        Path w = Files.createDirectory(tmp.resolve("w")).toRealPath();

        try (SandboxIds.Lease warm = ids.acquireExclusive(NO_WAIT).orElseThrow();
                SandboxIds.Lease otherWarm = ids.acquireExclusive(NO_WAIT).orElseThrow()) {
            SandboxIds.Lease cold;
            try (SandboxIds.Claim claim = warm.claim(w, NO_WAIT).orElseThrow()) {
                assertThat(claim.writeRoot()).isEqualTo(w);
                assertThat(Files.getAttribute(w, "unix:uid")).as("handed over to the sandbox").isEqualTo(warm.uid());
                assertThat(ids.acquire(w, SHORT)).as("a cold run of W waits while the sandbox's command works in W").isEmpty();
                assertThat(otherWarm.claim(w, SHORT)).as("so does another sandbox of W").isEmpty();
            }
            cold = ids.acquireHandedOver(w, NO_WAIT).orElseThrow();
            assertThat(cold.uid()).as("a uid of its own, not the idle sandbox's").isNotIn(warm.uid(), otherWarm.uid());
            assertThat(ids.acquireExclusive(NO_WAIT)).as("three uids, three holders").isEmpty();
            cold.close();
        }
    }

    @Test
    void aClaimNeedsAnExclusiveLeaseThatIsNotReleasedAndHasNoClaimOpen() throws IOException {
        SandboxIds ids = new SandboxIds(1_900_005_200, 1_900_005_200, 2);
        Path w = Files.createDirectory(tmp.resolve("c")).toRealPath();
        SandboxIds.Lease cold = ids.acquire(w, NO_WAIT).orElseThrow();
        SandboxIds.Lease warm = ids.acquireExclusive(NO_WAIT).orElseThrow();
        Path other = Files.createDirectory(tmp.resolve("d")).toRealPath();

        assertThatThrownBy(() -> cold.claim(w, NO_WAIT)).isInstanceOf(IllegalStateException.class);
        SandboxIds.Claim claim = warm.claim(other, NO_WAIT).orElseThrow();
        assertThatThrownBy(() -> warm.claim(other, NO_WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("claim open");
        warm.close();
        assertThatThrownBy(() -> warm.claim(other, NO_WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released");
        claim.close(); // closed by the lease already: nothing more happens
        cold.close();
        assertThat(ids.acquire(other, NO_WAIT)).as("the lease's close freed its claim").isPresent().get()
                .satisfies(SandboxIds.Lease::close);
    }

    @Test
    void aWaitingRunGetsTheFirstPairReleased() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_002_000, 1_900_002_000, 1);
        SandboxIds.Lease only = ids.acquireExclusive(NO_WAIT).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Optional<SandboxIds.Lease>> waiting = pool.submit(() -> ids.acquireExclusive(TimeUnit.SECONDS.toNanos(10)));
            Thread.sleep(50);
            only.close();
            Optional<SandboxIds.Lease> got = waiting.get(10, TimeUnit.SECONDS);
            assertThat(got).map(SandboxIds.Lease::pair).contains(only.pair());
            got.get().close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoPoolsOverTheSameIdsNeverLendOneUidTwice() {
        SandboxIds a = new SandboxIds(1_900_003_000, 1_900_003_000, 2);
        SandboxIds b = new SandboxIds(1_900_003_001, 1_900_003_001, 2);

        SandboxIds.Lease a1 = a.acquireExclusive(NO_WAIT).orElseThrow();
        SandboxIds.Lease a2 = a.acquireExclusive(NO_WAIT).orElseThrow();
        SandboxIds.Lease b1 = b.acquireExclusive(NO_WAIT).orElseThrow();

        assertThat(List.of(a1.uid(), a2.uid())).containsExactlyInAnyOrder(1_900_003_000, 1_900_003_001);
        assertThat(b1.uid()).isEqualTo(1_900_003_002);
        assertThat(b.acquireExclusive(NO_WAIT)).as("1_900_003_001 is a's").isEmpty();
        a1.close();
        a2.close();
        b1.close();
    }

    @Test
    void anInterruptedWaitGivesUpAndKeepsTheFlag() {
        SandboxIds ids = new SandboxIds(1_900_004_000, 1_900_004_000, 1);
        SandboxIds.Lease held = ids.acquireExclusive(NO_WAIT).orElseThrow();

        Thread.currentThread().interrupt();
        try {
            assertThat(ids.acquireExclusive(TimeUnit.SECONDS.toNanos(10))).isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
            held.close();
        }
    }

    @Test
    void aUidSomeProcessOnTheHostRunsAsIsNotLent() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_004_100, 1_900_004_100, 2);
        Process orphan = new ProcessBuilder("setpriv", "--reuid=1900004100", "--regid=1900004100", "--clear-groups",
                "sleep", "30").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!HostUidLocks.runningAs(1_900_004_100, 1).contains(1_900_004_100) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            SandboxIds.Lease first = ids.acquireExclusive(NO_WAIT).orElseThrow();
            assertThat(first.uid()).as("1900004100 has a live process").isEqualTo(1_900_004_101);
            assertThat(ids.acquireExclusive(NO_WAIT)).isEmpty();
            first.close();
        } finally {
            orphan.destroyForcibly().waitFor();
        }
        SandboxIds.Lease after = ids.acquireExclusive(TimeUnit.SECONDS.toNanos(5)).orElseThrow();
        SandboxIds.Lease second = ids.acquireExclusive(TimeUnit.SECONDS.toNanos(5)).orElseThrow();
        assertThat(List.of(after.uid(), second.uid())).as("free once its process is gone").contains(1_900_004_100);
        after.close();
        second.close();
    }

    @Test
    void aColdRunsReleasedPairIsKeptAndLentToTheNextRunOfItsRootWithoutAHostScan() {
        SandboxIds ids = new SandboxIds(1_900_004_400, 1_900_004_400, 2);
        Path root = tmp.resolve("w");

        SandboxIds.Lease first = ids.acquire(root, NO_WAIT).orElseThrow();
        int uid = first.uid();
        first.close();
        assertThat(SandboxIds.keptUids()).as("its host lock kept").contains(uid);
        long scans = SandboxIds.lendingScans();
        SandboxIds.Lease next = ids.acquire(root, NO_WAIT).orElseThrow();
        assertThat(next.uid()).isEqualTo(uid);
        assertThat(SandboxIds.lendingScans()).as("lent on the scan of the first run, less than a second old").isEqualTo(scans);
        assertThat(SandboxIds.keptUids()).doesNotContain(uid);
        next.close();

        SandboxIds.Lease warm = ids.acquireExclusive(NO_WAIT).orElseThrow();
        warm.close();
        assertThat(SandboxIds.keptUids()).as("an exclusive lease's pair drops its lock at once").doesNotContain(warm.uid());
    }

    @Test
    void aKeptPairsHostLockIsDroppedOnceItsKeepTimeHasPassed() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_004_500, 1_900_004_500, 1);
        SandboxIds.Lease run = ids.acquire(tmp.resolve("w"), NO_WAIT).orElseThrow();
        run.close();
        assertThat(lockableByAnotherProcess(run.uid())).as("kept: no other process can lend it").isFalse();
        long deadline = System.nanoTime() + SandboxIds.KEEP_NANOS + TimeUnit.SECONDS.toNanos(5);
        while (SandboxIds.keptUids().contains(run.uid()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(SandboxIds.keptUids()).doesNotContain(run.uid());
        assertThat(lockableByAnotherProcess(run.uid())).as("dropped after %d ms", TimeUnit.NANOSECONDS.toMillis(SandboxIds.KEEP_NANOS))
                .isTrue();
    }

    @Test
    void aProcessRunningAsAKeptUidKeepsItFromEveryRunOnceTheLastScanIsStale() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_004_600, 1_900_004_600, 2);
        Path root = tmp.resolve("w");
        SandboxIds.Lease run = ids.acquire(root, NO_WAIT).orElseThrow();
        int uid = run.uid();
        run.close();
        // A process no lease started (an older release that takes no lock, say) comes to run as the kept uid.
        Process stranger = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "sleep", "30").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!HostUidLocks.runningAs(uid, 1).contains(uid) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(HostUidLocks.runningAs(uid, 1)).contains(uid);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(SandboxIds.FRESH_NANOS) + 100);
            for (Path next : List.of(root, tmp.resolve("other"))) {
                SandboxIds.Lease lease = ids.acquire(next, NO_WAIT).orElseThrow();
                assertThat(lease.uid()).as("uid %d has a live process; a run of %s", uid, next).isNotEqualTo(uid);
                lease.close();
            }
            assertThat(SandboxIds.keptUids()).doesNotContain(uid);
        } finally {
            stranger.destroyForcibly().waitFor();
        }
    }

    /** @return whether another process can lock uid's lock file now (a POSIX record lock, as the pool takes) */
    private static boolean lockableByAnotherProcess(int uid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                + "fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", HostUidLocks.DEFAULT + "/" + Integer.toUnsignedString(uid) + ".lock")
                .redirectErrorStream(true).start();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @Test
    void theStatusLineParserReadsEveryUidOfTheBlock() {
        Set<Integer> into = new HashSet<>();
        HostUidLocks.uids("Name:\tsleep\nUmask:\t0022\nUid:\t0\t1900004200\t0\t1900004201\nGid:\t5\t5\t5\t5\n",
                1_900_004_200, 2, into);
        assertThat(into).containsExactlyInAnyOrder(1_900_004_200, 1_900_004_201);
    }

    @Test
    void aLockDirectoryThatIsALinkOrWritableByOthersOrNotRootsIsRefusedNamingIt() throws IOException {
        Path real = Files.createDirectory(tmp.resolve("real"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path notRoots = Files.createDirectory(tmp.resolve("nobody"));
        Files.setAttribute(notRoots, "unix:uid", 65534);

        for (Path bad : List.of(link, open, notRoots)) {
            SandboxIds ids = new SandboxIds(1_900_004_300, 1_900_004_300, 1, bad);
            assertThatThrownBy(() -> ids.acquireExclusive(NO_WAIT)).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining(bad.toString());
            assertThatThrownBy(ids::checkLockDirectory).isInstanceOf(IOException.class).hasMessageContaining(bad.toString());
        }
        SandboxIds made = new SandboxIds(1_900_004_300, 1_900_004_300, 1, tmp.resolve("made/uids"));
        made.acquireExclusive(NO_WAIT).orElseThrow().close();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("made/uids"))))
                .isEqualTo("rwx------");
        assertThat(tmp.resolve("made/uids/1900004300.lock")).exists();
    }
}
