package dev.toolyard.store.jdbc;

import dev.toolyard.StoreFailureException;
import dev.toolyard.spi.ToolCallReader;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.ToolCallStore;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.internal.CallTable;
import dev.toolyard.store.jdbc.internal.CommitGuard;
import dev.toolyard.store.jdbc.internal.Dialect;
import dev.toolyard.store.jdbc.internal.GroupCommitWriter;
import dev.toolyard.store.jdbc.internal.Partitions;
import dev.toolyard.store.jdbc.internal.Retention;
import dev.toolyard.store.jdbc.internal.Schema;
import dev.toolyard.store.jdbc.internal.SqliteFileGuard;
import dev.toolyard.store.jdbc.internal.Write;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteOpenMode;

/**
 * A durable {@link ToolCallStore} and its {@link ToolCallReader}, in one table of a JDBC database:
 * an SQLite file ({@link #sqlite}, the embedded default) or any {@link DataSource} ({@link #of},
 * tested with PostgreSQL).
 *
 * <p><b>Durability.</b> When {@link #markStarted}, {@link #complete} or {@link #append} returns, its
 * row is committed: on SQLite in WAL mode with {@code synchronous=FULL}, which syncs the WAL at every
 * commit; on PostgreSQL with {@code synchronous_commit} on (the store turns it on for its own
 * connection if the server has it off). Callers writing at the same time share transactions (group
 * commit: a writer thread commits whatever has queued, so one sync serves many calls; see
 * {@link Builder#writers}); a write made after another returned is committed after it, and one that
 * cannot be committed throws {@link StoreFailureException} and leaves no row. A write never gives up on interruption: it waits
 * until its transaction's fate is known, and leaves the interrupt flag set.
 *
 * <p><b>Reading.</b> Every list is in append order: a call is placed where its mark (or, for a call
 * refused before its handler, its record) was written. A call marked as started with no completion
 * reads back as {@link ToolStatus#INTERRUPTED}: after a crash, the handler that was running when the
 * process died. Reads see every write that has returned.
 *
 * <p>The schema is created and upgraded by the store itself (see {@code docs/store.md}). Several
 * stores may share one PostgreSQL database; several processes may share one SQLite file, taking
 * turns at its write lock (each waits up to 10 s: {@link Settings#sqliteBusyTimeout()}).
 *
 * <p>Thread-safe. No method takes or returns {@code null}.
 */
public final class JdbcToolCallStore implements ToolCallStore, ToolCallReader, AutoCloseable {
    /** How long an SQLite connection waits for another connection's lock before failing, in ms. */
    static final int SQLITE_BUSY_TIMEOUT_MILLIS = 10_000;
    /** How many writer threads (each with a connection of its own) a PostgreSQL store has by default. */
    static final int DEFAULT_POSTGRESQL_WRITERS = 2;
    /** The most writer threads {@link Builder#writers} takes. */
    static final int MAX_WRITERS = 16;
    /** The shortest {@link Builder#retention}: a shorter one would remove the marks of calls still running. */
    static final Duration MIN_RETENTION = Duration.ofHours(1);
    /** The longest {@link Builder#retention} (about a century). */
    static final Duration MAX_RETENTION = Duration.ofDays(36_500);
    /** How often a store with a {@link Builder#retention} prunes, unless {@link Builder#pruneEvery} says otherwise. */
    static final Duration DEFAULT_PRUNE_EVERY = Duration.ofHours(1);

    /** How many read connections an SQLite store keeps open between reads (their page caches stay warm). */
    private static final int SQLITE_KEPT_READERS = 4;
    private static final System.Logger LOGGER = System.getLogger(JdbcToolCallStore.class.getName());
    private static final AtomicLong RETENTION_THREADS = new AtomicLong();

    private final CallTable table;
    private final GroupCommitWriter writer;
    private final String description;
    private volatile ScheduledExecutorService retention;
    private volatile boolean closed;
    private volatile Settings settings;

