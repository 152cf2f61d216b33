package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-run pids cgroups (cgroup v1), so a command run by root is held at its process count, which
 * {@code RLIMIT_NPROC} does not do for uid 0. A run's processes enter the cgroup through
 * {@code cgexec} before bubblewrap starts, so there is no moment when the command runs outside it.
 *
 * <p>Creating a cgroup costs milliseconds (the kernel waits for an RCU grace period), so cgroups are
 * pooled: a released cgroup is emptied (any process left is killed) and reused. They are named
 * {@code toolyard/<jvm pid>-<n>}; those of a JVM that is gone are removed when the pool opens. One
 * pool per JVM, shared by every sandbox, so that no two runs are ever given the same cgroup.
 * Thread-safe.
 */
public final class PidsCgroups {
    private static final System.Logger LOG = System.getLogger(PidsCgroups.class.getName());
    private static final String PARENT = "toolyard";
    /** Killed processes whose parent died are reaped by the host's init, which may take a second or more. */
    private static final long DRAIN_NANOS = 5_000_000_000L;
    private static final Object OPEN_LOCK = new Object();
    private static PidsCgroups shared;

    private final Path parent;
    private final String prefix;
    private final AtomicInteger sequence = new AtomicInteger();
    private final ConcurrentLinkedDeque<Lease> free = new ConcurrentLinkedDeque<>();
    private final ConcurrentLinkedDeque<Lease> retired = new ConcurrentLinkedDeque<>();
    /** The pids.max last written to each pooled cgroup, so an unchanged limit costs no write. */
    private final java.util.concurrent.ConcurrentHashMap<Path, Long> limitWritten = new java.util.concurrent.ConcurrentHashMap<>();

    private PidsCgroups(Path parent) {
        this.parent = parent;
        this.prefix = ProcessHandle.current().pid() + "-";
    }

    /** A cgroup lent to one run. {@code controllerPath} is the {@code -g} argument of {@code cgexec}. */
    public record Lease(String controllerPath, Path dir) {}

    /** Why the pool could not open, or the pool. */
    public record Opened(Optional<PidsCgroups> pool, String why) {}

