package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM that {@link HostUidsTest} starts with the default sandbox settings (the default uid block, cold
 * runs) and kills with SIGKILL: one long command per workspace, all at once, each writing the uid it runs
 * as to {@code uid} in its workspace and then sleeping for {@code token} seconds (the token marks its
 * argv). Arguments: the tier, the token, the workspaces.
 */
public final class UidChild {
    private UidChild() {}

    /** @param args tier, token, workspace... */
    public static void main(String[] args) throws Exception {
        IsolationTier tier = IsolationTier.valueOf(args[0]);
        TieredSandbox s = Hosts.builder(tier, Hosts.LIMITS).build();
        if (s.isolationTier() != tier) {
            System.out.println("not on " + tier + ": " + s.report().describe());
            return;
        }
        List<Thread> runs = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            Path ws = Path.of(args[i]);
            Thread t = new Thread(() -> System.out.println(s.runIsolated(List.of("/bin/sh", "-c",
                    "id -u > uid.tmp && mv uid.tmp uid && exec sleep " + args[1]), SandboxPaths.of(ws), Duration.ofSeconds(300),
                    null)));
            t.start();
            runs.add(t);
        }
        for (Thread t : runs) {
            t.join();
        }
    }
}