    /**
     * What a store was built with: the configured value of each setting, or its default, and the bounds
     * its builder accepts. A read-only view, as the defaults are read from a built store rather than from
     * constants: a store built without setting them reports the defaults.
     *
     * @param writers writer threads, each with its own connection; default 2 on PostgreSQL, 1 elsewhere
     * @param retention how long calls are kept; empty when the store keeps them until pruned by hand
     * @param pruneEvery how often the store prunes; empty without a retention, default an hour with one
     * @param sqliteBusyTimeout how long an SQLite connection waits for another's lock; 10 s; empty for
     *     another database
     * @param maxWriters the most writer threads {@link JdbcToolCallStore.Builder#writers} takes: 16
     * @param minRetention the shortest {@link JdbcToolCallStore.Builder#retention}: an hour (shorter would remove the marks of
     *     calls still running)
     * @param maxRetention the longest {@link JdbcToolCallStore.Builder#retention}: 36,500 days
     */
    public record Settings(int writers, Optional<Duration> retention, Optional<Duration> pruneEvery,
            Optional<Duration> sqliteBusyTimeout, int maxWriters, Duration minRetention, Duration maxRetention) {
        /**
         * Checks nothing: a store builds it from values its builder already checked.
         *
         * @param writers writer threads
         * @param retention how long calls are kept
         * @param pruneEvery how often the store prunes
         * @param sqliteBusyTimeout an SQLite connection's lock wait
         * @param maxWriters the most writer threads
         * @param minRetention the shortest retention
         * @param maxRetention the longest retention
         */
        public Settings {}
    }

    /** @return the settings this store was built with, defaults included; never {@code null} */
    public Settings settings() {
        return settings;
    }

    private final int writers;
    private final Dialect dialect;

    private JdbcToolCallStore(List<CallTable> tables, String description, Dialect dialect) {
        this.writers = tables.size();
        this.dialect = dialect;
        this.table = tables.get(0);
        this.description = description;
        this.writer = new GroupCommitWriter(tables, description);
    }

    /**
     * Opens (creating it and its missing parent directories if needed) an SQLite database file as a
     * store, in WAL mode with {@code synchronous=FULL}. The same as {@code builder(file).build()}.
     *
     * @param file the database file; never {@code null}
     * @return the store; close it when done
     * @throws IllegalArgumentException if {@code file} is a directory, or its path contains {@code ?}
     *     (which the SQLite driver reads as the start of URL parameters)
     * @throws IllegalStateException if the file holds a newer store schema than this library knows
     * @throws StoreFailureException if the file cannot be created, opened, switched to WAL mode or migrated
     */
    public static JdbcToolCallStore sqlite(Path file) {
        return builder(file).build();
    }

