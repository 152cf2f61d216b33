package dev.toolyard.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

class ReadConnectionsTest {

    @Test
    void keepsUpToItsCountOfHealthyConnectionsAndClosesEveryOtherOne(@TempDir Path dir) throws Exception {
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + dir.resolve("r.db"));
        ReadConnections readers = new ReadConnections(ds, 2);
        List<Connection> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(readers.take());
        }
        taken.forEach(c -> readers.giveBack(c, true));
        assertThat(taken.subList(0, 2)).as("kept").noneMatch(ReadConnectionsTest::closed);
        assertThat(taken.subList(2, 4)).as("beyond the count").allMatch(ReadConnectionsTest::closed);

        Connection again = readers.take();
        assertThat(taken.subList(0, 2)).as("a kept one is reused").contains(again);
        readers.giveBack(again, false);
        assertThat(again.isClosed()).as("one whose read failed is never reused").isTrue();

        Connection idle = readers.take();
        readers.giveBack(idle, true);
        Connection stillOut = readers.take();
        Connection fresh = readers.take();
        readers.giveBack(fresh, true);
        readers.close();
        assertThat(fresh.isClosed()).as("idle at close").isTrue();
        assertThat(stillOut.isClosed()).as("out at close: still in use").isFalse();
        readers.giveBack(stillOut, true);
        assertThat(stillOut.isClosed()).as("given back after close").isTrue();
    }

    @Test
    void theStoresKeptReadersSeeEveryCommitMadeBeforeEachRead(@TempDir Path dir) throws Exception {
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + dir.resolve("r.db"));
        ReadConnections readers = new ReadConnections(ds, 1);
        try (Connection w = ds.getConnection(); Statement s = w.createStatement()) {
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("CREATE TABLE t (n INTEGER)");
            for (int n = 1; n <= 3; n++) {
                s.execute("INSERT INTO t VALUES (" + n + ")");
                Connection r = readers.take();
                try (Statement q = r.createStatement(); ResultSet rs = q.executeQuery("SELECT COUNT(*) FROM t")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(n);
                }
                readers.giveBack(r, true);
            }
        }
        readers.close();
    }

    private static boolean closed(Connection c) {
        try {
            return c.isClosed();
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }
}