    /** @return this JVM's pool on the cgroup v1 pids hierarchy of this host, or why there is none */
    public static Opened open() {
        synchronized (OPEN_LOCK) {
            if (shared != null) {
                return new Opened(Optional.of(shared), "pids cgroups under " + shared.parent);
            }
            Opened opened = openFresh();
            shared = opened.pool().orElse(null);
            if (shared != null) {
                PidsCgroups pool = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(pool::removeIdle, "toolyard-pids-cgroups-cleanup"));
            }
            return opened;
        }
    }

    private static Opened openFresh() {
        Optional<Path> mount;
        try {
            mount = pidsMount(Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Opened(Optional.empty(), "cannot read /proc/self/mountinfo: " + e.getMessage());
        }
        if (mount.isEmpty()) {
            return new Opened(Optional.empty(), "no cgroup v1 pids hierarchy is mounted (cgroup v2 is not supported yet)");
        }
        Path parent = mount.get().resolve(PARENT);
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            return new Opened(Optional.empty(), "cannot create " + parent + ": " + e);
        }
        PidsCgroups pool = new PidsCgroups(parent);
        pool.removeOrphans();
        return new Opened(Optional.of(pool), "pids cgroups under " + parent);
    }

    /**
     * The mount point of the v1 hierarchy carrying the pids controller, from {@code mountinfo} lines,
     * when its root is the hierarchy's root.
     */
    static Optional<Path> pidsMount(List<String> mountinfo) {
        for (String line : mountinfo) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] left = line.substring(0, dash).split(" ");
            String[] right = line.substring(dash + 3).split(" ");
            if (left.length < 5 || right.length < 3 || !right[0].equals("cgroup")) {
                continue;
            }
            boolean pids = false;
            for (String option : right[2].split(",")) {
                pids |= option.equals("pids");
            }
            if (pids && left[3].equals("/")) {
                return Optional.of(Path.of(unescape(left[4])));
            }
        }
        return Optional.empty();
    }

    private static String unescape(String mountinfoField) {
        return mountinfoField.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    /**
     * @param maxTasks the cgroup's {@code pids.max}
     * @return an empty cgroup with that limit
     * @throws IOException if the cgroup cannot be created or limited
     */
    public Lease acquire(long maxTasks) throws IOException {
        removeRetired();
        Lease lease = free.pollFirst();
        if (lease == null) {
            String name = prefix + sequence.incrementAndGet();
            Path dir = parent.resolve(name);
            Files.createDirectories(dir);
            lease = new Lease("pids:" + PARENT + "/" + name, dir);
        }
        Long written = limitWritten.get(lease.dir());
        if (written == null || written != maxTasks) {
            try {
                write(lease.dir().resolve("pids.max"), Long.toString(maxTasks));
                limitWritten.put(lease.dir(), maxTasks);
            } catch (IOException e) {
                limitWritten.remove(lease.dir());
                free.addFirst(lease);
                throw e;
            }
        }
        return lease;
    }

    /** Kills ({@code SIGKILL}) every process in the cgroup, without waiting. */
    public void killAll(Lease lease) {
        for (long pid : pids(lease)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * Empties the cgroup (killing what is left) and returns it to the pool once nothing is charged to
     * it any more, zombies included, so the next run gets its whole process count. A cgroup that does
     * not empty within five seconds is retired instead, and removed when it can be.
     *
     * @return whether the cgroup was empty when it came back; {@code false} means something outlived
     *     the run and had to be killed, or could not be
     */
    public boolean release(Lease lease) {
        if (charged(lease) == 0) { // nothing charged, zombies included: empty, without reading the member list
            free.addFirst(lease);
            return true;
        }
        boolean clean = pids(lease).isEmpty();
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (true) {
            List<Long> left = pids(lease);
            if (left.isEmpty() && charged(lease) == 0) {
                free.addFirst(lease);
                return clean;
            }
            if (System.nanoTime() > deadline) {
                LOG.log(System.Logger.Level.WARNING, "processes outlived their run in " + lease.dir() + "; cgroup retired");
                retired.add(lease);
                return false;
            }
            if (!left.isEmpty()) {
                killAll(lease);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                retired.add(lease);
                return false;
            }
        }
    }

    /** @return the tasks charged to the cgroup ({@code pids.current}), zombies included; -1 if unreadable */
    long charged(Lease lease) {
        try {
            return Long.parseLong(Files.readString(lease.dir().resolve("pids.current"), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Removes the idle cgroups of the pool; those in use or still charged stay, for a later JVM to remove. */
    private void removeIdle() {
        for (Lease lease = free.pollFirst(); lease != null; lease = free.pollFirst()) {
            try {
                Files.delete(lease.dir());
                limitWritten.remove(lease.dir());
            } catch (IOException e) {
                // busy: left for the next JVM's orphan sweep
            }
        }
        removeRetired();
    }

    private void removeRetired() {
        for (Lease lease : retired) {
            try {
                Files.delete(lease.dir());
                retired.remove(lease);
                limitWritten.remove(lease.dir());
            } catch (IOException e) {
                // still busy: try again at the next acquire
            }
        }
    }

    /** @return the processes in the cgroup now; empty if it cannot be read */
    public List<Long> pids(Lease lease) {
        List<Long> pids = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(lease.dir().resolve("cgroup.procs"), StandardCharsets.US_ASCII)) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.trim()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return List.of();
        }
        return pids;
    }

    private void removeOrphans() {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(parent)) {
            for (Path child : children) {
                String name = child.getFileName().toString();
                int dash = name.indexOf('-');
                if (dash <= 0 || !Files.isDirectory(child)) {
                    continue;
                }
                try {
                    long owner = Long.parseLong(name.substring(0, dash));
                    if (owner != ProcessHandle.current().pid() && ProcessHandle.of(owner).isEmpty()) {
                        Files.delete(child); // rmdir; fails, harmlessly, if anything still runs in it
                    }
                } catch (NumberFormatException | IOException e) {
                    // not ours, or busy: leave it
                }
            }
        } catch (IOException e) {
            // nothing to tidy
        }
    }

    private static void write(Path file, String value) throws IOException {
        try {
            Files.write(file, value.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            throw new IOException("the pids controller is not available in " + file.getParent(), e);
        }
    }
}