    /**
     * Uses a database reached through a data source as a store. The store keeps one connection per
     * writer thread until {@link #close} (2 on PostgreSQL, one
     * elsewhere: see {@link Builder#writers}) and takes one per read; it never closes the data source.
     * SQLite and PostgreSQL are recognised (from the driver's product name) and tested; any other
     * database gets standard SQL (an identity column, {@code TEXT} and {@code BOOLEAN}). The same as
     * {@code builder(dataSource).build()}.
     *
     * @param dataSource where connections come from; never {@code null}
     * @return the store; close it when done
     * @throws IllegalStateException if the database holds a newer store schema than this library knows
     * @throws StoreFailureException if no connection can be had, or the schema cannot be created or migrated
     */
    public static JdbcToolCallStore of(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** As {@link #of(DataSource)}, with the dialect forced (tests use it to run standard SQL on PostgreSQL). */
    static JdbcToolCallStore of(DataSource dataSource, Dialect forced) {
        Builder b = builder(dataSource);
        b.forced = forced;
        return b.build();
    }

    /**
     * A store on an SQLite file, to configure before {@link Builder#build opening}.
     *
     * @param file the database file; never {@code null}
     * @return a builder; never {@code null}
     */
    public static Builder builder(Path file) {
        return new Builder(Objects.requireNonNull(file, "file"), null);
    }

    /**
     * A store on a database reached through a data source, to configure before
     * {@link Builder#build opening}.
     *
     * @param dataSource where connections come from; never {@code null}
     * @return a builder; never {@code null}
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(null, Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * How a store is opened: its writer threads and its retention. Defaults: {@link #writers} as
     * {@link JdbcToolCallStore#of} says, no retention (nothing is ever removed but by
     * {@link JdbcToolCallStore#prune}). Not thread-safe; {@link #build} may be called more than once
     * (each opens a store of its own).
     */
    public static final class Builder {
        private final Path file;
        private final DataSource dataSource;
        private Dialect forced;
        private int writers; // 0: the dialect's default
        private Duration retention;
        private Duration pruneEvery;

        private Builder(Path file, DataSource dataSource) {
            this.file = file;
            this.dataSource = dataSource;
        }

        /**
         * How many writer threads commit the store's batches, each on a connection of its own held
         * until the store closes. With more than one, a batch is gathered and sent while the one
         * before it waits for its sync, so callers released by a commit need not wait a whole commit
         * for the next to begin. Writes one caller makes one after the other keep their order either
         * way; writes in flight at the same time from different callers may commit in either order.
         * Default: 2 on PostgreSQL, 1 elsewhere ({@link JdbcToolCallStore#settings()} reports the count).
         * SQLite commits one transaction at a time, so it takes 1 only.
         *
         * @param writers 1 to 16 ({@link Settings#maxWriters()})
         * @return this builder
         * @throws IllegalArgumentException if {@code writers} is out of range
         */
        public Builder writers(int writers) {
            if (writers < 1 || writers > MAX_WRITERS) {
                throw new IllegalArgumentException("writers must be between 1 and " + MAX_WRITERS + ", got " + writers);
            }
            this.writers = writers;
            return this;
        }

        /**
         * Keeps calls for this long after their start: {@link #build} prunes what is older (before it
         * returns), and the store prunes again every {@link #pruneEvery} (default an hour) on a daemon thread of its own until it is
         * closed, exactly as {@link JdbcToolCallStore#prune(Duration)} does, while writers keep writing.
         * A scheduled prune that fails is logged ({@code System.Logger}, WARNING) and tried again at the
         * next.
         *
         * @param keep how long calls are kept; an hour to 36,500 days ({@link Settings#minRetention()},
         *     {@link Settings#maxRetention()}); never {@code null}
         * @return this builder
         * @throws IllegalArgumentException if {@code keep} is out of range (shorter than an hour would
         *     remove the marks of calls still running)
         */
        public Builder retention(Duration keep) {
            Objects.requireNonNull(keep, "retention");
            if (keep.compareTo(MIN_RETENTION) < 0 || keep.compareTo(MAX_RETENTION) > 0) {
                throw new IllegalArgumentException("retention must be between " + MIN_RETENTION + " and "
                        + MAX_RETENTION.toDays() + " days (shorter would remove the marks of calls still running), got "
                        + keep);
            }
            this.retention = keep;
            return this;
        }

        /**
         * How often a store with a {@link #retention} prunes after the prune at open.
         *
         * @param every one second to one day; never {@code null}
         * @return this builder
         * @throws IllegalArgumentException if {@code every} is out of range
         */
        public Builder pruneEvery(Duration every) {
            Objects.requireNonNull(every, "pruneEvery");
            if (every.compareTo(Duration.ofSeconds(1)) < 0 || every.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("pruneEvery must be between PT1S and P1D, got " + every);
            }
            this.pruneEvery = every;
            return this;
        }

        /**
         * Opens the store: creates or upgrades its schema, opens its writer connections and, with a
         * {@link #retention}, prunes once and schedules the next prunes.
         *
         * @return the store; close it when done
         * @throws IllegalArgumentException if {@link #pruneEvery} was set without a {@link #retention}, if
         *     {@link #writers} is more than 1 for SQLite, or if an SQLite file is a directory or its path
         *     contains {@code ?} (which the SQLite driver reads as the start of URL parameters)
         * @throws IllegalStateException if the database holds a newer store schema than this library knows
         * @throws StoreFailureException if the database cannot be reached, created, migrated or pruned
         */
        public JdbcToolCallStore build() {
            if (pruneEvery != null && retention == null) {
                throw new IllegalArgumentException("pruneEvery is set but retention is not: set retention(Duration)");
            }
            JdbcToolCallStore store = file != null ? openSqlite(file, writers) : openDataSource(dataSource, forced,
                    writers);
            Duration every = retention == null ? null : pruneEvery == null ? DEFAULT_PRUNE_EVERY : pruneEvery;
            store.settings = new Settings(store.writers, Optional.ofNullable(retention),
                    Optional.ofNullable(every), store.dialect == Dialect.SQLITE
                            ? Optional.of(Duration.ofMillis(SQLITE_BUSY_TIMEOUT_MILLIS)) : Optional.empty(),
                    MAX_WRITERS, MIN_RETENTION, MAX_RETENTION);
            if (retention != null) {
                try {
                    store.keep(retention, every);
                } catch (RuntimeException e) {
                    try {
                        store.close();
                    } catch (RuntimeException c) {
                        e.addSuppressed(c);
                    }
                    throw e;
                }
            }
            return store;
        }
    }

    private static JdbcToolCallStore openSqlite(Path file, int writers) {
        if (writers > 1) {
            throw new IllegalArgumentException("writers must be 1 for SQLite (it commits one transaction at a time),"
                    + " got " + writers);
        }
        Path path = file.toAbsolutePath().normalize();
        if (path.toString().indexOf('?') >= 0) {
            throw new IllegalArgumentException("file must not contain '?', got " + file);
        }
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException("file must be a file, not a directory: " + file);
        }
        String description = "the SQLite store " + path;
        try {
            Files.createDirectories(path.getParent());
        } catch (IOException e) {
            throw new StoreFailureException("could not create the directory of " + description + ": " + e, e);
        }
        String url = "jdbc:sqlite:" + path;
        Connection writer = null;
        try {
            writer = sqliteDataSource(url, true).getConnection();
            try (Statement s = writer.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
                String mode = rs.next() ? rs.getString(1) : "unknown";
                if (!"wal".equalsIgnoreCase(mode)) {
                    throw new SQLException("SQLite could not switch the file to WAL mode (journal_mode is " + mode + ")");
                }
            }
            Dialect.SQLITE.prepareWriter(writer);
            Schema.migrate(writer, Dialect.SQLITE);
            syncDirectory(path.getParent());
            CallTable table = new CallTable(sqliteDataSource(url, false), Dialect.SQLITE, new SqliteFileGuard(path),
                    writer, SQLITE_KEPT_READERS);
            return new JdbcToolCallStore(List.of(table), description, Dialect.SQLITE);
        } catch (SQLException | IOException | RuntimeException e) {
            closeQuietly(writer, e);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreFailureException("could not open " + description + ": " + e, e);
        }
    }

    private static JdbcToolCallStore openDataSource(DataSource dataSource, Dialect forced, int writers) {
        List<Connection> connections = new ArrayList<>();
        String description = "the JDBC store";
        try {
            Connection first = dataSource.getConnection();
            connections.add(first);
            description = "the " + first.getMetaData().getDatabaseProductName() + " store";
            Dialect dialect = forced != null ? forced : Dialect.of(first);
            if (dialect == Dialect.SQLITE && writers > 1) {
                throw new IllegalArgumentException("writers must be 1 for SQLite (it commits one transaction at a"
                        + " time), got " + writers);
            }
            int count = writers > 0 ? writers : dialect == Dialect.POSTGRESQL ? DEFAULT_POSTGRESQL_WRITERS : 1;
            dialect.prepareWriter(first);
            Schema.migrate(first, dialect);
            if (dialect == Dialect.POSTGRESQL) {
                Partitions.ensureAhead(first, Partitions.today());
            }
            List<CallTable> tables = new ArrayList<>();
            tables.add(new CallTable(dataSource, dialect, CommitGuard.NONE, first));
            while (tables.size() < count) {
                Connection c = dataSource.getConnection();
                connections.add(c);
                dialect.prepareWriter(c);
                tables.add(new CallTable(dataSource, dialect, CommitGuard.NONE, c));
            }
            return new JdbcToolCallStore(tables, description, dialect);
        } catch (SQLException | RuntimeException e) {
            for (Connection c : connections) {
                closeQuietly(c, e);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreFailureException("could not open " + description + ": " + e, e);
        }
    }

    /** Prunes what is older than {@code keep} now, then every {@code every} on a daemon thread until closed. */
    private void keep(Duration keep, Duration every) {
        try {
            prune(keep);
        } catch (StoreFailureException e) {
            throw new StoreFailureException("could not prune the calls older than the retention of " + keep
                    + " when opening " + description + ": " + e.getMessage(), e);
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "toolyard-store-retention-" + RETENTION_THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                PruneResult r = prune(keep);
                LOGGER.log(System.Logger.Level.DEBUG, () -> description + ": retention " + keep + " pruned " + r);
            } catch (RuntimeException e) {
                if (!closed) {
                    LOGGER.log(System.Logger.Level.WARNING, description + ": the scheduled prune (retention " + keep
                            + ") failed; it is tried again in " + every + ": " + e, e);
                }
            }
        }, every.toNanos(), every.toNanos(), TimeUnit.NANOSECONDS);
        retention = scheduler;
    }

