package dev.toolyard.store.jdbc.internal;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.CallQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The SQL of the {@code toolyard_call} table: batched writes in one transaction on the writer's own
 * connection, and reads on a fresh connection each. A mark is stored as the record it reads back as
 * ({@link ToolCallRecord#interrupted}) with {@code completed} false; completing it updates that row in
 * place, so it keeps its position in append order ({@code seq}).
 *
 * <p>Writes must come from one thread at a time (the group-commit writer); reads are thread-safe.
 */
public final class CallTable implements AutoCloseable {
    /** The table's name. */
    public static final String TABLE = "toolyard_call";

    private static final String COLUMNS = "call_id, invocation_id, tool_name, status, reason, reason_detail, "
            + "arguments, arguments_sha256, arguments_redacted, summary, started_at_epoch_second, started_at_nano, "
            + "duration_second, duration_nano, completed, request_call_id, approver, agent, shadow_denial, network";
    private static final String SELECT = "SELECT " + COLUMNS + " FROM " + TABLE;
    private static final String UPDATE = "UPDATE " + TABLE + " SET invocation_id = ?, tool_name = ?, status = ?, "
            + "reason = ?, reason_detail = ?, arguments = ?, arguments_sha256 = ?, arguments_redacted = ?, "
            + "summary = ?, started_at_epoch_second = ?, started_at_nano = ?, duration_second = ?, duration_nano = ?, "
            + "completed = ?, request_call_id = ?, approver = ?, agent = ?, shadow_denial = ?, network = ? "
            + "WHERE call_id = ? AND started_at_epoch_second = ? AND completed = ?";

    /** The array types of the one-statement batch's parameters, in {@link #COLUMNS} order, then "is a completion". */
    private static final String[] BATCH_COLUMN_TYPES = {"text", "text", "text", "text", "text", "text", "text", "text",
        "bool", "text", "int8", "int4", "int8", "int4", "bool", "text", "text", "text", "text", "text", "bool"};
    private static final String BATCH_CASTS = "?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], "
            + "?::text[], ?::text[], ?::bool[], ?::text[], ?::int8[], ?::int4[], ?::int8[], ?::int4[], ?::bool[], "
            + "?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bool[]";
    /**
     * PostgreSQL's one-statement batch: the rows come in as one array per column (then, last, the call
     * ids of the completions alone); the inserts go in the order given (so {@code seq} follows it), the
     * completions update open marks; the result names every call id written, with {@code true} for a
     * completion.
     *
     * <p>The completions find their marks through {@code call_id = ANY(ids)}, an index condition that
     * only the {@code (call_id, start)} unique index can serve, so the plan is a handful of index
     * probes per partition whatever the statistics say. The start is compared with
     * {@code IS NOT DISTINCT FROM}, which no index serves, on purpose: as an equality it let the
     * planner, on a partition it believed empty (a new store, a new day, no {@code ANALYZE} yet), read
     * the mark through {@code toolyard_call_by_start} instead, which is every row of that second, or
     * join the batch to a walk of the whole partition (measured: a 16-row batch reading every row of
     * the day, 4 ms a batch and growing, 1,300 calls/s with 16 callers). The price is no partition
     * pruning: each partition's unique index is probed (a few buffer reads each; see docs/store.md).
     */
    static String batchStatement(String table) {
        return batchStatement(table, true, true);
    }

    /**
     * The batch statement for a batch with inserts, completions or both: a batch of one kind (every
     * batch of a lone caller, whose mark and completion never share one) leaves out the other part,
     * whose plan would still open every partition and its indexes for nothing.
     *
     * @param table the table's name
     * @param inserts whether the batch holds marks or appends
     * @param completions whether the batch holds completions; at least one of the two
     */
    static String batchStatement(String table, boolean inserts, boolean completions) {
        if (!inserts && !completions) {
            throw new IllegalArgumentException("a batch holds inserts, completions or both");
        }
        String v = "v." + COLUMNS.replace(", ", ", v.");
        StringBuilder sql = new StringBuilder("WITH v AS (SELECT * FROM unnest(" + BATCH_CASTS + ") WITH ORDINALITY"
                + " AS v(" + COLUMNS + ", is_completion, ord))");
        if (inserts) {
            sql.append(", i AS (INSERT INTO ").append(table).append(" (").append(COLUMNS).append(") SELECT ").append(v)
                    .append(" FROM v WHERE NOT v.is_completion ORDER BY v.ord").append(Dialect.POSTGRESQL.insertSuffix())
                    .append(" RETURNING call_id)");
        }
        if (completions) {
            sql.append(", u AS (UPDATE ").append(table).append(" t SET invocation_id = v.invocation_id, "
                    + "tool_name = v.tool_name, status = v.status, reason = v.reason, "
                    + "reason_detail = v.reason_detail, arguments = v.arguments, "
                    + "arguments_sha256 = v.arguments_sha256, arguments_redacted = v.arguments_redacted, "
                    + "summary = v.summary, started_at_epoch_second = v.started_at_epoch_second, "
                    + "started_at_nano = v.started_at_nano, duration_second = v.duration_second, "
                    + "duration_nano = v.duration_nano, completed = true, request_call_id = v.request_call_id, "
                    + "approver = v.approver, agent = v.agent, shadow_denial = v.shadow_denial, network = v.network "
                    + "FROM v WHERE v.is_completion AND t.call_id = ANY(?::text[]) AND t.call_id = v.call_id"
                    + " AND t.started_at_epoch_second IS NOT DISTINCT FROM v.started_at_epoch_second"
                    + " AND NOT t.completed RETURNING t.call_id)");
        }
        sql.append(' ');
        if (inserts && completions) {
            sql.append("SELECT call_id, false FROM i UNION ALL SELECT call_id, true FROM u");
        } else {
            sql.append(inserts ? "SELECT call_id, false FROM i" : "SELECT call_id, true FROM u");
        }
        return sql.toString();
    }

    private final DataSource dataSource;
    private final ReadConnections readers;
    private final Dialect dialect;
    private final CommitGuard guard;
    private final String insert;
    /** The batch statements by shape: inserts and completions, inserts only, completions only. */
    private final String batchStatement = batchStatement(TABLE);
    private final String insertsOnly = batchStatement(TABLE, true, false);
    private final String completionsOnly = batchStatement(TABLE, false, true);
    private Connection writer;
    private boolean writerPlanned; // planWriterForPointWrites ran on writer

    /**
     * @param dataSource where connections come from; never {@code null}
     * @param dialect the database's dialect; never {@code null}
     * @param guard run before opening a connection and around each commit; never {@code null}
     * @param writer an open connection, already migrated, that this table now owns; may be {@code null}
     *     (one is opened at the first write)
     */
    public CallTable(DataSource dataSource, Dialect dialect, CommitGuard guard, Connection writer) {
        this(dataSource, dialect, guard, writer, 0);
    }

    /**
     * @param dataSource where connections come from; never {@code null}
     * @param dialect the database's dialect; never {@code null}
     * @param guard run before opening a connection and around each commit; never {@code null}
     * @param writer an open connection, already migrated, that this table now owns; may be {@code null}
     *     (one is opened at the first write)
     * @param keptReaders how many read connections to keep open between reads (for an SQLite file the
     *     store opened itself); 0 takes a fresh one from the data source for each read
     */
    public CallTable(DataSource dataSource, Dialect dialect, CommitGuard guard, Connection writer, int keptReaders) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.readers = new ReadConnections(dataSource, keptReaders);
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.writer = writer;
        this.insert = "INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + dialect.insertSuffix();
    }

    /**
     * Commits the writes in one transaction, inserts in the order given (which is their order of
     * {@code seq}). On any failure nothing of the batch is kept and the connection is dropped, so the
     * next batch starts on a fresh one.
     *
     * @param writes what to write, in order; never {@code null} or empty
     * @return per write, the rows it changed: 1, or 0 for a mark or append whose call id is already
     *     present or a completion with no open mark; a negative value where the driver did not say
     * @throws SQLException if the batch could not be committed, or was committed to a database the guard rejects
     */
    public int[] write(List<Write> writes) throws SQLException {
        if (dialect == Dialect.POSTGRESQL && !completesWhatItInserts(writes)) {
            return writeInOneStatement(writes);
        }
        Connection c = writerConnection();
        if (c.getAutoCommit()) {
            c.setAutoCommit(false);
        }
        int[] counts = new int[writes.size()];
        try {
            List<Integer> inserts = new ArrayList<>();
            List<Integer> updates = new ArrayList<>();
            for (int i = 0; i < writes.size(); i++) {
                (writes.get(i).kind() == Write.Kind.COMPLETE ? updates : inserts).add(i);
            }
            if (!inserts.isEmpty()) {
                try (PreparedStatement p = c.prepareStatement(insert)) {
                    for (int i : inserts) {
                        Write w = writes.get(i);
                        bindRow(p, 1, w.record());
                        p.setBoolean(15, w.kind() == Write.Kind.APPEND);
                        p.setString(16, StoredText.encode(w.record().requestCallId()));
                        p.setString(17, StoredText.encode(w.record().approver()));
                        p.setString(18, StoredText.encode(w.record().agent()));
                        p.setString(19, StoredText.encode(w.record().shadowDenial()));
                        p.setString(20, StoredText.encode(w.record().network()));
                        p.addBatch();
                    }
                    spread(p.executeBatch(), inserts, counts);
                }
            }
            if (!updates.isEmpty()) {
                try (PreparedStatement p = c.prepareStatement(UPDATE)) {
                    for (int i : updates) {
                        ToolCallRecord r = writes.get(i).record();
                        bindRow(p, 0, r);
                        p.setBoolean(14, true);
                        p.setString(15, StoredText.encode(r.requestCallId()));
                        p.setString(16, StoredText.encode(r.approver()));
                        p.setString(17, StoredText.encode(r.agent()));
                        p.setString(18, StoredText.encode(r.shadowDenial()));
                        p.setString(19, StoredText.encode(r.network()));
                        p.setString(20, StoredText.encode(r.callId()));
                        p.setLong(21, r.startedAt().getEpochSecond());
                        p.setBoolean(22, false);
                        p.addBatch();
                    }
                    spread(p.executeBatch(), updates, counts);
                }
            }
            guard.check();
            c.commit();
        } catch (Throwable t) {
            Schema.rollbackQuietly(c, t);
            dropWriter(t);
            throw t;
        }
        try {
            guard.check();
        } catch (SQLException e) {
            dropWriter(e);
            throw new SQLException("committed, but not durably: " + e.getMessage(), e);
        }
        return counts;
    }

    /**
     * True if a completion in the batch names a call that an insert of the same batch writes: one
     * statement sees the table as it was before the statement, so such a batch takes the two-statement
     * transaction, where the update sees the insert.
     */
    private static boolean completesWhatItInserts(List<Write> writes) {
        Set<String> inserted = null;
        for (Write w : writes) {
            if (w.kind() == Write.Kind.COMPLETE) {
                if (inserted != null && inserted.contains(w.record().callId())) {
                    return true;
                }
            } else {
                if (inserted == null) {
                    inserted = new HashSet<>();
                }
                inserted.add(w.record().callId());
            }
        }
        return false;
    }

    /**
     * PostgreSQL: the whole batch, marks, appends and completions, as one statement in autocommit
     * mode ({@link #batchStatement(String, boolean, boolean)}), so a batch costs one round trip and one commit (instead of
     * an insert, an update and a {@code COMMIT}: three). The statement is atomic: on failure none of
     * its rows is kept. Within the batch, a second write of the same call id is refused without
     * being sent (the first one decides), exactly as the two-statement path would refuse it.
     */
    private int[] writeInOneStatement(List<Write> writes) throws SQLException {
        Connection c = writerConnection();
        int n = writes.size();
        int[] counts = new int[n];
        boolean[] sent = new boolean[n];
        Set<String> insertIds = new HashSet<>();
        Set<String> updateIds = new HashSet<>();
        List<Integer> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Write w = writes.get(i);
            String id = StoredText.encode(w.record().callId());
            if ((w.kind() == Write.Kind.COMPLETE ? updateIds : insertIds).add(id)) {
                sent[i] = true;
                rows.add(i);
            }
        }
        Set<String> insertedNow = new HashSet<>();
        Set<String> updatedNow = new HashSet<>();
        try {
            guard.check();
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            boolean inserts = !insertIds.isEmpty();
            boolean completions = !updateIds.isEmpty();
            String sql = inserts && completions ? batchStatement : inserts ? insertsOnly : completionsOnly;
            try (PreparedStatement p = c.prepareStatement(sql)) {
                List<Write> sentWrites = new ArrayList<>(rows.size());
                for (int i : rows) {
                    sentWrites.add(writes.get(i));
                }
                bindBatch(c, p, sentWrites);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        (rs.getBoolean(2) ? updatedNow : insertedNow).add(rs.getString(1));
                    }
                }
            }
            guard.check();
        } catch (Throwable t) {
            dropWriter(t);
            throw t;
        }
        for (int i = 0; i < n; i++) {
            Write w = writes.get(i);
            String id = StoredText.encode(w.record().callId());
            counts[i] = sent[i] && (w.kind() == Write.Kind.COMPLETE ? updatedNow : insertedNow).contains(id) ? 1 : 0;
        }
        return counts;
    }

    /**
     * Binds the writes to {@link #batchStatement(String, boolean, boolean)}'s parameters: one array per
     * column, in order, then, if there are completions, their call ids.
     *
     * @param c the statement's connection (it makes the arrays)
     * @param p the prepared batch statement
     * @param writes the rows, at most one insert and one completion per call id
     * @throws SQLException if the driver refuses an array
     */
    static void bindBatch(Connection c, PreparedStatement p, List<Write> writes) throws SQLException {
        int m = writes.size();
        Object[][] columns = new Object[BATCH_COLUMN_TYPES.length][m];
        for (int k = 0; k < m; k++) {
            Write w = writes.get(k);
            ToolCallRecord r = w.record();
            Object[] row = {StoredText.encode(r.callId()), StoredText.encode(r.invocationId()),
                    StoredText.encode(r.toolName()), r.status().wireName(),
                    r.reason().map(Reason::wireName).orElse(null), StoredText.encode(r.reasonDetail()),
                    StoredText.encode(r.arguments()), StoredText.encode(r.argumentsSha256()), r.argumentsRedacted(),
                    StoredText.encode(r.summary()), r.startedAt().getEpochSecond(), r.startedAt().getNano(),
                    r.duration().getSeconds(), r.duration().getNano(), w.kind() != Write.Kind.MARK,
                    StoredText.encode(r.requestCallId()), StoredText.encode(r.approver()),
                    StoredText.encode(r.agent()), StoredText.encode(r.shadowDenial()), StoredText.encode(r.network()),
                    w.kind() == Write.Kind.COMPLETE};
            for (int col = 0; col < row.length; col++) {
                columns[col][k] = row[col];
            }
        }
        List<String> completions = new ArrayList<>();
        for (Write w : writes) {
            if (w.kind() == Write.Kind.COMPLETE) {
                completions.add(StoredText.encode(w.record().callId()));
            }
        }
        for (int col = 0; col < columns.length; col++) {
            p.setArray(col + 1, c.createArrayOf(BATCH_COLUMN_TYPES[col], columns[col]));
        }
        if (!completions.isEmpty()) { // the statement for a batch without completions has no such parameter
            p.setArray(columns.length + 1, c.createArrayOf("text", completions.toArray()));
        }
    }

    /** Binds every column but {@code completed}; {@code skipCallId} 1 binds the call id first (insert), 0 leaves it out (update). */
    private static void bindRow(PreparedStatement p, int skipCallId, ToolCallRecord r) throws SQLException {
        int i = 1;
        if (skipCallId == 1) {
            p.setString(i++, StoredText.encode(r.callId()));
        }
        p.setString(i++, StoredText.encode(r.invocationId()));
        p.setString(i++, StoredText.encode(r.toolName()));
        p.setString(i++, r.status().wireName());
        if (r.reason().isEmpty()) {
            p.setNull(i++, Types.VARCHAR);
        } else {
            p.setString(i++, r.reason().get().wireName());
        }
        p.setString(i++, StoredText.encode(r.reasonDetail()));
        p.setString(i++, StoredText.encode(r.arguments()));
        p.setString(i++, StoredText.encode(r.argumentsSha256()));
        p.setBoolean(i++, r.argumentsRedacted());
        p.setString(i++, StoredText.encode(r.summary()));
        p.setLong(i++, r.startedAt().getEpochSecond());
        p.setInt(i++, r.startedAt().getNano());
        p.setLong(i++, r.duration().getSeconds());
        p.setInt(i, r.duration().getNano());
    }

    private static void spread(int[] results, List<Integer> positions, int[] counts) throws SQLException {
        if (results.length != positions.size()) {
            throw new SQLException("the driver reported " + results.length + " results for a batch of " + positions.size());
        }
        for (int k = 0; k < results.length; k++) {
            counts[positions.get(k)] = results[k];
        }
    }

    private Connection writerConnection() throws SQLException {
        if (writer != null && !writerPlanned) {
            dialect.planWriterForPointWrites(writer);
            writerPlanned = true;
        }
        if (writer == null) {
            guard.check();
            Connection c = dataSource.getConnection();
            try {
                dialect.prepareWriter(c); // first: SQLite refuses to change its sync level inside a transaction
                dialect.planWriterForPointWrites(c);
                c.setAutoCommit(false);
            } catch (SQLException | RuntimeException e) {
                closeQuietly(c, e);
                throw e;
            }
            writer = c;
            writerPlanned = true;
        }
        return writer;
    }

    private void dropWriter(Throwable failure) {
        if (writer != null) {
            closeQuietly(writer, failure);
            writer = null;
            writerPlanned = false;
        }
    }

    private static void closeQuietly(Connection c, Throwable failure) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * @param invocationId never {@code null}
     * @return that invocation's calls in append order
     * @throws SQLException if the database cannot be read
     */
    public List<ToolCallRecord> byInvocation(String invocationId) throws SQLException {
        return select(" WHERE invocation_id = ? ORDER BY seq", 0, StoredText.encode(invocationId));
    }

    /**
     * @param limit how many at most; positive
     * @return the newest calls, oldest first
     * @throws SQLException if the database cannot be read
     */
    public List<ToolCallRecord> recent(int limit) throws SQLException {
        List<ToolCallRecord> newestFirst = new ArrayList<>(select(" ORDER BY seq DESC", limit));
        Collections.reverse(newestFirst);
        return newestFirst;
    }

    /**
     * @param toolName never {@code null}
     * @param status never {@code null}
     * @return the calls of that tool with that status, in append order
     * @throws SQLException if the database cannot be read
     */
    public List<ToolCallRecord> byToolAndStatus(String toolName, ToolStatus status) throws SQLException {
        return select(" WHERE tool_name = ? AND status = ? ORDER BY seq", 0, StoredText.encode(toolName),
                status.wireName());
    }

    /**
     * The newest calls matching every criterion the query sets, as one {@code WHERE} clause (on
     * SQLite and PostgreSQL the invocation and tool criteria use the table's indexes).
     *
     * @param query never {@code null}
     * @return at most {@code query.limit()} calls, oldest first
     * @throws SQLException if the database cannot be read
     */
    public List<ToolCallRecord> find(CallQuery query) throws SQLException {
        StringBuilder where = new StringBuilder();
        List<Object> parameters = new ArrayList<>();
        query.invocationId().ifPresent(v -> and(where, "invocation_id = ?", parameters, StoredText.encode(v)));
        query.toolName().ifPresent(v -> and(where, "tool_name = ?", parameters, StoredText.encode(v)));
        query.status().ifPresent(v -> and(where, "status = ?", parameters, v.wireName()));
        query.startedAtOrAfter().ifPresent(v -> and(where,
                "started_at_epoch_second >= ? AND (started_at_epoch_second > ? OR started_at_nano >= ?)",
                parameters, v.getEpochSecond(), v.getEpochSecond(), v.getNano()));
        // With a start criterion the range on (tool, status, start) or (start) is what is selective; ordering
        // by "+seq" (the same order) keeps planners from walking a whole (tool, status, seq) index backwards
        // instead, which on a big table reads every old row of that tool to find the hour's few.
        String order = query.startedAtOrAfter().isPresent() ? " ORDER BY +seq DESC" : " ORDER BY seq DESC";
        List<ToolCallRecord> newestFirst = new ArrayList<>(selectWith(where + order, query.limit(), parameters));
        Collections.reverse(newestFirst);
        return newestFirst;
    }

    /**
     * The export order: start, then call id; the calls started in {@code [since, until)}, after the
     * cursor position if one is given ({@code afterStart} and {@code afterCallId} both set or both null).
     *
     * @param since the earliest start, inclusive; never {@code null}
     * @param until the latest start, exclusive; never {@code null}
     * @param afterStart the cursor's start; {@code null} for none
     * @param afterCallId the cursor's call id; {@code null} for none
     * @param limit most calls; positive
     * @return at most {@code limit} calls, in the export order
     * @throws SQLException if the database cannot be read
     */
    public List<ToolCallRecord> export(Instant since, Instant until, Instant afterStart, String afterCallId, int limit)
            throws SQLException {
        List<Object> parameters = new ArrayList<>(List.of(since.getEpochSecond(), since.getEpochSecond(),
                since.getNano(), until.getEpochSecond(), until.getNano()));
        StringBuilder where = new StringBuilder(" WHERE started_at_epoch_second >= ?"
                + " AND (started_at_epoch_second, started_at_nano) >= (?, ?)"
                + " AND (started_at_epoch_second, started_at_nano) < (?, ?)");
        if (afterStart != null) {
            where.append(" AND (started_at_epoch_second, started_at_nano, call_id) > (?, ?, ?)");
            parameters.addAll(List.of(afterStart.getEpochSecond(), afterStart.getNano(), StoredText.encode(afterCallId)));
        }
        return selectWith(where + " ORDER BY started_at_epoch_second, started_at_nano, call_id", limit, parameters);
    }

    /**
     * @param callId never {@code null}
     * @return the call with that id; empty if none
     * @throws SQLException if the database cannot be read
     */
    public Optional<ToolCallRecord> byCallId(String callId) throws SQLException {
        List<ToolCallRecord> found = selectWith(" WHERE call_id = ?", 1, List.of(StoredText.encode(callId)));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static void and(StringBuilder where, String condition, List<Object> parameters, Object... values) {
        where.append(where.length() == 0 ? " WHERE " : " AND ").append(condition);
        parameters.addAll(List.of(values));
    }

    /**
     * One read: the rows of {@code SELECT ... tail}, at most {@code maxRows} (0: all), parameters bound by
     * their Java type (text, {@code long} or {@code int}).
     */
    private List<ToolCallRecord> selectWith(String tail, int maxRows, List<Object> parameters) throws SQLException {
        guard.check();
        List<ToolCallRecord> out = new ArrayList<>();
        Connection c = readers.take();
        boolean healthy = false;
        try (PreparedStatement p = c.prepareStatement(SELECT + tail)) {
            p.setMaxRows(maxRows);
            for (int i = 0; i < parameters.size(); i++) {
                Object v = parameters.get(i);
                if (v instanceof Long l) {
                    p.setLong(i + 1, l);
                } else if (v instanceof Integer n) {
                    p.setInt(i + 1, n);
                } else {
                    p.setString(i + 1, (String) v);
                }
            }
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            healthy = true;
        } finally {
            readers.giveBack(c, healthy);
        }
        return out;
    }

    private List<ToolCallRecord> select(String tail, int maxRows, String... parameters) throws SQLException {
        return selectWith(tail, maxRows, List.of((Object[]) parameters));
    }

    private static ToolCallRecord read(ResultSet rs) throws SQLException {
        String reason = rs.getString(5);
        try {
            ToolStatus status = ToolStatus.fromWireName(rs.getString(4));
            return new ToolCallRecord(
                    StoredText.decode(rs.getString(1)),
                    StoredText.decode(rs.getString(2)),
                    StoredText.decode(rs.getString(3)),
                    status,
                    Optional.ofNullable(reason).map(w -> Reason.fromRecord(w, status)), // a tool's own reason reads back too
                    StoredText.decode(rs.getString(6)),
                    StoredText.decode(rs.getString(7)),
                    StoredText.decode(rs.getString(8)),
                    rs.getBoolean(9),
                    StoredText.decode(rs.getString(10)),
                    Instant.ofEpochSecond(rs.getLong(11), rs.getInt(12)),
                    Duration.ofSeconds(rs.getLong(13), rs.getInt(14)),
                    StoredText.decode(rs.getString(16)),
                    StoredText.decode(rs.getString(17)),
                    StoredText.decode(rs.getString(18)),
                    StoredText.decode(rs.getString(19)),
                    StoredText.decode(rs.getString(20)));
        } catch (IllegalArgumentException e) {
            throw new SQLException("a row of " + TABLE + " cannot be read as a tool call record: " + e.getMessage(), e);
        }
    }

    /**
     * Removes every call started before {@code cut}, on a connection of its own ({@link Retention}).
     *
     * @param cut calls started strictly before it are removed; never {@code null}
     * @return what was removed
     * @throws SQLException if the database refused
     */
    public Retention.Outcome prune(java.time.Instant cut) throws SQLException {
        return Retention.prune(dataSource, dialect, guard, cut);
    }

    /** Closes the kept read connections and the writer's connection. Call only once the writer has stopped. */
    @Override
    public void close() throws SQLException {
        readers.close();
        if (writer != null) {
            Connection c = writer;
            writer = null;
            try {
                if (writerPlanned) {
                    writerPlanned = false;
                    if (!c.getAutoCommit()) {
                        c.rollback(); // nothing is open between batches; a RESET must not join a failed one
                        c.setAutoCommit(true);
                    }
                    dialect.resetWriterPlanning(c);
                }
            } catch (SQLException e) {
                // The connection is closed below either way; a pool that keeps it keeps the settings too.
            } finally {
                c.close();
            }
        }
    }
}
