package dev.toolyard.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.store.jdbc.PostgresTestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DialectTest {

    @Test
    void sqliteIsRecognisedAndItsWriterSyncsEveryCommit(@TempDir Path dir) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("d.db"));
                Statement s = c.createStatement()) {
            s.execute("PRAGMA synchronous = OFF");

            assertThat(Dialect.of(c)).isEqualTo(Dialect.SQLITE);
            Dialect.SQLITE.prepareWriter(c);

            try (ResultSet rs = s.executeQuery("PRAGMA synchronous")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("2 is FULL").isEqualTo(2);
            }
        }
    }

    @Test
    void postgresqlIsRecognisedAndItsWriterTurnsSynchronousCommitBackOn() throws SQLException {
        try (PostgresTestDatabase db = PostgresTestDatabase.require(); Connection c = db.admin();
                Statement s = c.createStatement()) {
            s.execute("SET synchronous_commit TO off");

            assertThat(Dialect.of(c)).isEqualTo(Dialect.POSTGRESQL);
            Dialect.POSTGRESQL.prepareWriter(c);

            try (ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("on");
            }
        }
    }

    @Test
    void aPostgresqlWriterKeepsAStrongerSynchronousCommitSetting() throws SQLException {
        try (PostgresTestDatabase db = PostgresTestDatabase.require(); Connection c = db.admin();
                Statement s = c.createStatement()) {
            s.execute("SET synchronous_commit TO remote_apply");

            Dialect.POSTGRESQL.prepareWriter(c);

            try (ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("remote_apply");
            }
        }
    }
}