    private static SQLiteDataSource sqliteDataSource(String url, boolean create) {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(SQLITE_BUSY_TIMEOUT_MILLIS);
        if (!create) {
            // After the store opened it, a missing file is a failure, never a fresh empty database.
            config.resetOpenMode(SQLiteOpenMode.CREATE);
        }
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl(url);
        return dataSource;
    }

    /** Makes the new file's directory entry durable; skipped where the platform cannot open a directory. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory as a channel; there the file system orders metadata itself.
        }
    }

    private static void closeQuietly(Connection connection, Exception failure) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * Writes the mark durably: a row that reads back as {@link ToolStatus#INTERRUPTED} until
     * {@link #complete} replaces it.
     *
     * @throws StoreFailureException if it could not be committed
     * @throws IllegalStateException if a call with this id is already recorded, or the store is closed
     */
    @Override
    public void markStarted(ToolCallStart start) {
        Objects.requireNonNull(start, "start");
        writer.submit(new Write(Write.Kind.MARK, ToolCallRecord.interrupted(start)));
    }

    /**
     * Replaces the call's mark with the finished record, durably, keeping its place in append order.
     *
     * @throws StoreFailureException if it could not be committed
     * @throws IllegalStateException if no open mark has this call id, or the store is closed
     */
    @Override
    public void complete(ToolCallRecord record) {
        Objects.requireNonNull(record, "record");
        writer.submit(new Write(Write.Kind.COMPLETE, record));
    }

