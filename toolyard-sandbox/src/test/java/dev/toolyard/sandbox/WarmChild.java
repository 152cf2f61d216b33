package dev.toolyard.sandbox;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A JVM that {@link WarmModeTest} kills with SIGKILL: it keeps an idle warm sandbox for one workspace
 * and runs a long command in another. Arguments: the tier, the busy workspace, the idle workspace and
 * the sleeper's token.
 */
public final class WarmChild {
    private WarmChild() {}

    /** @param args tier, busy workspace, idle workspace, token */
    public static void main(String[] args) throws Exception {
        IsolationTier tier = IsolationTier.valueOf(args[0]);
        TieredSandbox s = Hosts.builder(tier, Hosts.LIMITS).warm(true).build();
        if (!s.report().warmMode().startsWith("on")) {
            System.out.println("not warm: " + s.report().warmMode());
            return;
        }
        s.runIsolated(List.of("/bin/true"), SandboxPaths.of(Path.of(args[2])), Duration.ofSeconds(30), null);
        System.out.println("idle sandbox ready");
        s.runIsolated(List.of("/bin/sh", "-c", "echo > started; exec sleep " + args[3]),
                SandboxPaths.of(Path.of(args[1])), Duration.ofSeconds(300), null);
    }
}
