package dev.toolyard.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds the warm supervisors ({@code toolyard-warm}) of one workspace in the host's {@code /proc}, so
 * that a warm row's set-up can prove its runs were answered by one warm sandbox, not by cold runs or
 * by a sandbox replaced half-way. The supervisor's command line is
 * {@code toolyard-warm UID GID ... WRITE_ROOT WIPE_DIR...}, on both rungs; the bubblewrap and podman
 * processes around it also name the supervisor and the write root, but not as their {@code argv[0]}.
 * On gVisor the supervisor is not a host process: its podman client stands for it there.
 */
final class WarmSupervisors {
    private static final String NAME = "toolyard-warm";

    private WarmSupervisors() {}

    /** @return the pids of the processes whose {@code argv[0]} is {@code toolyard-warm} and which name {@code writeRoot} */
    static List<Long> of(Path writeRoot) {
        String root = writeRoot.toString();
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                String[] args;
                try {
                    args = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).split("\0");
                } catch (IOException e) {
                    continue; // gone meanwhile
                }
                if (args.length > 1 && (isSupervisor(args[0]) || isGvisorClient(args))
                        && Arrays.asList(args).contains(root)) {
                    pids.add(Long.parseLong(proc.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc to find the warm supervisors", e);
        }
        pids.sort(null);
        return pids;
    }

    private static boolean isSupervisor(String argv0) {
        return argv0.equals(NAME) || argv0.endsWith("/" + NAME);
    }

    /**
     * Whether {@code args} is the podman client of a warm gVisor container: its supervisor runs inside
     * gVisor's kernel, invisible in the host's {@code /proc}, so the client that started it (one per
     * sandbox, alive as long as it is) stands for it. Its command line names runsc and the supervisor.
     */
    private static boolean isGvisorClient(String[] args) {
        List<String> a = Arrays.asList(args);
        return (args[0].equals("podman") || args[0].endsWith("/podman")) && a.contains("/" + NAME)
                && a.stream().anyMatch(x -> x.equals("runsc") || x.endsWith("/runsc"));
    }

    /**
     * Waits until exactly one supervisor of {@code writeRoot} is alive.
     *
     * @return its pid
     * @throws IllegalStateException if none or several are seen for {@code millis}
     */
    static long awaitOne(Path writeRoot, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        List<Long> seen;
        do {
            seen = of(writeRoot);
            if (seen.size() == 1) {
                return seen.get(0);
            }
            Thread.sleep(20);
        } while (System.nanoTime() < end);
        throw new IllegalStateException("expected one warm supervisor (toolyard-warm) for " + writeRoot + " within "
                + millis + " ms of warmUp, found " + seen);
    }

    /** @return whether no supervisor of {@code writeRoot} was left within {@code millis} */
    static boolean awaitNone(Path writeRoot, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        while (!of(writeRoot).isEmpty()) {
            if (System.nanoTime() >= end) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }
}
