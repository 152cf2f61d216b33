package dev.toolyard.store.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.sql.DataSource;

/**
 * Where reads get their connections: a fresh one from the data source for each read (a pool, if the
 * application gave one, does the reuse), or, for an SQLite file the store opened itself, up to
 * {@code keep} connections kept open between reads. An SQLite connection has its own page cache and
 * parses the schema when it opens, so a fresh connection per read re-reads from the file what the
 * last read just had in memory. A kept connection holds no transaction between reads (auto-commit),
 * so it sees every commit made before each read starts and never holds back a WAL checkpoint.
 * Thread-safe.
 */
final class ReadConnections implements AutoCloseable {
    private final DataSource dataSource;
    private final int keep;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /**
     * @param dataSource where connections come from; never {@code null}
     * @param keep how many idle connections to keep between reads; 0 for none
     */
    ReadConnections(DataSource dataSource, int keep) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.keep = keep;
    }

    /** @return a connection for one read, to give back with {@link #giveBack} */
    Connection take() throws SQLException {
        Connection c = idle.pollFirst();
        return c != null ? c : dataSource.getConnection();
    }

    /**
     * @param c a connection from {@link #take}
     * @param healthy false if the read failed: the connection is closed, never reused
     */
    void giveBack(Connection c, boolean healthy) {
        if (healthy && !closed && idle.size() < keep) {
            idle.addFirst(c);
            if (closed) {
                drain(); // close() ran meanwhile: what it did not see is closed here
            }
            return;
        }
        closeQuietly(c);
    }

    /** Closes the idle connections; a read still under way closes its own when it gives it back. */
    @Override
    public void close() {
        closed = true;
        drain();
    }

    private void drain() {
        for (Connection c; (c = idle.pollFirst()) != null; ) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // Nothing was written through it: a read connection that cannot close has nothing to lose.
        }
    }
}
