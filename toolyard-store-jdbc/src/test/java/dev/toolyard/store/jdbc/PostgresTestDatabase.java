package dev.toolyard.store.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

import dev.toolyard.testing.Skip;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server the tests use: {@value #DEFAULT_URL} (user and password {@code toolyard}), as
 * {@code .ci/setup-postgres.sh} leaves it; overridden by the system properties
 * {@code toolyard.pg.url}, {@code toolyard.pg.user}, {@code toolyard.pg.password} or else the
 * environment variables {@code TOOLYARD_PG_URL}, {@code TOOLYARD_PG_USER}, {@code TOOLYARD_PG_PASSWORD}.
 * The URL must name a loopback host: tests never send a packet anywhere else. Each instance is a
 * fresh schema of its own, dropped by {@link #close}.
 */
public final class PostgresTestDatabase implements AutoCloseable {
    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:55432/toolyard_test";
    private static final Pattern LOOPBACK = Pattern.compile(
            "localhost|127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|\\[?::1\\]?|\\[?0:0:0:0:0:0:0:1\\]?");

    final String url = setting("toolyard.pg.url", "TOOLYARD_PG_URL", DEFAULT_URL);
    final String user = setting("toolyard.pg.user", "TOOLYARD_PG_USER", "toolyard");
    final String password = setting("toolyard.pg.password", "TOOLYARD_PG_PASSWORD", "toolyard");
    final String schema = "toolyard_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private PostgresTestDatabase() {}

    /**
     * A fresh schema on the test server. Skips the test loudly if the server cannot be reached, or
     * fails it when the environment says {@code CI=true}.
     */
    public static PostgresTestDatabase require() {
        PostgresTestDatabase db = new PostgresTestDatabase();
        requireLoopback(db.url);
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + db.schema);
        } catch (SQLException e) {
            String why = "PostgreSQL is not reachable at " + db.url + " as " + db.user + " (" + e.getMessage() + ")";
            Skip.unless(false, why + " - run .ci/setup-postgres.sh as root, or set TOOLYARD_PG_URL,"
                    + " TOOLYARD_PG_USER and TOOLYARD_PG_PASSWORD");
        }
        return db;
    }

    private static String setting(String property, String variable, String fallback) {
        String value = System.getProperty(property);
        if (value == null || value.isEmpty()) {
            value = System.getenv(variable);
        }
        return value == null || value.isEmpty() ? fallback : value;
    }

    static void requireLoopback(String url) {
        String rest = url.substring("jdbc:postgresql:".length());
        if (!rest.startsWith("//")) {
            return; // jdbc:postgresql:database means localhost
        }
        String authority = rest.substring(2).split("[/?]", 2)[0];
        for (String hostAndPort : authority.split(",")) {
            String host = hostAndPort.startsWith("[")
                    ? hostAndPort.substring(0, hostAndPort.indexOf(']') + 1)
                    : hostAndPort.split(":", 2)[0];
            if (!LOOPBACK.matcher(host.toLowerCase(Locale.ROOT)).matches()) {
                fail("the PostgreSQL test URL must name a loopback host (127.0.0.0/8, ::1, localhost), got " + url);
            }
        }
    }

    public Connection admin() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "5");
        p.setProperty("loginTimeout", "5");
        return DriverManager.getConnection(url, p);
    }

    /** @return a data source whose connections work in this instance's schema */
    public DataSource dataSource() {
        PGSimpleDataSource ds = base(url);
        ds.setCurrentSchema(schema);
        return ds;
    }

    /** @return a data source on another database of the same server */
    DataSource dataSource(String database) {
        PGSimpleDataSource ds = base(url);
        ds.setDatabaseName(database);
        return ds;
    }

    private PGSimpleDataSource base(String jdbcUrl) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        ds.setUser(user);
        ds.setPassword(password);
        ds.setConnectTimeout(5);
        ds.setLoginTimeout(5);
        return ds;
    }

    /**
     * A fresh schema for each test of a class, as a JUnit extension ({@code @RegisterExtension} on an
     * instance field): made before the test's {@code @BeforeEach} methods, dropped after its
     * {@code @AfterEach} methods (so the stores a test opened are closed first). Skips or fails as
     * {@link #require} does.
     */
    public static final class PerTest implements BeforeEachCallback, AfterEachCallback {
        private PostgresTestDatabase current;

        @Override
        public void beforeEach(ExtensionContext context) {
            current = require();
        }

        @Override
        public void afterEach(ExtensionContext context) throws SQLException {
            if (current != null) {
                PostgresTestDatabase db = current;
                current = null;
                db.close();
            }
        }

        /** @return the current test's database */
        public PostgresTestDatabase database() {
            if (current == null) {
                throw new IllegalStateException("no test is running");
            }
            return current;
        }

        /** @return a data source whose connections work in the current test's schema */
        public DataSource dataSource() {
            return database().dataSource();
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