    /**
     * Writes the record durably, as it is.
     *
     * @throws StoreFailureException if it could not be committed
     * @throws IllegalStateException if a call with this id is already recorded, or the store is closed
     */
    @Override
    public void append(ToolCallRecord record) {
        Objects.requireNonNull(record, "record");
        writer.submit(new Write(Write.Kind.APPEND, record));
    }

    /**
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public List<ToolCallRecord> byInvocation(String invocationId) {
        Objects.requireNonNull(invocationId, "invocationId");
        checkOpen();
        try {
            return List.copyOf(table.byInvocation(invocationId));
        } catch (SQLException e) {
            throw readFailure("the calls of an invocation", e);
        }
    }

    /**
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public List<ToolCallRecord> recent(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        checkOpen();
        try {
            return List.copyOf(table.recent(limit));
        } catch (SQLException e) {
            throw readFailure("the most recent calls", e);
        }
    }

    /**
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public List<ToolCallRecord> byToolAndStatus(String toolName, ToolStatus status) {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(status, "status");
        checkOpen();
        try {
            return List.copyOf(table.byToolAndStatus(toolName, status));
        } catch (SQLException e) {
            throw readFailure("the calls of a tool", e);
        }
    }

    /**
     * The newest calls that match every criterion of the query, oldest first, selected by the
     * database (one {@code WHERE} clause), never by reading the whole table. Not part of
     * {@link ToolCallReader}: a query of this store only.
     *
     * @param query what to select; never {@code null}
     * @return at most {@code query.limit()} calls, in append order; unmodifiable; never {@code null}
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    public List<ToolCallRecord> find(CallQuery query) {
        Objects.requireNonNull(query, "query");
        checkOpen();
        try {
            return List.copyOf(table.find(query));
        } catch (SQLException e) {
            throw readFailure("the calls matching " + query, e);
        }
    }

    /**
     * One call by its id. Not part of {@link ToolCallReader}: a query of this store only.
     *
     * @param callId the call's id, as on its result and record; never {@code null}
     * @return the call; empty if this store holds no call with that id
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    public Optional<ToolCallRecord> byCallId(String callId) {
        Objects.requireNonNull(callId, "callId");
        checkOpen();
        try {
            return table.byCallId(callId);
        } catch (SQLException e) {
            throw readFailure("a call by its id", e);
        }
    }

    /**
     * Removes every call that started more than {@code olderThan} ago (by this JVM's clock), while
     * writers keep writing. See {@link #prune(Instant)}.
     *
     * @param olderThan the age past which calls go; positive; never {@code null}
     * @return what was removed; never {@code null}
     * @throws IllegalArgumentException if {@code olderThan} is zero or negative
     * @throws StoreFailureException if the database refused (what was removed before stays removed)
     * @throws IllegalStateException if the store is closed
     */
    public PruneResult prune(Duration olderThan) {
        Objects.requireNonNull(olderThan, "olderThan");
        if (olderThan.isNegative() || olderThan.isZero()) {
            throw new IllegalArgumentException("olderThan must be positive, got " + olderThan);
        }
        return prune(Instant.now().minus(olderThan));
    }

