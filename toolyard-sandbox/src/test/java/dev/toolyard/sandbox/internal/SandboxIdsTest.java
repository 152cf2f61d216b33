package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SandboxIdsTest {
    private static final long NO_WAIT = 0;

    @Test
    void runsUnderWayAtOnceAreNeverLentTheSameUid() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_000_000, 1_900_000_000, 8);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch allHold = new CountDownLatch(8);
        try {
            List<Future<SandboxIds.Lease>> held = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                held.add(pool.submit(() -> {
                    SandboxIds.Lease l = ids.acquire(TimeUnit.SECONDS.toNanos(5)).orElseThrow();
                    allHold.countDown();
                    allHold.await();
                    return l;
                }));
            }
            Set<Integer> uids = new HashSet<>();
            for (Future<SandboxIds.Lease> f : held) {
                SandboxIds.Lease l = f.get();
                assertThat(l.gid() - 1_900_000_000).isEqualTo(l.uid() - 1_900_000_000);
                uids.add(l.uid());
            }
            assertThat(uids).hasSize(8).allMatch(ids::owns);
            assertThat(ids.acquire(NO_WAIT)).as("all lent").isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReleasedPairIsLentAgainFirstSoOneRunAfterAnotherKeepsItsFilesOwner() {
        SandboxIds ids = new SandboxIds(1_900_001_000, 1_900_001_000, 4);

        SandboxIds.Lease first = ids.acquire(NO_WAIT).orElseThrow();
        ids.release(first);
        SandboxIds.Lease second = ids.acquire(NO_WAIT).orElseThrow();
        ids.release(second);

        assertThat(second).isEqualTo(first);
    }

    @Test
    void runsOnOneWriteRootShareItsPairSoOnesHandOverDoesNotTakeTheFilesFromTheOther() {
        SandboxIds ids = new SandboxIds(1_900_005_000, 1_900_005_000, 4);
        Path w = Path.of("/srv/work"), other = Path.of("/srv/other");

        SandboxIds.Lease a = ids.acquire(w, NO_WAIT).orElseThrow();
        SandboxIds.Lease b = ids.acquire(w, NO_WAIT).orElseThrow();
        SandboxIds.Lease c = ids.acquire(other, NO_WAIT).orElseThrow();
        ids.release(w, a);
        SandboxIds.Lease d = ids.acquire(w, NO_WAIT).orElseThrow();

        assertThat(b).isEqualTo(a);
        assertThat(c).isNotEqualTo(a);
        assertThat(d).as("one run still held it").isEqualTo(a);
        ids.release(w, b);
        ids.release(w, d);
        ids.release(other, c);
        assertThat(ids.acquire(NO_WAIT)).as("all released, the last released first").contains(c);
    }

    @Test
    void aWaitingRunGetsTheFirstPairReleased() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_002_000, 1_900_002_000, 1);
        SandboxIds.Lease only = ids.acquire(NO_WAIT).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<java.util.Optional<SandboxIds.Lease>> waiting = pool.submit(() -> ids.acquire(TimeUnit.SECONDS.toNanos(10)));
            Thread.sleep(50);
            ids.release(only);
            assertThat(waiting.get(10, TimeUnit.SECONDS)).contains(only);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoPoolsOverTheSameIdsNeverLendOneUidTwice() {
        SandboxIds a = new SandboxIds(1_900_003_000, 1_900_003_000, 2);
        SandboxIds b = new SandboxIds(1_900_003_001, 1_900_003_001, 2);

        SandboxIds.Lease a1 = a.acquire(NO_WAIT).orElseThrow();
        SandboxIds.Lease a2 = a.acquire(NO_WAIT).orElseThrow();
        SandboxIds.Lease b1 = b.acquire(NO_WAIT).orElseThrow();

        assertThat(List.of(a1.uid(), a2.uid())).containsExactlyInAnyOrder(1_900_003_000, 1_900_003_001);
        assertThat(b1.uid()).isEqualTo(1_900_003_002);
        assertThat(b.acquire(NO_WAIT)).as("1_900_003_001 is a's").isEmpty();
    }

    @Test
    void anInterruptedWaitGivesUpAndKeepsTheFlag() {
        SandboxIds ids = new SandboxIds(1_900_004_000, 1_900_004_000, 1);
        ids.acquire(NO_WAIT).orElseThrow();

        Thread.currentThread().interrupt();
        try {
            assertThat(ids.acquire(TimeUnit.SECONDS.toNanos(10))).isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
