package dev.toolyard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60) // a hang guard: a missed deadline would block a sleep forever
class DeadlinesTest {
    private final Deadlines deadlines = Deadlines.shared();

    @Test
    void aThreadPastItsDeadlineIsInterruptedAndLeftWithACleanFlag() {
        Deadlines.Slot slot = deadlines.arm(20_000_000L);
        boolean interrupted = false;
        try {
            Thread.sleep(600_000);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        assertThat(interrupted).isTrue();
        assertThat(deadlines.disarm(slot)).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aDeadlineCountsFromTheTimeItIsGivenNotFromWhenItIsArmed() throws Exception {
        long from = System.nanoTime() - 300_000_000L;
        // 200 ms from a time 300 ms ago: already past, so it fires, and its deadline is from + 200 ms.
        Deadlines.Slot slot = deadlines.arm(from, 200_000_000L);
        assertThat(slot.deadline).isEqualTo(from + 200_000_000L);
        boolean interrupted = false;
        try {
            Thread.sleep(600_000);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        assertThat(interrupted).isTrue();
        assertThat(deadlines.disarm(slot)).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aDisarmedDeadlineNeverInterruptsLater() throws Exception {
        for (int i = 0; i < 10_000; i++) {
            assertThat(deadlines.disarm(deadlines.arm(1_000_000_000L))).isFalse();
        }
        Thread.sleep(100);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aShortDeadlineArmedWhileTheWatchdogSleepsLongIsStillCaught() throws Exception {
        Thread.sleep(30); // let the watchdog settle into its longest sleep
        for (int round = 0; round < 20; round++) {
            Deadlines.Slot slot = deadlines.arm(1_000_000L);
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException expected) {
                // the deadline fired
            }
            assertThat(deadlines.disarm(slot)).isTrue();
        }
    }

    @Test
    void manyThreadsEachGetTheirOwnDeadline() throws Exception {
        AtomicInteger fired = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            boolean expires = t % 2 == 0;
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 20; i++) {
                    Deadlines.Slot slot = deadlines.arm(expires ? 2_000_000L : 10_000_000_000L);
                    try {
                        Thread.sleep(expires ? 600_000 : 1);
                    } catch (InterruptedException e) {
                        // only the expiring threads get here
                    }
                    if (deadlines.disarm(slot)) {
                        fired.incrementAndGet();
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(fired).hasValue(8 * 20);
    }
}
