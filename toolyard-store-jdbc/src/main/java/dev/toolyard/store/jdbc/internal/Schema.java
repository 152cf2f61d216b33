package dev.toolyard.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Creates and upgrades the store's tables. The version applied is a row in
 * {@code toolyard_schema_version}; each migration runs in one transaction with its version row, so
 * a crash mid-migration leaves the previous version intact. Stateless; thread-safe.
 */
public final class Schema {
    /** The schema version this code reads and writes. */
    public static final int CURRENT_VERSION = 8;
    /** The table that records which versions were applied. */
    public static final String VERSION_TABLE = "toolyard_schema_version";

    private static final int ATTEMPTS = 3;
    private static final System.Logger LOGGER = System.getLogger(Schema.class.getName());

    private Schema() {}

    /**
     * Brings the database to {@link #CURRENT_VERSION}. Leaves the connection in manual-commit mode.
     *
     * @param connection an open connection; never {@code null}
     * @param dialect its dialect; never {@code null}
     * @return the version found before migrating (0 for a new database)
     * @throws SQLException if the database cannot be read or migrated
     * @throws IllegalStateException if the database holds a newer schema than this code knows
     */
    public static int migrate(Connection connection, Dialect dialect) throws SQLException {
        connection.setAutoCommit(false);
        SQLException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                int found = migrateOnce(connection, dialect);
                connection.commit();
                return found;
            } catch (SQLException e) {
                rollbackQuietly(connection, e);
                last = e;
            } catch (RuntimeException e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        }
        throw last;
    }

    private static int migrateOnce(Connection connection, Dialect dialect) throws SQLException {
        int found;
        try (Statement s = connection.createStatement()) {
            dialect.lockForMigration(s);
            s.execute("CREATE TABLE IF NOT EXISTS " + VERSION_TABLE + " ("
                    + "version INTEGER NOT NULL PRIMARY KEY, "
                    + "description VARCHAR(200) NOT NULL, "
                    + "applied_at_epoch_milli BIGINT NOT NULL)");
            try (ResultSet rs = s.executeQuery("SELECT MAX(version) FROM " + VERSION_TABLE)) {
                found = rs.next() ? rs.getInt(1) : 0;
            }
            if (found > CURRENT_VERSION) {
                throw new IllegalStateException("the database holds toolyard store schema version " + found
                        + ", newer than version " + CURRENT_VERSION + " that this library reads and writes;"
                        + " use a newer toolyard-store-jdbc");
            }
            if (found < 1) {
                apply(s, dialect.schemaVersion1());
                recordVersion(connection, 1, "tool call records, indexed by invocation and by tool and status");
            }
            if (found < 2) {
                apply(s, dialect.schemaVersion2());
                recordVersion(connection, 2, "the agent framework's id of each call (request_call_id)");
            }
            if (found < 3) {
                apply(s, dialect.schemaVersion3());
                recordVersion(connection, 3, "the reviewer who answered the approval gate (approver)");
            }
            if (found < 4) {
                apply(s, dialect.schemaVersion4());
                recordVersion(connection, 4, "the agent name of each call's context (agent)");
            }
            if (found < 5) {
                apply(s, dialect.schemaVersion5());
                recordVersion(connection, 5, "what a policy gate in shadow mode would have refused (shadow_denial)");
            }
            if (found < 6) {
                apply(s, dialect.schemaVersion6());
                recordVersion(connection, 6, "indexes on the call's start: by tool, status and start, and by start");
            }
            if (found < 7) {
                if (dialect == Dialect.POSTGRESQL) {
                    String what = Partitions.convert(s, Partitions.today());
                    LOGGER.log(System.Logger.Level.INFO, "toolyard store schema version 7: " + what);
                    recordVersion(connection, 7, what.length() <= 200 ? what : what.substring(0, 197) + "...");
                } else {
                    recordVersion(connection, 7, "retention: no change to the table (old calls go by batched deletes)");
                }
            }
            if (found < 8) {
                apply(s, dialect.schemaVersion8());
                recordVersion(connection, 8, "what each call's command did on the network (network)");
            }
        }
        return found;
    }

    private static void apply(Statement statement, List<String> ddl) throws SQLException {
        for (String sql : ddl) {
            statement.execute(sql);
        }
    }

    private static void recordVersion(Connection connection, int version, String description) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + VERSION_TABLE
                + " (version, description, applied_at_epoch_milli) VALUES (?, ?, ?)")) {
            p.setInt(1, version);
            p.setString(2, description);
            p.setLong(3, System.currentTimeMillis());
            p.executeUpdate();
        }
    }

    static void rollbackQuietly(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
