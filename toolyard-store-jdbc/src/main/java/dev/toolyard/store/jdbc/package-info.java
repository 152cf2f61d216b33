/**
 * A durable record of every tool call: {@link dev.toolyard.store.jdbc.JdbcToolCallStore}, on an SQLite
 * file or any JDBC database.
 */
package dev.toolyard.store.jdbc;
