package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.sandbox.Hosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression for a review finding: leases were shared per exact write-root path only, so a run on
 * {@code /ws/sub} while a run on {@code /ws} was under way got another uid, and its hand-over took the
 * files the first run was working on; the two runs' commands then worked in one tree, each racing the
 * other's hand-over walk (renaming a planted hard link or a FIFO over a checked name).
 */
class SandboxIdsNestedWriteRootTest {
    @TempDir
    Path tmp;

    @Test
    void aRunOnAWriteRootInsideAnotherRunsSharesItsLeaseAndNeverWalksTheTreeItWorksIn() throws IOException {
        Hosts.require(Hosts.root(), "the test JVM is not root, so it cannot change owners");
        SandboxIds ids = new SandboxIds(1_900_006_000, 1_900_006_000, 4);
        Path outer = Files.createDirectories(tmp.resolve("ws"));
        Path inner = Files.createDirectories(outer.resolve("sub"));
        Path file = Files.writeString(inner.resolve("work.txt"), "first run's");

        SandboxIds.Lease first = ids.acquireHandedOver(outer.toRealPath(), 0).orElseThrow();
        Files.setOwner(file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("0"));
        SandboxIds.Lease second = ids.acquireHandedOver(inner.toRealPath(), 0).orElseThrow();

        assertThat(second).as("nested write roots share one lease").isEqualTo(first);

        assertThat((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .as("the sharing run did not walk the tree the first run (uid %d) works in", first.uid())
                .isEqualTo(0);
        ids.release(inner.toRealPath(), second);
        ids.release(outer.toRealPath(), first);
        SandboxIds.Lease after = ids.acquireHandedOver(inner.toRealPath(), 0).orElseThrow();
        assertThat((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .as("once no run holds the tree, the next run hands it over").isEqualTo(after.uid());
        ids.release(inner.toRealPath(), after);
    }

    @Test
    void aRunOnAParentWriteRootSharesTheLeaseToo() throws IOException {
        SandboxIds ids = new SandboxIds(1_900_006_000, 1_900_006_000, 4);
        Path outer = Files.createDirectories(tmp.resolve("p"));
        Path inner = Files.createDirectories(outer.resolve("child"));
        Path sibling = Files.createDirectories(tmp.resolve("q"));
        SandboxIds.Lease a = ids.acquire(inner.toRealPath(), 0).orElseThrow();
        SandboxIds.Lease b = ids.acquire(outer.toRealPath(), 0).orElseThrow();
        SandboxIds.Lease c = ids.acquire(sibling.toRealPath(), 0).orElseThrow();

        assertThat(b).isEqualTo(a);
        assertThat(c).as("/p and /q are two trees, not a prefix of one another").isNotEqualTo(a);
        ids.release(outer.toRealPath(), b);
        ids.release(inner.toRealPath(), a);
        ids.release(sibling.toRealPath(), c);
    }
}
