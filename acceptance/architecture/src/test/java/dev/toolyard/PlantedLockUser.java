package dev.toolyard;

/** Planted: a class of the executor's package that takes a lock. Only {@code ArchitectureTest} loads it. */
public final class PlantedLockUser {
    private static final java.util.concurrent.locks.ReentrantLock LOCK = new java.util.concurrent.locks.ReentrantLock();

    private PlantedLockUser() {}

    static void run(Runnable r) {
        LOCK.lock();
        try {
            r.run();
        } finally {
            LOCK.unlock();
        }
    }
}
