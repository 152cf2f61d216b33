package dev.toolyard.store.jdbc.internal;

import java.sql.SQLException;

/**
 * A check the writer runs before opening a connection and around every commit, for failures the
 * database itself does not report. Implementations are thread-safe.
 */
@FunctionalInterface
public interface CommitGuard {
    /** A guard that never objects. */
    CommitGuard NONE = () -> {};

    /** @throws SQLException if what is about to be (or was just) committed would not be durable */
    void check() throws SQLException;
}
