package dev.toolyard;

import java.util.Optional;
import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.ToolCallStore;
import java.time.Duration;

/**
 * Writes every call to the store and tells the observers, in the write-ahead order: a refusal is
 * appended once; a call that runs is marked before its handler and completed after. A store that
 * cannot write makes {@code execute} throw {@link StoreFailureException} (after the observers heard the
 * end, so a trace is never left open). Builds the result the model sees from the same capped
 * {@link OutputCap.Ending} as the record, so the two agree. Immutable; thread-safe.
 */
final class CallRecorder {
    private final ToolRegistry registry;
    private final ToolCallStore store;
    private final OutputCap cap;
    private final Observers observers;

    CallRecorder(ToolRegistry registry, ToolCallStore store, OutputCap cap, Observers observers) {
        this.registry = registry;
        this.store = store;
        this.cap = cap;
        this.observers = observers;
    }

    /** @return the refusal the walk decided, recorded */
    ToolResult refused(Call call) {
        OutputCap.Ending ending = cap.problem(call.displayName, call.refusal(), call.refusalDetail());
        ToolCallRecord record = record(call, ending, "");
        try {
            store.append(record);
        } catch (RuntimeException e) {
            observers.ended(call, record);
            throw storeFailure("append", e);
        }
        observers.ended(call, record);
        return result(call, ending, record.duration());
    }

    /** Writes the mark; if that throws, the handler must not run. */
    void started(Call call) {
        ToolCallStart start = new ToolCallStart(call.callId, call.context.invocationId(), call.displayName,
                call.recordedArguments(), call.digest, call.redacted(), call.startedAt, call.requestCallId,
                call.approver(), call.agent, call.shadowDenial);
        try {
            store.markStarted(start);
        } catch (RuntimeException e) {
            throw storeFailure("mark as started", e);
        }
        observers.started(call);
    }

    /** @return the handler's outcome, recorded */
    ToolResult completed(Call call, Outcome outcome) {
        OutputCap.Ending ending = ending(call, outcome);
        ToolOutput output = outcome.timedOut() || outcome.thrown() != null ? null : outcome.output();
        ToolCallRecord record = record(call, ending, output == null ? "" : output.networkRecord());
        try {
            store.complete(record);
        } catch (RuntimeException e) {
            observers.ended(call, record);
            throw storeFailure("complete", e);
        }
        observers.ended(call, record);
        return result(call, ending, record.duration());
    }

    private OutputCap.Ending ending(Call call, Outcome outcome) {
        if (outcome.timedOut()) {
            return cap.problem(call.displayName, Reason.TIMEOUT, "ran " + outcome.elapsedNanos() / 1_000_000
                    + " ms against a limit of " + call.context.timeout().toMillis() + " ms");
        }
        if (outcome.thrown() != null) {
            return cap.problem(call.displayName, Reason.HANDLER_ERROR, outcome.thrown().getClass().getName());
        }
        ToolOutput output = outcome.output();
        if (output == null) {
            return cap.problem(call.displayName, Reason.HANDLER_ERROR, "the handler returned null");
        }
        if (output.reason().isPresent()) {
            Optional<String> collision = registry.collision(output.reason().get());
            if (collision.isPresent()) { // a second meaning for a declared wire name never reaches a record
                return cap.problem(call.displayName, Reason.HANDLER_ERROR, "the handler ended the call with reason '"
                        + output.reason().get().wireName() + "' and status " + output.reason().get().status()
                        + ", but " + collision.get());
            }
            if (output.summary().isPresent()) {
                return cap.problemWithRecordedOutput(call.displayName, output.reason().get(), output.reasonDetail(),
                        output.summary().get());
            }
            return cap.problem(call.displayName, output.reason().get(), output.reasonDetail());
        }
        return cap.success(output);
    }

    private static ToolCallRecord record(Call call, OutputCap.Ending e, String network) {
        Duration duration = Duration.ofNanos(System.nanoTime() - call.startNanos);
        return new ToolCallRecord(call.callId, call.context.invocationId(), call.displayName, e.status(),
                Optional.ofNullable(e.reason()), e.detail(), call.recordedArguments(), call.digest, call.redacted(),
                e.summary(), call.startedAt, duration, call.requestCallId, call.approver(), call.agent, call.shadowDenial,
                network);
    }

    private static ToolResult result(Call call, OutputCap.Ending e, Duration duration) {
        return new ToolResult(call.callId, call.displayName, e.status(), e.reason(), e.detail(), e.content(),
                e.truncated(), duration);
    }

    private static StoreFailureException storeFailure(String what, RuntimeException e) {
        if (e instanceof StoreFailureException sfe) {
            return sfe;
        }
        return new StoreFailureException("the call store failed to " + what + " a call: " + e, e);
    }
}
