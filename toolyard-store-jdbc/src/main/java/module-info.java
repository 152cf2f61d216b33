/**
 * ToolYard's durable call store: {@code JdbcToolCallStore} on an SQLite file (the embedded default,
 * through the xerial driver) or any JDBC {@code DataSource}.
 */
module dev.toolyard.store.jdbc {
    requires transitive dev.toolyard.core;
    requires transitive java.sql;
    requires org.xerial.sqlitejdbc;

    exports dev.toolyard.store.jdbc;
}
