package dev.toolyard.sandbox;

import java.util.Objects;

/**
 * The resource limits every isolated run gets, on every rung. Defaults: CPU 60 s, memory 1 GiB, file
 * size 64 MiB, 64 processes.
 *
 * <ul>
 *   <li>{@code cpuSeconds}: CPU time of each process; at the limit it is killed ({@code SIGKILL}).</li>
 *   <li>{@code memoryBytes}: the address space of each process ({@code RLIMIT_AS}) on both rungs,
 *       and on the container rung also the whole container's memory (a memory cgroup).</li>
 *   <li>{@code fileSizeBytes}: the largest file a process may write; on the bubblewrap rung in whole
 *       512-byte blocks (rounded down, at least one), the unit of the launcher's {@code ulimit -f}.</li>
 *   <li>{@code processCount}: processes and threads the command may have at once, itself included
 *       ({@code RLIMIT_NPROC} on the run's own uid, and on the container rung the engine's pids
 *       cgroup too). Bubblewrap's own process outside the sandbox is root's and not counted.</li>
 * </ul>
 *
 * A rung that cannot enforce one of them names it in {@link IsolationReport#limitsUnenforced()}.
 * Immutable. Thread-safe.
 */
public final class ResourceLimits {
    /** Below this much address space not even a shell starts, and container engines refuse the memory limit. */
    public static final long MIN_MEMORY_BYTES = 8L << 20;

    private static final ResourceLimits DEFAULTS = new ResourceLimits(60, 1L << 30, 64L << 20, 64);

    private final long cpuSeconds;
    private final long memoryBytes;
    private final long fileSizeBytes;
    private final int processCount;

    private ResourceLimits(long cpuSeconds, long memoryBytes, long fileSizeBytes, int processCount) {
        this.cpuSeconds = cpuSeconds;
        this.memoryBytes = memoryBytes;
        this.fileSizeBytes = fileSizeBytes;
        this.processCount = processCount;
    }

    /** @return CPU 60 s, memory 1 GiB, file size 64 MiB, 64 processes; never {@code null} */
    public static ResourceLimits defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from {@link #defaults()}; never {@code null} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return CPU seconds per process, at least 1 */
    public long cpuSeconds() {
        return cpuSeconds;
    }

    /** @return memory in bytes, at least {@link #MIN_MEMORY_BYTES} */
    public long memoryBytes() {
        return memoryBytes;
    }

    /** @return the largest file a process may write, in bytes, at least 1 */
    public long fileSizeBytes() {
        return fileSizeBytes;
    }

    /** @return processes the command may have at once, at least 1 */
    public int processCount() {
        return processCount;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResourceLimits other
                && cpuSeconds == other.cpuSeconds
                && memoryBytes == other.memoryBytes
                && fileSizeBytes == other.fileSizeBytes
                && processCount == other.processCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(cpuSeconds, memoryBytes, fileSizeBytes, processCount);
    }

    @Override
    public String toString() {
        return "cpu " + cpuSeconds + " s, memory " + memoryBytes + " bytes, file size " + fileSizeBytes
                + " bytes, " + processCount + " processes";
    }

    /** Builds {@link ResourceLimits}; values are checked at {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private long cpuSeconds = DEFAULTS.cpuSeconds;
        private long memoryBytes = DEFAULTS.memoryBytes;
        private long fileSizeBytes = DEFAULTS.fileSizeBytes;
        private int processCount = DEFAULTS.processCount;

        private Builder() {}

        /**
         * @param seconds CPU seconds per process; default 60
         * @return this builder
         */
        public Builder cpuSeconds(long seconds) {
            this.cpuSeconds = seconds;
            return this;
        }

        /**
         * @param bytes memory in bytes; default 1 GiB
         * @return this builder
         */
        public Builder memoryBytes(long bytes) {
            this.memoryBytes = bytes;
            return this;
        }

        /**
         * @param bytes the largest file a process may write; default 64 MiB
         * @return this builder
         */
        public Builder fileSizeBytes(long bytes) {
            this.fileSizeBytes = bytes;
            return this;
        }

        /**
         * @param count processes the command may have at once; default 64
         * @return this builder
         */
        public Builder processCount(int count) {
            this.processCount = count;
            return this;
        }

        /**
         * @return the limits; never {@code null}
         * @throws IllegalArgumentException if {@code cpuSeconds} is below 1
         * @throws IllegalArgumentException if {@code memoryBytes} is below {@link #MIN_MEMORY_BYTES}
         * @throws IllegalArgumentException if {@code fileSizeBytes} is below 1
         * @throws IllegalArgumentException if {@code processCount} is below 1
         */
        public ResourceLimits build() {
            if (cpuSeconds < 1) {
                throw new IllegalArgumentException("cpuSeconds must be at least 1, got " + cpuSeconds);
            }
            if (memoryBytes < MIN_MEMORY_BYTES) {
                throw new IllegalArgumentException(
                        "memoryBytes must be at least " + MIN_MEMORY_BYTES + " (8 MiB), got " + memoryBytes);
            }
            if (fileSizeBytes < 1) {
                throw new IllegalArgumentException("fileSizeBytes must be at least 1, got " + fileSizeBytes);
            }
            if (processCount < 1) {
                throw new IllegalArgumentException("processCount must be at least 1, got " + processCount);
            }
            return new ResourceLimits(cpuSeconds, memoryBytes, fileSizeBytes, processCount);
        }
    }
}
