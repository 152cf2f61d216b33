package dev.toolyard.store.jdbc.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Notices an SQLite database file that was deleted or replaced while the store had it open. SQLite
 * itself does not: its open descriptor keeps writing to the unlinked file, and every "commit" after
 * that is lost when the process ends. The file is identified by its file key (device and inode on
 * Unix), taken when the store opened it. Immutable; thread-safe.
 */
public final class SqliteFileGuard implements CommitGuard {
    private final Path file;
    private final Object key;

    /**
     * @param file the database file, which exists; never {@code null}
     * @throws IOException if its attributes cannot be read
     */
    public SqliteFileGuard(Path file) throws IOException {
        this.file = Objects.requireNonNull(file, "file");
        this.key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    @Override
    public void check() throws SQLException {
        Object now;
        try {
            now = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            throw new SQLException("the SQLite database file " + file + " is gone (" + e + ")", e);
        }
        if (key != null && !key.equals(now)) {
            throw new SQLException("the SQLite database file " + file
                    + " was replaced by another file since the store opened it");
        }
    }
}
