package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where {@link RoundRunner} runs a round's calls: a round that does not hand off stays on the caller's
 * thread until the caller stalls in a call, a round that hands off starts its lanes at once. The stall
 * threshold is set per test (an hour where no fan-out may come from the watch), so nothing here depends
 * on how fast the machine is.
 */
@Timeout(60) // a hang guard only: no test here asserts wall-clock speed
class RoundLanesTest {
    private static final long NEVER = Duration.ofHours(1).toNanos();
    private static final ToolResult OK = new ToolResult("id", "t", ToolStatus.OK, null, "", "ok", false, Duration.ZERO);

    private RoundRunner runner;

    @AfterEach
    void close() {
        if (runner != null) {
            runner.close();
        }
    }

    @Test
    void aRoundWhoseCallsNeverStallRunsWhollyOnTheCallersThreadAndStartsNoLane() {
        runner = new RoundRunner(8, 8, RoundRunner.LANE_THREADS, NEVER, RoundWatch.KEEP_ALIVE_NANOS);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();

        for (int round = 0; round < 200; round++) {
            ToolResult[] results = runner.run(8, i -> {
                ranOn.add(Thread.currentThread());
                return OK;
            }, UnaryOperator.identity(), false);
            assertThat(results).hasSize(8).doesNotContainNull();
        }

        assertThat(ranOn).hasSize(1600).containsOnly(Thread.currentThread());
        assertThat(runner.laneThreads()).as("no helper lane was ever started").isZero();
    }

    @Test
    void aRoundWhoseCallerStallsInACallFansOutBehindItUpToItsParallelism() throws Exception {
        runner = new RoundRunner(4, 8, RoundRunner.LANE_THREADS, RoundWatch.STALL_NANOS, RoundWatch.KEEP_ALIVE_NANOS);
        CyclicBarrier together = new CyclicBarrier(4); // only four calls in flight at once pass it
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();

        ToolResult[] results = runner.run(12, i -> {
            ranOn.add(Thread.currentThread());
            await(together);
            return OK;
        }, UnaryOperator.identity(), false);

        assertThat(results).hasSize(12).doesNotContainNull();
        assertThat(ranOn).hasSize(4).contains(Thread.currentThread());
        assertThat(runner.laneThreads()).isEqualTo(3);
    }

    @Test
    void aRoundThatHandsOffStartsItsLanesAtOnceWithoutWaitingForAStall() throws Exception {
        runner = new RoundRunner(4, 8, RoundRunner.LANE_THREADS, NEVER, RoundWatch.KEEP_ALIVE_NANOS);
        CyclicBarrier together = new CyclicBarrier(4);

        ToolResult[] results = runner.run(4, i -> {
            await(together);
            return OK;
        }, UnaryOperator.identity(), true);

        assertThat(results).hasSize(4).doesNotContainNull();
    }

    @Test
    void carryIsAppliedOnTheCallersThreadOncePerHelperLaneAndItsTaskRunsTheLane() {
        runner = new RoundRunner(4, 8, RoundRunner.LANE_THREADS, RoundWatch.STALL_NANOS, RoundWatch.KEEP_ALIVE_NANOS);
        ThreadLocal<String> trace = new ThreadLocal<>();
        trace.set("caller's trace");
        List<Thread> carriedOn = new CopyOnWriteArrayList<>();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        UnaryOperator<Runnable> carry = task -> {
            carriedOn.add(Thread.currentThread());
            String value = trace.get();
            return () -> {
                trace.set(value);
                try {
                    task.run();
                } finally {
                    trace.remove();
                }
            };
        };
        CyclicBarrier together = new CyclicBarrier(4);

        runner.run(4, i -> {
            seen.add(String.valueOf(trace.get()));
            await(together);
            return OK;
        }, carry, false);

        assertThat(carriedOn).hasSize(3).containsOnly(Thread.currentThread());
        assertThat(seen).containsExactly("caller's trace");
    }

    @Test
    void everyCallRunsEvenAfterOneThrowsAndTheFirstThrowIsTheRoundsOnEitherPath() {
        for (int parallelism : new int[] {1, 4}) {
            runner = new RoundRunner(parallelism, 8, RoundRunner.LANE_THREADS, NEVER, RoundWatch.KEEP_ALIVE_NANOS);
            AtomicInteger ran = new AtomicInteger();

            assertThatThrownBy(() -> runner.run(6, i -> {
                ran.incrementAndGet();
                if (i == 1 || i == 4) {
                    throw new StoreFailureException("store down at " + i, null);
                }
                return OK;
            }, UnaryOperator.identity(), false)).isInstanceOf(StoreFailureException.class).hasMessage("store down at 1");

            assertThat(ran).as("parallelism " + parallelism).hasValue(6);
            runner.close();
        }
    }

    @Test
    void anIdleWatchEndsItsThreadAndTheNextRoundStartsAnotherThatStillFansOut() throws Exception {
        runner = new RoundRunner(4, 8, RoundRunner.LANE_THREADS, RoundWatch.STALL_NANOS, Duration.ofMillis(1).toNanos());
        for (int round = 0; round < 3; round++) {
            CyclicBarrier together = new CyclicBarrier(4);

            ToolResult[] results = runner.run(4, i -> {
                await(together);
                return OK;
            }, UnaryOperator.identity(), false);

            assertThat(results).doesNotContainNull();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (runner.watchAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(runner.watchAlive()).as("the idle watch's thread ended").isFalse();
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the calls never overlapped", e);
        }
    }
}
