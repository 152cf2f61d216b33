package dev.toolyard.store.jdbc.internal;

import dev.toolyard.ToolCallRecord;
import java.util.Objects;

/**
 * One row change the writer commits for a caller. Immutable.
 *
 * @param kind what the change is; never {@code null}
 * @param record the row's content (for a mark, the record it reads back as until completed); never {@code null}
 */
public record Write(Kind kind, ToolCallRecord record) {
    /** The three changes the store makes. */
    public enum Kind {
        /** Insert a write-ahead mark: a row that reads back as interrupted until completed. */
        MARK("mark as started"),
        /** Update a mark's row with the finished call. */
        COMPLETE("complete"),
        /** Insert a finished call that had no mark. */
        APPEND("append");

        private final String verb;

        Kind(String verb) {
            this.verb = verb;
        }

        /** @return what a caller was doing, for messages: "append", "complete", "mark as started" */
        public String verb() {
            return verb;
        }
    }

    /** @throws NullPointerException if a component is {@code null} */
    public Write {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(record, "record");
    }
}
