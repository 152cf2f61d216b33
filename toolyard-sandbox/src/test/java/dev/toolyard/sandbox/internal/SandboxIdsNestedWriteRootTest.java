package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nested write roots ({@code /ws} and {@code /ws/sub}). Round 1: leases were shared per exact path, so a
 * run on {@code /ws/sub} while one on {@code /ws} was under way got another uid, and its hand-over took
 * the files the first run was working on. Round 2 made them share one uid, so their commands could reach
 * each other (issue 22, §2 finding 1). Now they never share a uid, nor work in one tree at once: the
 * second waits until the first is done, and then hands the tree over to its own uid.
 */
class SandboxIdsNestedWriteRootTest {
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(300);

    @TempDir
    Path tmp;

    @BeforeAll
    static void root() {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot lock sandbox uids or change owners");
    }

    @Test
    void aRunOnAWriteRootInsideAnotherRunsWaitsForItNeverSharesItsUidAndNeverWalksTheTreeItWorksIn() throws Exception {
        SandboxIds ids = new SandboxIds(1_900_006_000, 1_900_006_000, 4);
        Path outer = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path inner = Files.createDirectories(outer.resolve("sub"));
        Path file = Files.writeString(inner.resolve("work.txt"), "first run's");

        SandboxIds.Lease first = ids.acquireHandedOver(outer, 0).orElseThrow();
        Files.setOwner(file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("0"));

        assertThat(ids.acquireHandedOver(inner, SHORT)).as("W/sub waits while a run works in W").isEmpty();
        assertThat((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .as("the waiting run did not walk the tree the first run (uid %d) works in", first.uid())
                .isEqualTo(0);

        CompletableFuture<Optional<SandboxIds.Lease>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return ids.acquireHandedOver(inner, TimeUnit.SECONDS.toNanos(10));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Thread.sleep(100);
        assertThat(waiting).as("still waiting for W").isNotDone();
        assertThat(ids.acquire(outer, SHORT)).as("a run of W that would share W does not overtake the run waiting for it")
                .isEmpty();
        first.close();
        SandboxIds.Lease after = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(after.uid()).as("a uid of its own, lent once W's run was over").isNotNull();
        assertThat((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .as("once no run holds the tree, the next run hands it over").isEqualTo(after.uid());
        after.close();
    }

    @Test
    void aRunOnAParentWriteRootWaitsTooAndASiblingDoesNot() throws IOException {
        SandboxIds ids = new SandboxIds(1_900_006_100, 1_900_006_100, 4);
        Path outer = Files.createDirectories(tmp.resolve("p")).toRealPath();
        Path inner = Files.createDirectories(outer.resolve("child"));
        Path sibling = Files.createDirectories(tmp.resolve("q")).toRealPath();
        SandboxIds.Lease a = ids.acquire(inner, 0).orElseThrow();

        assertThat(ids.acquire(outer, SHORT)).as("/p contains /p/child").isEmpty();
        SandboxIds.Lease c = ids.acquire(sibling, 0).orElseThrow();
        assertThat(c.uid()).as("/p and /q are two trees, not a prefix of one another").isNotEqualTo(a.uid());
        a.close();
        SandboxIds.Lease b = ids.acquire(outer, 0).orElseThrow();
        b.close();
        c.close();
    }
}
