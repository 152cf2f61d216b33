package dev.toolyard.internal;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Interrupts a thread that runs past its deadline, with no lock and no allocation per call: each
 * thread owns a slot it arms and disarms with two volatile writes; one daemon watchdog scans the slots.
 * The watchdog sleeps at most {@link #MAX_PARK_NANOS}; a caller whose deadline falls before the
 * watchdog's next wake wakes it. A Dekker-style handshake (the caller arms, then reads the next wake;
 * the watchdog publishes the next wake, then re-reads the slots) means no deadline is missed.
 * Exported only to ToolYard's own modules. Thread-safe.
 */
public final class Deadlines {
    private static final long MAX_PARK_NANOS = 50_000_000L;
    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    private static final int EXPIRED = 2;
    private static final int INTERRUPT_SENT = 3;

    private static final Deadlines INSTANCE = new Deadlines();

    private final CopyOnWriteArrayList<Slot> slots = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Slot> local = ThreadLocal.withInitial(this::register);
    private final Thread watchdog;
    private volatile long nextWake;

    private Deadlines() {
        nextWake = System.nanoTime() + MAX_PARK_NANOS;
        watchdog = new Thread(this::watch, "toolyard-deadlines");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** @return the shared instance; its watchdog thread starts with it and never holds the JVM open */
    public static Deadlines shared() {
        return INSTANCE;
    }

    /** One thread's deadline. Only its owner arms and disarms it. */
    public static final class Slot {
        final Thread thread;
        final AtomicInteger state = new AtomicInteger(IDLE);
        volatile long deadline;

        Slot(Thread thread) {
            this.thread = thread;
        }
    }

    private Slot register() {
        Slot s = new Slot(Thread.currentThread());
        slots.add(s);
        return s;
    }

    /**
     * Arms the calling thread's deadline: it is interrupted if still armed {@code limitNanos} from now.
     *
     * @param limitNanos the time allowed, in nanoseconds
     * @return the slot to pass to {@link #disarm}
     */
    public Slot arm(long limitNanos) {
        return arm(System.nanoTime(), limitNanos);
    }

    /**
     * As {@link #arm(long)}, counting from a {@link System#nanoTime()} the caller has just read, so that a
     * call reads the clock once for its deadline and its elapsed time (each read is about 26 ns here).
     *
     * @param fromNanos the {@link System#nanoTime()} the deadline counts from
     * @param limitNanos the time allowed, in nanoseconds
     * @return the slot to pass to {@link #disarm}
     */
    public Slot arm(long fromNanos, long limitNanos) {
        Slot s = local.get();
        if (s.state.get() != IDLE) {
            // A nested call on this thread (a cooperative handler calling the executor): re-arming the
            // thread's own slot would leave the outer call's disarm waiting forever for an interrupt.
            s = register();
        }
        long deadline = fromNanos + limitNanos;
        s.deadline = deadline;
        s.state.set(RUNNING);
        if (deadline - nextWake < 0) {
            LockSupport.unpark(watchdog);
        }
        return s;
    }

    /**
     * Disarms the deadline. If it had already fired, waits for the interrupt to land and clears it, so
     * the caller's thread is left with a clean interrupt flag.
     *
     * @param s the slot {@link #arm} returned
     * @return whether the deadline fired before it was disarmed
     */
    public boolean disarm(Slot s) {
        boolean fired = !s.state.compareAndSet(RUNNING, IDLE);
        if (fired) {
            while (s.state.get() != INTERRUPT_SENT) {
                Thread.onSpinWait();
            }
            Thread.interrupted();
            s.state.set(IDLE);
        }
        if (s != local.get()) {
            slots.remove(s); // a nested call's slot: one per nesting, not kept
        }
        return fired;
    }

    private void watch() {
        while (true) {
            long now = System.nanoTime();
            long wake = scan(now, now + MAX_PARK_NANOS);
            nextWake = wake;
            // Re-read after publishing: a slot armed during the scan either saw the new wake time, or is seen here.
            long again = scan(System.nanoTime(), wake);
            if (again != wake) {
                nextWake = again;
                continue;
            }
            LockSupport.parkNanos(this, wake - System.nanoTime());
        }
    }

    private long scan(long now, long wake) {
        for (Slot s : slots) {
            if (s.state.get() != RUNNING) {
                if (!s.thread.isAlive()) {
                    slots.remove(s);
                }
                continue;
            }
            long deadline = s.deadline;
            if (deadline - now <= 0) {
                if (s.state.compareAndSet(RUNNING, EXPIRED)) {
                    s.thread.interrupt();
                    s.state.set(INTERRUPT_SENT);
                }
            } else if (deadline - wake < 0) {
                wake = deadline;
            }
        }
        return wake;
    }
}
