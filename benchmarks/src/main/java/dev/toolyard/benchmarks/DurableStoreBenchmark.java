package dev.toolyard.benchmarks;

import dev.toolyard.HandlerMode;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.spi.ToolCallStart;
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
import java.sql.PreparedStatement;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.postgresql.ds.PGSimpleDataSource;

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
 *
 * <p>The {@code execute*} rows measure what an agent pays: calls through a real {@code ToolExecutor}
 * (the note tool on the caller's thread), each a write-ahead mark committed before the handler runs and
 * a completion committed before {@code execute} returns, from 1 and 16 callers, on SQLite and on the
 * PostgreSQL server {@code .ci/setup-postgres.sh} starts (fsync and {@code synchronous_commit} on,
 * checked). Since a caller waits for two commits per call, 16 callers make at most
 * {@code 16 / (2 * commit latency)} calls/s; the tear-down prints writes per commit and checks that every
 * call that returned is in the store, completed.
 *
 * <p>Beside them, in the same run, the ceilings: {@code storePostgresSixteenCallers} (the store's mark
 * and completion without the executor), {@code bareJdbcPostgres*Caller*} (the same two durable writes
 * per call in plain JDBC, one autocommit connection per caller, PostgreSQL's own group commit) and
 * {@code bareJdbcPostgresRowsFourWriters} (durable rows/s the server takes from multi-row inserts with
 * nothing else to do; half of it bounds calls/s).
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

    /**
     * A real {@code ToolExecutor} recording into a durable store: every call is a write-ahead mark, the
     * handler (the note tool, on the caller's thread) and a completion, each committed before it returns.
     * The tear-down checks that every call that returned is in the store, completed.
     */
    abstract static class Durable {
        Path root;
        ToolContext context;
        ToolCallRequest request;
        JdbcToolCallStore store;
        ToolExecutor executor;
        final LongAdder executed = new LongAdder();

        abstract JdbcToolCallStore openStore() throws Exception;

        abstract long completedRows() throws SQLException;

        abstract String where();

        void open() throws Exception {
            root = Workspace.create();
            context = ToolContext.of(INVOCATION, SandboxPaths.of(root));
            request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
            store = openStore();
            executor = ExecutorFixture.note(HandlerMode.CALLER_THREAD, store);
            call();
        }

        void call() {
            ToolResult r = executor.execute(request, context);
            if (r.status() != ToolStatus.OK) {
                throw new IllegalStateException("the benchmark expects ok but got " + r.status() + ": " + r.content());
            }
            executed.increment();
        }

        /** Writes what the executor writes for one call (a mark, then its completion), straight to the store. */
        void markAndComplete(Ids ids) {
            String id = ids.prefix + ids.next++;
            Instant now = Instant.now();
            store.markStarted(new ToolCallStart(id, INVOCATION, NoteTool.NAME, NoteTool.ARGUMENTS, ARGUMENTS_SHA256,
                    false, now));
            store.complete(new ToolCallRecord(id, INVOCATION, NoteTool.NAME, ToolStatus.OK, null, "",
                    NoteTool.ARGUMENTS, ARGUMENTS_SHA256, false, "ok", now, DURATION));
            executed.increment();
        }

        /** Removes the trial's database (its file or schema). */
        abstract void removeDatabase() throws Exception;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            open();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            try {
                close();
            } finally {
                removeDatabase();
            }
        }

        void close() throws Exception {
            try {
                long commits = transactions(store);
                store.close();
                long rows = completedRows();
                long made = executed.sum();
                System.err.printf(Locale.ROOT, "DurableStoreBenchmark: %,d calls (%,d writes) in %s commits (%s writes"
                        + " per commit) on %s%n", made, 2 * made,
                        commits < 0 ? "?" : String.format(Locale.ROOT, "%,d", commits),
                        commits <= 0 ? "?" : String.format(Locale.ROOT, "%.2f", 2.0 * made / commits), where());
                if (rows != made) {
                    throw new IllegalStateException(made + " calls returned but the store holds " + rows
                            + " completed rows");
                }
            } finally {
                Workspace.delete(root);
            }
        }
    }

    /** The executor on an SQLite file on a disk (see {@link #storeParent}). */
    @State(Scope.Benchmark)
    public static class SqliteExecutor extends Durable {
        Path dir;
        Path file;

        @Override
        JdbcToolCallStore openStore() throws IOException {
            dir = Files.createTempDirectory(storeParent(), "toolyard-bench-store-");
            file = dir.resolve("calls.db");
            return JdbcToolCallStore.sqlite(file);
        }

        @Override
        long completedRows() throws SQLException {
            return countRows(DriverManager.getConnection("jdbc:sqlite:" + file));
        }

        @Override
        String where() {
            return "SQLite " + file;
        }

        @Override
        void removeDatabase() throws IOException {
            Workspace.delete(dir);
        }
    }

    /**
     * The executor on the PostgreSQL server {@code .ci/setup-postgres.sh} starts (fsync and
     * {@code synchronous_commit} on), in a fresh schema per trial, dropped afterwards. The URL, user
     * and password are the system properties {@code toolyard.bench.pgUrl}, {@code toolyard.bench.pgUser}
     * and {@code toolyard.bench.pgPassword} (defaults: the tests' server); the host must be loopback.
     */
    @State(Scope.Benchmark)
    public static class PostgresExecutor extends Durable {
        /**
         * The store's writer threads ({@code JdbcToolCallStore.Builder.writers}): 1 is the single
         * group-commit writer the store had before, side by side in the same run with the default.
         */
        @Param({"1", "2"})
        public int writers;

        final String schema = "toolyard_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        PGSimpleDataSource dataSource;

        @Override
        JdbcToolCallStore openStore() throws SQLException {
            dataSource = postgres();
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
                try (ResultSet rs = s.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit')")) {
                    rs.next();
                    if (!"on".equals(rs.getString(1)) || "off".equals(rs.getString(2))) {
                        throw new IllegalStateException("the PostgreSQL server runs with fsync=" + rs.getString(1)
                                + ", synchronous_commit=" + rs.getString(2) + ": these rows measure durable commits only");
                    }
                }
            }
            dataSource.setCurrentSchema(schema);
            return JdbcToolCallStore.builder(dataSource).writers(writers).build();
        }

        @Override
        long completedRows() throws SQLException {
            return countRows(dataSource.getConnection());
        }

        @Override
        String where() {
            return "PostgreSQL schema " + schema + ", " + writers + " writer(s)";
        }

        @Override
        void removeDatabase() throws SQLException {
            try (Connection c = postgres().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /**
     * The honest ceiling of the PostgreSQL rows: the same two durable writes per call with none of
     * ToolYard in the way, on the same server in the same run. Each caller has its own connection in
     * autocommit mode and, per call, inserts the mark (one commit, one WAL flush) and then updates it
     * to the completion (a second commit), exactly the rows and indexes the store writes (the table is
     * made by the store, in a fresh schema, dropped afterwards); PostgreSQL's own group commit shares
     * a WAL flush among the commits that arrive together. No executor, no queue, no writer thread.
     */
    @State(Scope.Benchmark)
    public static class PostgresBare {
        final String schema = "toolyard_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        PGSimpleDataSource dataSource;
        final LongAdder executed = new LongAdder();

        @Setup(Level.Trial)
        public void open() throws SQLException {
            PGSimpleDataSource admin = postgres();
            try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
            }
            dataSource = postgres();
            dataSource.setCurrentSchema(schema);
            JdbcToolCallStore.of(dataSource).close(); // the store's own table, partitions and indexes
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolyard_call WHERE completed")) {
                rs.next();
                System.err.printf(Locale.ROOT, "DurableStoreBenchmark: bare JDBC, %,d completed rows on"
                        + " PostgreSQL schema %s%n", executed.sum(), schema);
                if (rs.getLong(1) != executed.sum()) {
                    throw new IllegalStateException(executed.sum() + " bare calls returned but " + rs.getLong(1)
                            + " rows are completed");
                }
            } finally {
                try (Connection c = postgres().getConnection(); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
        }
    }

    /** One caller's connection and statements for {@link PostgresBare}. */
    @State(Scope.Thread)
    public static class BareCaller {
        private final String prefix = UUID.randomUUID() + "-";
        private long next;
        Connection connection;
        PreparedStatement mark;
        PreparedStatement complete;

        @Setup(Level.Trial)
        public void open(PostgresBare bare) throws SQLException {
            connection = bare.dataSource.getConnection();
            mark = connection.prepareStatement("INSERT INTO toolyard_call (call_id, invocation_id, tool_name, status,"
                    + " reason_detail, arguments, arguments_sha256, arguments_redacted, summary,"
                    + " started_at_epoch_second, started_at_nano, duration_second, duration_nano, completed)"
                    + " VALUES (?, ?, ?, 'interrupted', 'started, no completion recorded', ?, ?, false, '', ?, ?, 0, 0,"
                    + " false)");
            complete = connection.prepareStatement("UPDATE toolyard_call SET status = 'ok', reason_detail = '',"
                    + " summary = 'ok', duration_second = 0, duration_nano = ?, completed = true"
                    + " WHERE call_id = ? AND started_at_epoch_second = ? AND NOT completed");
        }

        void call(PostgresBare bare) throws SQLException {
            String id = prefix + next++;
            Instant now = Instant.now();
            mark.setString(1, id);
            mark.setString(2, INVOCATION);
            mark.setString(3, NoteTool.NAME);
            mark.setString(4, NoteTool.ARGUMENTS);
            mark.setString(5, ARGUMENTS_SHA256);
            mark.setLong(6, now.getEpochSecond());
            mark.setInt(7, now.getNano());
            if (mark.executeUpdate() != 1) {
                throw new IllegalStateException("the bare mark of " + id + " was not inserted");
            }
            complete.setInt(1, DURATION.getNano());
            complete.setString(2, id);
            complete.setLong(3, now.getEpochSecond());
            if (complete.executeUpdate() != 1) {
                throw new IllegalStateException("the bare completion of " + id + " updated no row");
            }
            bare.executed.increment();
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            connection.close();
        }

        /**
         * The server's ceiling for rows alone: {@value #ROWS_PER_COMMIT} marks in one multi-row insert
         * ({@code unnest} of arrays), one commit, nothing else (no completion, no executor).
         */
        void insertRows(PostgresBare bare) throws SQLException {
            if (rows == null) {
                rows = connection.prepareStatement("INSERT INTO toolyard_call (call_id, invocation_id, tool_name,"
                        + " status, reason_detail, arguments, arguments_sha256, arguments_redacted, summary,"
                        + " started_at_epoch_second, started_at_nano, duration_second, duration_nano, completed)"
                        + " SELECT id, ?, ?, 'ok', '', ?, ?, false, 'ok', s, n, 0, ?, true"
                        + " FROM unnest(?::text[], ?::int8[], ?::int4[]) AS v(id, s, n)");
            }
            String[] ids = new String[ROWS_PER_COMMIT];
            Long[] seconds = new Long[ROWS_PER_COMMIT];
            Integer[] nanos = new Integer[ROWS_PER_COMMIT];
            Instant now = Instant.now();
            for (int i = 0; i < ROWS_PER_COMMIT; i++) {
                ids[i] = prefix + next++;
                seconds[i] = now.getEpochSecond();
                nanos[i] = now.getNano();
            }
            rows.setString(1, INVOCATION);
            rows.setString(2, NoteTool.NAME);
            rows.setString(3, NoteTool.ARGUMENTS);
            rows.setString(4, ARGUMENTS_SHA256);
            rows.setInt(5, DURATION.getNano());
            rows.setArray(6, connection.createArrayOf("text", ids));
            rows.setArray(7, connection.createArrayOf("int8", seconds));
            rows.setArray(8, connection.createArrayOf("int4", nanos));
            if (rows.executeUpdate() != ROWS_PER_COMMIT) {
                throw new IllegalStateException("the bare multi-row insert did not insert " + ROWS_PER_COMMIT + " rows");
            }
            bare.executed.add(ROWS_PER_COMMIT);
        }

        private PreparedStatement rows;
    }

    /** Rows per commit of {@link #bareJdbcPostgresRowsFourWriters}: about what a 16-caller batch holds. */
    static final int ROWS_PER_COMMIT = 16;

    /**
     * The run script's preflight: exits 0 if the PostgreSQL rows can run (the server answers, with fsync
     * and {@code synchronous_commit} on), else prints why and exits 1.
     */
    public static void main(String[] args) {
        try (Connection c = postgres().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit'),"
                        + " version()")) {
            rs.next();
            if (!"on".equals(rs.getString(1)) || "off".equals(rs.getString(2))) {
                System.out.println("postgres: fsync=" + rs.getString(1) + ", synchronous_commit=" + rs.getString(2)
                        + ": not durable");
                System.exit(1);
            }
            System.out.println("postgres: " + rs.getString(3));
        } catch (SQLException | RuntimeException e) {
            System.out.println("postgres: unreachable (" + e.getMessage() + "); run .ci/setup-postgres.sh as root");
            System.exit(1);
        }
    }

    /** @return a data source on the benchmark's PostgreSQL server, refusing any host but loopback */
    static PGSimpleDataSource postgres() {
        String url = System.getProperty("toolyard.bench.pgUrl", "jdbc:postgresql://127.0.0.1:55432/toolyard_test");
        String host = url.replaceFirst("^jdbc:postgresql://\\[?([^/\\]:?]+).*$", "$1");
        if (!host.equals("localhost") && !host.equals("::1") && !host.matches("127\\.\\d+\\.\\d+\\.\\d+")) {
            throw new IllegalStateException("toolyard.bench.pgUrl must name a loopback host, got " + url);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        ds.setUser(System.getProperty("toolyard.bench.pgUser", "toolyard"));
        ds.setPassword(System.getProperty("toolyard.bench.pgPassword", "toolyard"));
        ds.setConnectTimeout(5);
        return ds;
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
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
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
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(1)
    public void executeSqliteOneCaller(SqliteExecutor s) {
        s.call();
    }

    @Benchmark
    @Threads(16)
    public void executeSqliteSixteenCallers(SqliteExecutor s) {
        s.call();
    }

    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(1)
    public void executePostgresOneCaller(PostgresExecutor p) {
        p.call();
    }

    @Benchmark
    @Threads(16)
    public void executePostgresSixteenCallers(PostgresExecutor p) {
        p.call();
    }

    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(1)
    public void bareJdbcPostgresOneCaller(PostgresBare b, BareCaller c) throws SQLException {
        c.call(b);
    }

    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(16)
    public void bareJdbcPostgresSixteenCallers(PostgresBare b, BareCaller c) throws SQLException {
        c.call(b);
    }

    /**
     * Durable rows per second the server takes with nothing else to do: four connections, each
     * committing {@value #ROWS_PER_COMMIT} completed rows per multi-row insert. Two row writes make a
     * call, so half of this bounds what any client could record through this server.
     */
    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(4)
    @OperationsPerInvocation(ROWS_PER_COMMIT)
    public void bareJdbcPostgresRowsFourWriters(PostgresBare b, BareCaller c) throws SQLException {
        c.insertRows(b);
    }

    /** The store alone, without the executor: a mark, then its completion, as the executor writes them. */
    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
    @Threads(16)
    public void storePostgresSixteenCallers(PostgresExecutor p, Ids ids) {
        p.markAndComplete(ids);
    }

    @Benchmark
    // A report-only or diagnostic row: shorter iterations than the rows with a target.
    @Warmup(iterations = 2, time = 1)
    @Measurement(iterations = 3, time = 1)
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

    /** @return the completed rows the connection's store holds; closes the connection */
    private static long countRows(Connection connection) throws SQLException {
        try (Connection c = connection;
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolyard_call WHERE completed")) {
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
