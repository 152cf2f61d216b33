package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor on plain host processes (our own fixed scripts): spawning, capping, deadlines and
 * interruption do not depend on the rung. The rungs' own tree killing is shown in TieredSandboxTest.
 */
class SupervisorTest {
    @TempDir
    Path tmp;

    /** A launch of a plain command that records what the supervisor asked of it. */
    private static final class Plain implements Launch {
        final List<String> argv;
        final Map<String, String> env;
        final AtomicInteger kills = new AtomicInteger();
        final AtomicReference<Boolean> closedKilled = new AtomicReference<>();
        final AtomicBoolean abandoned = new AtomicBoolean();

        Plain(Map<String, String> env, String... argv) {
            this.argv = List.of(argv);
            this.env = env;
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public Map<String, String> environment() {
            return env;
        }

        @Override
        public void killTree(Process client) {
            kills.incrementAndGet();
            List<ProcessHandle> tree = new ArrayList<>(client.descendants().toList());
            tree.forEach(ProcessHandle::destroyForcibly);
            client.destroyForcibly();
        }

        @Override
        public void close(Process client, boolean killed) {
            closedKilled.set(killed);
        }

        @Override
        public void abandon() {
            abandoned.set(true);
        }
    }

    @Test
    void aCommandThatExitsReportsItsCodeAndBothStreamsAndIsClosedUnkilled() {
        Plain launch = new Plain(Map.of("GREETING", "hi"), "/bin/sh", "-c", "echo $GREETING; echo oops >&2; exit 3");

        Supervisor.Outcome o = Supervisor.run(launch, Duration.ofSeconds(20), 1024);

        assertThat(o.exitCode()).isEqualTo(3);
        assertThat(o.stdout().text()).isEqualTo("hi\n");
        assertThat(o.stderr().text()).isEqualTo("oops\n");
        assertThat(o.timedOut()).isFalse();
        assertThat(o.killed()).isFalse();
        assertThat(launch.kills).hasValue(0);
        assertThat(launch.closedKilled.get()).isFalse();
    }

    @Test
    void theSpawnedProcessGetsOnlyTheLaunchsEnvironmentAnEmptyStdinAndTheRootAsItsDirectory() {
        Plain launch = new Plain(Map.of("ONLY", "1"), "/bin/sh", "-c", "env | sort; pwd; cat");

        Supervisor.Outcome o = Supervisor.run(launch, Duration.ofSeconds(20), 1024);

        assertThat(o.stdout().text().lines()).contains("ONLY=1", "/").doesNotContain("TOOLYARD_PARENT_SECRET=parent-secret-3f9c");
        assertThat(o.stdout().text()).doesNotContain("HOME=");
        assertThat(o.timedOut()).as("cat read an empty stdin and ended").isFalse();
    }

    @Test
    void theDeadlineKillsTheRunAndSaysSo() {
        Plain launch = new Plain(Map.of(), "/bin/sh", "-c", "echo started; exec sleep 60");

        Supervisor.Outcome o = Supervisor.run(launch, Duration.ofMillis(300), 1024);

        assertThat(o.timedOut()).isTrue();
        assertThat(o.killed()).isTrue();
        assertThat(o.exitCode()).isEqualTo(128 + 9);
        assertThat(o.stdout().text()).isEqualTo("started\n");
        assertThat(launch.kills).hasValue(1);
        assertThat(launch.closedKilled.get()).isTrue();
    }

    @Test
    void passingTheCapKillsTheRunWithoutCallingItATimeout() {
        Plain launch = new Plain(Map.of(), "/usr/bin/yes");

        Supervisor.Outcome o = Supervisor.run(launch, Duration.ofSeconds(20), 512);

        assertThat(o.outputTruncated()).isTrue();
        assertThat(o.timedOut()).isFalse();
        assertThat(o.killed()).isTrue();
        assertThat(launch.kills).hasValue(1);
        assertThat(o.stdout().text()).contains("[truncated: showing at most 512 of ");
    }

    @Test
    void anInterruptedCallerStopsTheRunAndKeepsItsInterruptFlag() throws Exception {
        Plain launch = new Plain(Map.of(), "/bin/sleep", "60");
        AtomicReference<Supervisor.Outcome> outcome = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            outcome.set(Supervisor.run(launch, Duration.ofSeconds(60), 1024));
            flagAfter.set(Thread.currentThread().isInterrupted());
        });

        caller.start();
        Thread.sleep(200);
        caller.interrupt();
        caller.join(20_000);

        assertThat(caller.isAlive()).isFalse();
        assertThat(outcome.get().timedOut()).isTrue();
        assertThat(outcome.get().killed()).isTrue();
        assertThat(flagAfter).isTrue();
    }

    @Test
    void aClientThatCannotStartIsAbandonedAndReportedAsAnIoFailure() {
        Path missing = tmp.resolve("no-such-binary");
        Plain launch = new Plain(Map.of(), missing.toString());

        assertThatThrownBy(() -> Supervisor.run(launch, Duration.ofSeconds(5), 1024))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining(missing.toString());
        assertThat(launch.abandoned).isTrue();
        assertThat(Files.exists(missing)).isFalse();
    }
}