    /**
     * Removes exactly the calls whose {@code startedAt} is before {@code cut}, without stopping
     * writers. On PostgreSQL (schema version 7: range partitions by start, one per UTC day) the days
     * wholly before the cut are detached {@code CONCURRENTLY} and dropped, and the rest of the rows
     * before it deleted in batches; the day partitions of the coming week are made first. On SQLite
     * (and other databases) the rows go by deletes of at most 5,000 rows, each a short transaction of
     * its own. A call still running whose mark is removed cannot be completed afterwards (its
     * completion is refused), so choose a cut well past the longest call.
     *
     * @param cut calls started strictly before it are removed; never {@code null}
     * @return what was removed; never {@code null}
     * @throws StoreFailureException if the database refused (what was removed before stays removed)
     * @throws IllegalStateException if the store is closed
     */
    public PruneResult prune(Instant cut) {
        Objects.requireNonNull(cut, "cut");
        checkOpen();
        try {
            Retention.Outcome o = table.prune(cut);
            return new PruneResult(cut, o.partitionsDropped(), o.rowsInDroppedPartitions(), o.rowsDeleted());
        } catch (SQLException e) {
            throw new StoreFailureException("could not prune the calls started before " + cut + " from " + description
                    + ": " + e, e);
        }
    }

    /**
     * One page of an export: the calls started at or after {@code since} and before {@code until},
     * after {@code cursor} if given, in the export order (start, then call id), each as it reads now.
     * Pass the last record of a page (as an {@link ExportCursor}) to get the next; an empty page is the
     * end. A call still running reads as interrupted: choose an {@code until} far enough in the past
     * that the calls before it have finished (the CLI's default is an hour ago). Index range scans on
     * {@code toolyard_call_by_start}.
     *
     * @param since the earliest start, inclusive; never {@code null}
     * @param until the latest start, exclusive; never {@code null}
     * @param cursor where the previous page ended; {@code null} for the first page
     * @param limit most records in the page; positive
     * @return the page; unmodifiable; never {@code null}
     * @throws IllegalArgumentException if {@code limit} is not positive
     * @throws StoreFailureException if the database cannot be read
     * @throws IllegalStateException if the store is closed
     */
    public List<ToolCallRecord> exportAfter(Instant since, Instant until, ExportCursor cursor, int limit) {
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(until, "until");
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        checkOpen();
        try {
            return List.copyOf(table.export(since, until, cursor == null ? null : cursor.startedAt(),
                    cursor == null ? null : cursor.callId(), limit));
        } catch (SQLException e) {
            throw readFailure("the calls to export", e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    private StoreFailureException readFailure(String what, SQLException e) {
        return new StoreFailureException("could not read " + what + " from " + description + ": " + e, e);
    }

    /**
     * Stops the scheduled prunes (a prune under way finishes first), waits for the writes already
     * made to commit, then stops the writer threads and closes their connections. Afterwards every
     * method throws {@link IllegalStateException}. Idempotent.
     *
     * @throws StoreFailureException if a writer's connection cannot be closed
     */
    @Override
    public void close() {
        closed = true;
        ScheduledExecutorService scheduler = retention;
        if (scheduler != null) {
            scheduler.shutdown(); // a prune under way finishes first (it works on a connection of its own)
            boolean interrupted = false;
            while (true) {
                try {
                    if (scheduler.awaitTermination(1, TimeUnit.MINUTES)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        writer.close();
    }

    /** @return how many transactions the writer has attempted; for tests of group commit */
    long transactions() {
        return writer.transactions();
    }

    /** @return how many writes wait for the writer; for tests of batching */
    int queuedWrites() {
        return writer.queued();
    }

    @Override
    public String toString() {
        return "JdbcToolCallStore[" + description + "]";
    }
}
