package dev.toolyard.benchmarks;

import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The store row: durable appends per second to {@code JdbcToolCallStore.sqlite(file)} from 1 and from
 * 8 threads, beside {@code InMemoryToolCallStore} appends in the same run. Each operation is one real
 * {@code append(ToolCallRecord)} of a record with a fresh call id, and it returns only once its row is
 * committed (WAL, {@code synchronous=FULL}). JMH reports the sum over the threads.
 *
 * <p>With one thread every append is its own commit, so the rate is the disk's sync rate. With eight,
 * the store's group commit lets waiting callers share one transaction; since each thread has at most
 * one append outstanding, a batch holds at most eight, so the rate is bounded by about
 * {@code 8 / (sync latency + a commit's CPU)}. The tear-down prints the appends per commit it saw.
 *
 * <p>Each trial gets a fresh database file in a fresh temporary directory, deleted afterwards. It must
 * be on a disk: a {@code tmpfs} sync costs nothing and would make "durable" meaningless, so where
 * {@code java.io.tmpdir} is in memory the directory is made under {@code benchmarks/target} (or the
 * working directory) instead; {@code -jvmArgsAppend -Dtoolyard.bench.storeDir=DIR} chooses it. The
 * tear-down also counts the rows: every append that returned must be in the file.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DurableStoreBenchmark {
    static final String STORE_DIR_PROPERTY = "toolyard.bench.storeDir";
    private static final Set<String> IN_MEMORY_FILE_SYSTEMS = Set.of("tmpfs", "ramfs");
    private static final String INVOCATION = "bench-invocation";
    private static final String ARGUMENTS_SHA256 = sha256(NoteTool.ARGUMENTS);
    private static final Instant STARTED_AT = Instant.parse("2026-01-02T03:04:05.123456789Z");
    private static final Duration DURATION = Duration.ofNanos(41_700);

    /** One real SQLite store per trial, on a fresh file. */
    @State(Scope.Benchmark)
    public static class Sqlite {
        Path dir;
        Path file;
        JdbcToolCallStore store;
        final LongAdder appended = new LongAdder();

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory(storeParent(), "toolyard-bench-store-");
            file = dir.resolve("calls.db");
            store = JdbcToolCallStore.sqlite(file);
            ToolCallRecord probe = record("probe-" + UUID.randomUUID());
            store.append(probe);
            List<ToolCallRecord> back = store.byInvocation(INVOCATION);
            if (!back.equals(List.of(probe))) {
                throw new IllegalStateException("the SQLite store did not read back what was appended: " + back);
            }
            appended.increment();
        }

        @TearDown(Level.Trial)
        public void close() throws IOException, SQLException {
            try {
                long commits = transactions(store);
                store.close();
                long rows = countRows(file);
                long made = appended.sum();
                System.err.printf(Locale.ROOT, "DurableStoreBenchmark: %,d appends in %s commits (%s per commit) on %s (%s)%n",
                        made, commits < 0 ? "?" : String.format(Locale.ROOT, "%,d", commits),
                        commits <= 0 ? "?" : String.format(Locale.ROOT, "%.2f", (double) made / commits),
                        dir, Files.getFileStore(dir).type());
                if (rows != made) {
                    throw new IllegalStateException(made + " appends returned but the file holds " + rows + " rows");
                }
            } finally {
                Workspace.delete(dir);
            }
        }
    }

    /** The in-memory store, drained as the rest of the suite drains it ({@link DrainedInMemoryStore}). */
    @State(Scope.Benchmark)
    public static class InMemory {
        final DrainedInMemoryStore store = new DrainedInMemoryStore();
    }

    /** Fresh call ids for one thread: a random prefix and a counter. */
    @State(Scope.Thread)
    public static class Ids {
        private final String prefix = UUID.randomUUID() + "-";
        private long next;

        ToolCallRecord nextRecord() {
            return record(prefix + next++);
        }
    }

    @Benchmark
    @Threads(1)
    public void sqliteOneThread(Sqlite s, Ids ids) {
        s.store.append(ids.nextRecord());
        s.appended.increment();
    }

    @Benchmark
    @Threads(8)
    public void sqliteEightThreads(Sqlite s, Ids ids) {
        s.store.append(ids.nextRecord());
        s.appended.increment();
    }

    @Benchmark
    @Threads(1)
    public void inMemoryOneThread(InMemory m, Ids ids) {
        m.store.append(ids.nextRecord());
    }

    @Benchmark
    @Threads(8)
    public void inMemoryEightThreads(InMemory m, Ids ids) {
        m.store.append(ids.nextRecord());
    }

    /** A finished call of the note tool, as the executor records it. */
    static ToolCallRecord record(String callId) {
        return new ToolCallRecord(callId, INVOCATION, NoteTool.NAME, ToolStatus.OK, null, "", NoteTool.ARGUMENTS,
                ARGUMENTS_SHA256, false, "ok", STARTED_AT, DURATION);
    }

    /**
     * @return where the trial's directory goes: {@value #STORE_DIR_PROPERTY} if set, else
     *     {@code java.io.tmpdir} unless it is in memory, else {@code benchmarks/target} or the working directory
     */
    static Path storeParent() throws IOException {
        String configured = System.getProperty(STORE_DIR_PROPERTY);
        if (configured != null) {
            Path p = Files.createDirectories(Path.of(configured));
            requireDisk(p, "-D" + STORE_DIR_PROPERTY);
            return p;
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        if (!IN_MEMORY_FILE_SYSTEMS.contains(Files.getFileStore(tmp).type())) {
            return tmp;
        }
        Path target = Path.of("benchmarks", "target");
        Path fallback = Files.isDirectory(target) ? target.toAbsolutePath() : Path.of("").toAbsolutePath();
        requireDisk(fallback, "java.io.tmpdir (" + tmp + ") is in memory, and the fallback");
        return fallback;
    }

    private static void requireDisk(Path p, String what) throws IOException {
        String type = Files.getFileStore(p).type();
        if (IN_MEMORY_FILE_SYSTEMS.contains(type)) {
            throw new IllegalStateException(what + " " + p + " is on " + type + ", where a sync costs nothing: durable "
                    + "appends need a disk; choose one with -jvmArgsAppend -D" + STORE_DIR_PROPERTY + "=DIR");
        }
    }

    private static long countRows(Path file) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolyard_call")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The writer's commit count, for the tear-down's "appends per commit" line only. The store keeps it
     * package-private (its tests read it), so it is read reflectively; -1 if that fails.
     */
    private static long transactions(JdbcToolCallStore store) {
        try {
            Method m = JdbcToolCallStore.class.getDeclaredMethod("transactions");
            m.setAccessible(true);
            return (long) m.invoke(store);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
