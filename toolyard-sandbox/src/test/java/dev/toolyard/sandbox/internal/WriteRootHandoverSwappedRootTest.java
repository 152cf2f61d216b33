package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review finding: the hand-over checks the write root with NOFOLLOW_LINKS, then lists it with
 * {@code Files.newDirectoryStream(writeRoot)}, which follows a symbolic link. A run whose write root
 * holds another run's write root (a workspace and a sub-workspace, SandboxIdsNestedWriteRootTest) can
 * swap that directory for a link to /etc between the two: the hand-over then gives what root owns
 * there to the second run's uid, and bubblewrap binds the link's target as its write root.
 */
class WriteRootHandoverSwappedRootTest {
    private static final SandboxIds IDS = new SandboxIds(2147450880, 2147450880, 4);
    private static final SandboxIds.Pair LEASE = new SandboxIds.Pair(2147450881, 2147450881);

    @TempDir
    Path tmp;

    @Test
    void aWriteRootSwappedForALinkDuringTheHandOverNeverHandsOverTheLinksTarget() throws Exception {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot change owners");
        Path outer = Files.createDirectories(tmp.resolve("ws"));
        Path sub = Files.createDirectories(outer.resolve("sub"));
        Path parked = outer.resolve("parked");
        Path etc = Files.createDirectories(tmp.resolve("etc"));
        Path shadow = Files.writeString(etc.resolve("shadow"), "root:$6$secret");
        Path link = Files.createSymbolicLink(outer.resolve("link"), etc);
        AtomicBoolean stop = new AtomicBoolean();
        // Stands in for the command of the run on ws, swapping ws/sub under the run on ws/sub.
        Thread racer = new Thread(() -> {
            while (!stop.get()) {
                try {
                    Files.move(sub, parked, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(link, sub, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(sub, link, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(parked, sub, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    // a name was not where expected: go round again
                }
            }
        });
        racer.start();
        int rounds = 0;
        try {
            long end = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < end && (Integer) Files.getAttribute(shadow, "unix:uid", LinkOption.NOFOLLOW_LINKS) == 0) {
                try {
                    WriteRootHandover.handOver(sub, LEASE, IDS);
                } catch (IOException | RuntimeException e) {
                    // refused this time (a link, or gone): the next run tries again
                }
                rounds++;
            }
        } finally {
            stop.set(true);
            racer.join();
        }
        assertThat((Integer) Files.getAttribute(shadow, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .as("owner of the link target's file after " + rounds + " hand-overs").isZero();
    }
}
