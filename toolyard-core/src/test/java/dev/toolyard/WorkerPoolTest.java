package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WorkerPoolTest {
    private final List<Thread> made = new CopyOnWriteArrayList<>();
    private final ThreadFactory counting = r -> {
        Thread t = new Thread(r, "pool-test-" + made.size());
        t.setDaemon(true);
        made.add(t);
        return t;
    };

    @Test
    void anIdleWorkerIsReusedAndItsSlotComesBackOnlyAfterItIsIdle() throws Exception {
        WorkerPool pool = new WorkerPool(counting);
        HandlerSlots slots = new HandlerSlots(1, 1);
        for (int i = 0; i < 50; i++) {
            HandlerSlots.Slot slot = null;
            for (int spin = 0; slot == null && spin < 10_000; spin++) {
                slot = slots.acquire("t");
                if (slot == null) {
                    Thread.sleep(1); // the previous task's worker is on its way back to idle
                }
            }
            CountDownLatch done = new CountDownLatch(1);
            pool.execute(done::countDown, slot);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(made).as("one slot, so one thread, however many tasks").hasSize(1);
        pool.close();
    }

    @Test
    void closeEndsIdleWorkersInterruptsBusyOnesAndRejectsNewWork() throws Exception {
        WorkerPool pool = new WorkerPool(counting);
        HandlerSlots slots = new HandlerSlots(4, 4);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        pool.execute(() -> { }, slots.acquire("idle"));
        pool.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        }, slots.acquire("busy"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        pool.close();

        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        HandlerSlots.Slot slot = slots.acquire("late");
        assertThatThrownBy(() -> pool.execute(() -> { }, slot)).isInstanceOf(RejectedExecutionException.class);
        for (int i = 0; i < 1_000 && made.stream().anyMatch(Thread::isAlive); i++) {
            Thread.sleep(10);
        }
        assertThat(made).noneMatch(Thread::isAlive);
        assertThat(slots.held()).as("every slot given back, the rejected one included").isZero();
    }

    @Test
    void aThreadFactoryThatMakesNoThreadIsARejectionAndGivesTheSlotBack() {
        WorkerPool pool = new WorkerPool(r -> null);
        HandlerSlots slots = new HandlerSlots(1, 1);

        assertThatThrownBy(() -> pool.execute(() -> { }, slots.acquire("t"))).isInstanceOf(RejectedExecutionException.class);
        assertThat(slots.held()).isZero();
    }
}
