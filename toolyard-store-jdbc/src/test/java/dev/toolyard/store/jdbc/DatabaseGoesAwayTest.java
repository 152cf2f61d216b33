package dev.toolyard.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolyard.EgressClass;
import dev.toolyard.PathContainment;
import dev.toolyard.RiskClass;
import dev.toolyard.SandboxPaths;
import dev.toolyard.StoreFailureException;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolSpec;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.internal.GroupCommitWriter;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a worker does when its database goes away, with the real thing: the PostgreSQL server of
 * {@code .ci/setup-postgres.sh} stopped ({@code pg_ctl stop -m immediate}, a crash) and started
 * again by the test under a load of concurrent calls through a {@code ToolExecutor} on a HikariCP
 * pool, and an SQLite file on a small tmpfs the test mounts and fills. Both need root (to run
 * {@code pg_ctl} as {@code postgres}, to mount); without it they skip loudly, or fail under
 * {@code CI=true}.
 *
 * <p>Anything that stops the server holds {@value #POSTGRES_LOCK} ({@code flock}), and the server
 * is started again in a {@code finally}, whatever happened, so that other tests keep working.
 */
class DatabaseGoesAwayTest {
    static final String POSTGRES_LOCK = "/tmp/toolyard-postgres.lock";
    static final Path CLUSTER = Path.of("/var/lib/postgresql/toolyard-test");
    /** The documented bound: once the server accepts connections again, the same executor writes within it. */
    static final long RECOVERY_BOUND_SECONDS = 30;
    private static final int CALLERS = 8;
    /** Calls held in their handlers while the server is stopped. */
    private static final int HELD = 3;

    /** The tool under load: it notes which calls ran (by their argument) and takes a few ms, like real work. */
    static ToolExecutor executor(JdbcToolCallStore store, Set<String> ran) {
        return executor(store, ran, new CountDownLatch(0), new CountDownLatch(0));
    }

    /**
     * As above; a call whose argument starts with {@code held-} counts {@code entered} down in its handler
     * and then waits for {@code release}, so a test can stop the database while handlers are running.
     */
    static ToolExecutor executor(JdbcToolCallStore store, Set<String> ran, CountDownLatch entered,
            CountDownLatch release) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(ToolSpec.builder("work")
                .description("Notes that it ran.")
                .argsSchema("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}},"
                        + "\"required\":[\"n\"],\"additionalProperties\":false}")
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE)
                .build(), (args, ctx) -> {
                    ran.add(args.string("n"));
                    try {
                        if (args.string("n").startsWith("held-")) {
                            entered.countDown();
                            release.await();
                        }
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return ToolOutput.of("done");
                });
        return ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("work")).store(store).build();
    }

    static ToolCallRequest call(String n) {
        return ToolCallRequest.of("work", "{\"n\":\"" + n + "\"}");
    }

    @Test
    void aPostgresRestartUnderLoadRunsNoUnrecordedHandlerLosesNothingAcknowledgedAndTheSameExecutorRecovers(
            @TempDir Path workspace) throws Exception {
        Path pgCtl = requirePgCtl();
        try (PostgresTestDatabase db = PostgresTestDatabase.require()) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(db.dataSource());
            config.setMaximumPoolSize(4);
            config.setConnectionTimeout(2_000);
            config.setValidationTimeout(1_000);
            config.setPoolName("toolyard-restart-test");
            try (HikariDataSource pool = new HikariDataSource(config);
                    JdbcToolCallStore store = JdbcToolCallStore.of(pool)) {
                Set<String> ran = ConcurrentHashMap.newKeySet();
                Map<String, Long> acknowledged = new ConcurrentHashMap<>(); // n -> when (nanoTime)
                ConcurrentLinkedQueue<String[]> failures = new ConcurrentLinkedQueue<>(); // {n, message}
                CountDownLatch entered = new CountDownLatch(HELD);
                CountDownLatch release = new CountDownLatch(1);
                ToolExecutor executor = executor(store, ran, entered, release);
                ToolContext context = ToolContext.of("inv-restart", SandboxPaths.of(workspace));
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> callers = new ArrayList<>();
                for (int t = 0; t < CALLERS; t++) {
                    int thread = t;
                    Thread caller = new Thread(() -> {
                        for (long i = 0; !stop.get(); i++) {
                            String n = thread + "-" + i;
                            try {
                                ToolResult r = executor.execute(call(n), context);
                                if (r.status() == ToolStatus.OK) {
                                    acknowledged.put(n, System.nanoTime());
                                } else {
                                    failures.add(new String[] {n, "not ok: " + r.status() + " " + r.content()});
                                }
                            } catch (StoreFailureException e) {
                                failures.add(new String[] {n, String.valueOf(e.getMessage())});
                                try {
                                    Thread.sleep(20); // a worker backing off, not spinning
                                } catch (InterruptedException ie) {
                                    return;
                                }
                            }
                        }
                    }, "caller-" + t);
                    caller.start();
                    callers.add(caller);
                }
                Map<String, Long> acknowledgedBeforeStop;
                long serverUp;
                int failuresBeforeStop;
                int failuresWhileDown;
                try {
                    await("200 calls acknowledged before the stop", () -> acknowledged.size() >= 200);
                    failuresBeforeStop = failures.size();
                    // Calls whose handlers are running when the server dies: their completions must fail.
                    List<Thread> held = new ArrayList<>();
                    for (int h = 0; h < HELD; h++) {
                        String n = "held-" + h;
                        Thread t = new Thread(() -> {
                            try {
                                ToolResult r = executor.execute(call(n), context);
                                failures.add(new String[] {n, "a held call returned " + r.status()});
                            } catch (StoreFailureException e) {
                                failures.add(new String[] {n, String.valueOf(e.getMessage())});
                            }
                        }, n);
                        t.start();
                        held.add(t);
                    }
                    assertThat(entered.await(60, TimeUnit.SECONDS)).as("the held calls are in their handlers").isTrue();
                    try (ServerLock lock = ServerLock.take()) {
                        try {
                            acknowledgedBeforeStop = new HashMap<>(acknowledged);
                            pgCtl(pgCtl, "-m", "immediate", "-w", "stop");
                            release.countDown();
                            for (Thread t : held) {
                                t.join(60_000);
                            }
                            Thread.sleep(2_000);
                            failuresWhileDown = failures.size() - failuresBeforeStop;
                        } finally {
                            release.countDown();
                            pgCtl(pgCtl, "-l", CLUSTER.resolve("server.log").toString(), "-w", "-t", "60", "start");
                        }
                        serverUp = System.nanoTime();
                    }
                    await("a call acknowledged after the server came back", () -> acknowledged.values().stream()
                            .anyMatch(at -> at > serverUp), RECOVERY_BOUND_SECONDS);
                    long recovered = acknowledged.values().stream().filter(at -> at > serverUp).mapToLong(at -> at)
                            .min().orElseThrow();
                    System.err.printf("DatabaseGoesAwayTest: the first call acknowledged %d ms after the server was"
                            + " back; %d failures while it was down%n", (recovered - serverUp) / 1_000_000,
                            failuresWhileDown);
                    int before = acknowledged.size();
                    await("100 more calls acknowledged after recovery", () -> acknowledged.size() >= before + 100);
                } finally {
                    stop.set(true);
                    for (Thread c : callers) {
                        c.join();
                    }
                }

                assertThat(failuresBeforeStop).as("no call fails while the server is up").isZero();
                assertThat(failuresWhileDown).as("while the server is down, calls fail with the store's failure")
                        .isPositive();
                Map<String, String[]> rows = rowsByArgument(db);
                // Nothing acknowledged is lost: every call that returned ok reads back ok, completed.
                for (String n : acknowledged.keySet()) {
                    assertThat(rows).as("acknowledged call %s", n).containsKey(n);
                    assertThat(rows.get(n)).as("acknowledged call %s", n).containsExactly("ok", "true");
                }
                assertThat(acknowledgedBeforeStop).isNotEmpty();
                // No handler ran without its write-ahead mark: every call that ran has a row.
                for (String n : ran) {
                    assertThat(rows).as("call %s ran its handler, so its mark must be in the database", n)
                            .containsKey(n);
                }
                List<String[]> completionFailures = new ArrayList<>();
                for (String[] f : failures) {
                    if (f[1].contains(GroupCommitWriter.COMPLETION_FAILED)) {
                        completionFailures.add(f);
                    } else {
                        assertThat(f[1]).as("a failed call that is not a failed completion").contains("mark as started");
                        assertThat(ran).as("call %s: its mark failed, so its handler must not have run", f[0])
                                .doesNotContain(f[0]);
                    }
                }
                // A completion that failed after the handler ran says so, and its record reads as what it is:
                // the mark (interrupted), or the completion if the server committed it and only the answer was lost.
                assertThat(completionFailures).extracting(f -> f[0]).as("the calls in their handlers when the server died")
                        .contains("held-0", "held-1", "held-2");
                for (String[] f : completionFailures) {
                    assertThat(ran).contains(f[0]);
                    assertThat(rows.get(f[0])).as("call %s", f[0])
                            .satisfiesAnyOf(r -> assertThat(r).containsExactly("interrupted", "false"),
                                    r -> assertThat(r).containsExactly("ok", "true"));
                }
            } finally {
                ensureRunning(pgCtl);
            }
        }
    }

    /** @return argument n -> {status, completed} of every row, read on a fresh connection */
    private static Map<String, String[]> rowsByArgument(PostgresTestDatabase db) throws SQLException {
        Map<String, String[]> rows = new HashMap<>();
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + db.schema);
            try (ResultSet rs = s.executeQuery("SELECT arguments, status, completed FROM toolyard_call")) {
                while (rs.next()) {
                    String args = rs.getString(1);
                    String n = args.substring("{\"n\":\"".length(), args.length() - 2);
                    assertThat(rows.put(n, new String[] {rs.getString(2), String.valueOf(rs.getBoolean(3))}))
                            .as("one row per call").isNull();
                }
            }
        }
        return rows;
    }

    @Test
    void sqliteOnAFullFileSystemRefusesToRunUnrecordedCallsAndRecoversWhenSpaceReturns(@TempDir Path workspace)
            throws Exception {
        requireRoot("mounting a small tmpfs");
        Path mount = Files.createTempDirectory("toolyard-full-");
        run("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mount.toString());
        try {
            Set<String> ran = ConcurrentHashMap.newKeySet();
            try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(mount.resolve("calls.db"))) {
                ToolExecutor executor = executor(store, ran);
                ToolContext context = ToolContext.of("inv-full", SandboxPaths.of(workspace));
                for (int i = 0; i < 5; i++) {
                    assertThat(executor.execute(call("before-" + i), context).status()).isEqualTo(ToolStatus.OK);
                }
                Path filler = mount.resolve("filler");
                fill(filler);

                for (int i = 0; i < 10; i++) {
                    String n = "full-" + i;
                    try {
                        executor.execute(call(n), context);
                        fail("call " + n + " returned on a full file system");
                    } catch (StoreFailureException e) {
                        assertThat(e.getMessage()).contains("mark as started");
                    }
                }
                assertThat(ran).as("no handler runs while its mark cannot be written")
                        .noneMatch(n -> n.startsWith("full-"));

                Files.delete(filler);
                for (int i = 0; i < 5; i++) {
                    assertThat(executor.execute(call("after-" + i), context).status()).isEqualTo(ToolStatus.OK);
                }
                assertThat(store.byInvocation("inv-full")).extracting(r -> r.arguments())
                        .containsExactly(Arrays.stream(new String[] {"before-0", "before-1", "before-2", "before-3",
                                "before-4", "after-0", "after-1", "after-2", "after-3", "after-4"})
                                .map(n -> "{\"n\":\"" + n + "\"}").toArray(String[]::new));
            }
            try (Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + mount.resolve("calls.db"));
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("ok");
            }
        } finally {
            run("umount", "-l", mount.toString());
            Files.deleteIfExists(mount);
        }
    }

    /** Writes until the file system refuses even one byte more. */
    private static void fill(Path filler) throws IOException {
        try (OutputStream out = new FileOutputStream(filler.toFile())) {
            byte[] chunk = new byte[64 * 1024];
            for (int size : new int[] {chunk.length, 4096, 1}) {
                try {
                    while (true) {
                        out.write(chunk, 0, size);
                    }
                } catch (IOException full) {
                    // the next, smaller size fills what is left
                }
            }
        }
        try (OutputStream out = new FileOutputStream(filler.toFile(), true)) {
            out.write(new byte[4096]);
            fail("the file system " + filler.getParent() + " was expected to be full");
        } catch (IOException expected) {
            // full
        }
    }

    // --- the server ---

    private static Path requirePgCtl() throws IOException {
        requireRoot("running pg_ctl as postgres");
        String configured = System.getenv("TOOLYARD_PG_URL");
        if (configured != null && !configured.isEmpty() && !configured.equals(PostgresTestDatabase.DEFAULT_URL)) {
            skip("TOOLYARD_PG_URL names another server than the one .ci/setup-postgres.sh starts; this test stops"
                    + " and starts only that one");
        }
        Path bin = null;
        try (var dirs = Files.list(Path.of("/usr/lib/postgresql"))) {
            bin = dirs.map(d -> d.resolve("bin").resolve("pg_ctl")).filter(Files::isExecutable)
                    .max((a, b) -> Integer.compare(major(a), major(b))).orElse(null);
        } catch (IOException e) {
            // no PostgreSQL installed
        }
        if (bin == null || !Files.isRegularFile(CLUSTER.resolve("data").resolve("PG_VERSION"))) {
            skip("no pg_ctl under /usr/lib/postgresql/*/bin or no cluster in " + CLUSTER + " (.ci/setup-postgres.sh)");
        }
        return bin;
    }

    private static int major(Path pgCtl) {
        try {
            return Integer.parseInt(pgCtl.getParent().getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void pgCtl(Path pgCtl, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("runuser", "-u", "postgres", "--", pgCtl.toString(), "-D",
                CLUSTER.resolve("data").toString()));
        command.addAll(List.of(args));
        run(command.toArray(String[]::new));
    }

    /** Starts the server if it is not running ({@code pg_ctl status} exits 3 then), under the lock. */
    private static void ensureRunning(Path pgCtl) throws IOException, InterruptedException {
        Process status = new ProcessBuilder("runuser", "-u", "postgres", "--", pgCtl.toString(), "-D",
                CLUSTER.resolve("data").toString(), "status").directory(Path.of("/").toFile())
                .redirectErrorStream(true).start();
        status.getInputStream().readAllBytes();
        if (status.waitFor() != 0) {
            try (ServerLock lock = ServerLock.take()) {
                pgCtl(pgCtl, "-l", CLUSTER.resolve("server.log").toString(), "-w", "-t", "60", "start");
            }
        }
    }

    /** {@code flock} on {@value #POSTGRES_LOCK}, held by a child process for as long as its stdin is open. */
    static final class ServerLock implements AutoCloseable {
        private final Process holder;

        private ServerLock(Process holder) {
            this.holder = holder;
        }

        static ServerLock take() throws IOException {
            Process p = new ProcessBuilder("flock", "-x", POSTGRES_LOCK, "sh", "-c", "echo locked; exec cat >/dev/null")
                    .redirectErrorStream(true).start();
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (!"locked".equals(line)) {
                p.destroy();
                throw new IOException("could not take " + POSTGRES_LOCK + ": " + line);
            }
            return new ServerLock(p);
        }

        @Override
        public void close() throws IOException {
            holder.getOutputStream().close();
            try {
                holder.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(Path.of("/").toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    private static void requireRoot(String what) throws IOException {
        if (!"0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).trim())) {
            skip("this test needs root (" + what + ")");
        }
    }

    private static void skip(String why) {
        if ("true".equals(System.getenv("CI"))) {
            fail(why + "; CI=true, so this fails instead of skipping");
        }
        System.err.println("SKIPPING DatabaseGoesAwayTest: " + why);
        Assumptions.assumeTrue(false, why);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        await(what, condition, 120);
    }

    static void await(String what, BooleanSupplier condition, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("gave up after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
