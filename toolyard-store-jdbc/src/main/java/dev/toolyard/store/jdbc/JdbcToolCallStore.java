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
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 * commit: one writer thread commits whatever has queued, so one sync serves many calls); writes are
 * committed in the order they were made, and one that cannot be committed throws
 * {@link StoreFailureException} and leaves no row. A write never gives up on interruption: it waits
 * until its transaction's fate is known, and leaves the interrupt flag set.
 *
 * <p><b>Reading.</b> Every list is in append order: a call is placed where its mark (or, for a call
 * refused before its handler, its record) was written. A call marked as started with no completion
 * reads back as {@link ToolStatus#INTERRUPTED}: after a crash, the handler that was running when the
 * process died. Reads see every write that has returned.
 *
 * <p>The schema is created and upgraded by the store itself (see {@code docs/store.md}). Several
 * stores may share one PostgreSQL database; several processes may share one SQLite file, taking
 * turns at its write lock (each waits up to {@value #SQLITE_BUSY_TIMEOUT_MILLIS} ms).
 *
 * <p>Thread-safe. No method takes or returns {@code null}.
 */
public final class JdbcToolCallStore implements ToolCallStore, ToolCallReader, AutoCloseable {
    /** How long an SQLite connection waits for another connection's lock before failing, in ms. */
    public static final int SQLITE_BUSY_TIMEOUT_MILLIS = 10_000;

    private final CallTable table;
    private final GroupCommitWriter writer;
    private final String description;
    private volatile boolean closed;

    private JdbcToolCallStore(CallTable table, String description) {
        this.table = table;
        this.description = description;
        this.writer = new GroupCommitWriter(table, description);
    }

    /**
     * Opens (creating it and its missing parent directories if needed) an SQLite database file as a
     * store, in WAL mode with {@code synchronous=FULL}.
     *
     * @param file the database file; never {@code null}
     * @return the store; close it when done
     * @throws IllegalArgumentException if {@code file} is a directory, or its path contains {@code ?}
     *     (which the SQLite driver reads as the start of URL parameters)
     * @throws IllegalStateException if the file holds a newer store schema than this library knows
     * @throws StoreFailureException if the file cannot be created, opened, switched to WAL mode or migrated
     */
    public static JdbcToolCallStore sqlite(Path file) {
        Objects.requireNonNull(file, "file");
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
                    writer);
            return new JdbcToolCallStore(table, description);
        } catch (SQLException | IOException | RuntimeException e) {
            closeQuietly(writer, e);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreFailureException("could not open " + description + ": " + e, e);
        }
    }

    /**
     * Uses a database reached through a data source as a store. The store keeps one connection for
     * its writer until {@link #close} and takes one per read; it never closes the data source.
     * SQLite and PostgreSQL are recognised (from the driver's product name) and tested; any other
     * database gets standard SQL (an identity column, {@code TEXT} and {@code BOOLEAN}).
     *
     * @param dataSource where connections come from; never {@code null}
     * @return the store; close it when done
     * @throws IllegalStateException if the database holds a newer store schema than this library knows
     * @throws StoreFailureException if no connection can be had, or the schema cannot be created or migrated
     */
    public static JdbcToolCallStore of(DataSource dataSource) {
        return of(dataSource, null);
    }

    /** As {@link #of(DataSource)}, with the dialect forced (tests use it to run standard SQL on PostgreSQL). */
    static JdbcToolCallStore of(DataSource dataSource, Dialect forced) {
        Objects.requireNonNull(dataSource, "dataSource");
        Connection writer = null;
        String description = "the JDBC store";
        try {
            writer = dataSource.getConnection();
            description = "the " + writer.getMetaData().getDatabaseProductName() + " store";
            Dialect dialect = forced != null ? forced : Dialect.of(writer);
            dialect.prepareWriter(writer);
            Schema.migrate(writer, dialect);
            if (dialect == Dialect.POSTGRESQL) {
                Partitions.ensureAhead(writer, Partitions.today());
            }
            return new JdbcToolCallStore(new CallTable(dataSource, dialect, CommitGuard.NONE, writer), description);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(writer, e);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreFailureException("could not open " + description + ": " + e, e);
        }
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
     * Waits for the writes already made to commit, then stops the writer and closes its connection.
     * Afterwards every method throws {@link IllegalStateException}. Idempotent.
     *
     * @throws StoreFailureException if the writer's connection cannot be closed
     */
    @Override
    public void close() {
        closed = true;
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
