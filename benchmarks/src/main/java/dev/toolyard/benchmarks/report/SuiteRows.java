package dev.toolyard.benchmarks.report;

import dev.toolyard.benchmarks.report.Row.Metric;
import dev.toolyard.benchmarks.report.Target.AtLeast;
import dev.toolyard.benchmarks.report.Target.AtMost;
import dev.toolyard.benchmarks.report.Target.OverheadAtMost;
import dev.toolyard.benchmarks.report.Target.RatioAtLeast;
import dev.toolyard.benchmarks.report.Target.RatioAtMost;
import java.util.List;

/**
 * The table, row by row. A row whose benchmarks belong to a module not merged yet carries
 * {@code pending}: it appears in every report as "not measured", so a gap is never silent. To add
 * one, write its benchmark class (see README.md) and drop the {@code pending} text here.
 */
final class SuiteRows {
    private SuiteRows() {}

    private static final String HANDOFF = "ExecuteHandoffBenchmark.";
    private static final String CALLER = "CallerThreadPeersBenchmark.";
    private static final String SANDBOX = "SandboxBenchmark.";
    private static final String STORE = "DurableStoreBenchmark.";
    private static final String HTTP = "HttpFetchBenchmark.";
    private static final String OBSERVER = "ObserverBenchmark.";

    static final List<Row> ROWS = List.of(
            new Row("execute.handoff", "execute, no-op tool, default mode (HANDOFF), vs raw handoff",
                    HANDOFF + "toolyard", HANDOFF + "rawHandoff", Metric.SCORE,
                    List.of(new OverheadAtMost(5, "us/op")), null,
                    "a parked worker's wake-up; the raw baseline may find its worker still spinning (open item 2)"),
            new Row("execute.default.langchain4j", "execute, no-op cooperative tool, default mode (BY_TOOL), vs LangChain4j DefaultToolExecutor",
                    CALLER + "toolyardDefault", CALLER + "langchain4j", Metric.SCORE,
                    List.of(new RatioAtMost(1.5, false)), null,
                    "LangChain4j parses and binds only; ToolYard also validates, digests, clips and records twice"),
            new Row("allocation.default", "bytes per execute, cooperative tool, default mode, vs LangChain4j",
                    CALLER + "toolyardDefault", CALLER + "langchain4j", Metric.ALLOCATION,
                    List.of(new AtMost(1096, "B/op")), null,
                    "what is left is what a call is: its id and digest texts, the argument tree, the record, the"
                            + " mark, the result and the store's entries (measured one by one, 2026-12-02)"),
            new Row("execute.observed", "execute, default mode, one no-op observer vs none (report)",
                    CALLER + "toolyardObserved", CALLER + "toolyardDefault", Metric.SCORE, List.of(), null, null),
            new Row("execute.handoff.direct", "execute, default mode, vs a direct handler call (report)",
                    HANDOFF + "toolyard", HANDOFF + "directHandlerCall", Metric.SCORE, List.of(), null, null),
            new Row("round.8_vs_sequential", "executeRound of 8 no-op cooperative calls vs the same 8 execute calls"
                    + " in sequence", "RoundBenchmark.roundOfEight", "RoundBenchmark.eightSequential",
                    Metric.SCORE, List.of(new RatioAtMost(1.5, false)), null,
                    "the round's own work: one look-up per call to see whether any hands off, the watch's queue"),
            new Row("round.1_vs_execute", "executeRound of 1 no-op cooperative call vs one execute",
                    "RoundBenchmark.roundOfOne", "RoundBenchmark.oneExecute",
                    Metric.SCORE, List.of(new RatioAtMost(1.1, false)), null,
                    "the request list's copy and the result list"),
            new Row("execute.caller", "execute, no-op tool, CALLER_THREAD, vs a direct handler call",
                    CALLER + "toolyard", HANDOFF + "directHandlerCall", Metric.SCORE,
                    List.of(new OverheadAtMost(2, "us/op")), null,
                    "the JSON parse, the digest and the record (open item 1)"),
            new Row("execute.caller.springai", "execute, CALLER_THREAD, vs Spring AI MethodToolCallback.call",
                    CALLER + "toolyard", CALLER + "springAi", Metric.SCORE,
                    List.of(new RatioAtMost(1.0, true)), null, null),
            new Row("execute.caller.langchain4j", "execute, CALLER_THREAD, vs LangChain4j DefaultToolExecutor",
                    CALLER + "toolyard", CALLER + "langchain4j", Metric.SCORE,
                    List.of(new RatioAtMost(5, false)), null,
                    "LangChain4j parses and binds only; the gap is the parse, the digest and the record (open item 1)"),
            new Row("refusal.unknown_tool", "unknown-tool refusal vs the successful call (CALLER_THREAD)",
                    "RefusalBenchmark.unknownTool", CALLER + "toolyard", Metric.SCORE,
                    List.of(new RatioAtMost(1, false), new AtMost(1, "us/op")), null,
                    "the call id, the digest and the record of the refusal (not profiled since the digest fix)"),
            new Row("refusal.args_invalid", "args_invalid refusal vs the successful call (CALLER_THREAD)",
                    "RefusalBenchmark.argsInvalid", CALLER + "toolyard", Metric.SCORE,
                    List.of(new RatioAtMost(1, false), new AtMost(1, "us/op")), null,
                    "parse, then the detail and the problem text the model reads; the closed-subset schema is judged by"
                            + " CompiledSchema, so networknt's error objects are gone from this row"),
            new Row("arguments.1000_vs_100", "execute with 1,000 integers vs with 100 (CALLER_THREAD)",
                    "ArgumentSizeBenchmark.execute:integers=1000", "ArgumentSizeBenchmark.execute:integers=100",
                    Metric.SCORE, List.of(new RatioAtMost(12, false), new AtMost(40, "us/op")), null,
                    "parsing the integers; the schema check is the compiled fast path (0 B on success)"),
            new Row("containment.dotdot", "PathContainment.resolveRead(\"sub/../notes.md\") vs Path.toRealPath()",
                    "PathContainmentBenchmark.resolveReadDotDot", "PathContainmentBenchmark.toRealPathDotDot",
                    Metric.SCORE, List.of(new RatioAtMost(1.5, false)), null, null),
            new Row("containment.symlink", "PathContainment.resolveRead of a symlink vs Path.toRealPath()",
                    "PathContainmentBenchmark.resolveReadSymlink", "PathContainmentBenchmark.toRealPathSymlink",
                    Metric.SCORE, List.of(new RatioAtMost(1.5, false)), null, null),
            new Row("throughput.handoff", "execute throughput, HANDOFF: 2 threads vs 1",
                    "ThroughputBenchmark.twoThreads:handlerMode=HANDOFF",
                    "ThroughputBenchmark.oneThread:handlerMode=HANDOFF", Metric.SCORE,
                    List.of(new RatioAtLeast(1.7)), null,
                    "2 callers and 2 woken workers on 2 cores: every handoff is a context switch"),
            new Row("throughput.caller", "execute throughput, CALLER_THREAD: 2 threads vs 1",
                    "ThroughputBenchmark.twoThreads:handlerMode=CALLER_THREAD",
                    "ThroughputBenchmark.oneThread:handlerMode=CALLER_THREAD", Metric.SCORE,
                    List.of(new RatioAtLeast(1.7)), null,
                    "not profiled yet: a shared point on the path (the store, the deadline watchdog) or 2 benchmark threads and the watchdog on 2 cores (open item 3)"),
            new Row("sandbox.bwrap", "TieredSandbox.runIsolated([\"/bin/true\"]), bubblewrap rung, vs the same argv bare",
                    SANDBOX + "runIsolatedBubblewrap", SANDBOX + "bareBubblewrapProcess",
                    Metric.SCORE, List.of(new RatioAtMost(1.05, false)), null,
                    "the write root's hand-over (0.12 ms), the supervisor's readers (0.1-0.4 ms) and about 1 ms not yet"
                            + " found (paired: 1.15x); between two forks the spawn itself drifts by up to a third here:"
                            + " check with SandboxBenchmark --paired (open item 4)"),
            new Row("sandbox.minimal", "TieredSandbox.runIsolated([\"/bin/true\"]), bubblewrap rung, vs a minimal hardened"
                    + " bwrap line (--unshare-all --cap-drop ALL --die-with-parent --new-session, /usr and its links,"
                    + " /proc /dev /tmp, --clearenv)",
                    SANDBOX + "runIsolatedBubblewrap", SANDBOX + "minimalHardenedBwrap",
                    Metric.SCORE, List.of(new RatioAtMost(1.2, false)), null,
                    "three execs (bubblewrap, toolyard-warm --exec-once, which switches to the lent uid, the command)"
                            + " to the minimal line's two, about 0.6 ms each, and the mounts it lacks (the /etc snapshot,"
                            + " /proc/sys, the /proc masks, the workspace, the helper, --remount-ro): the line alone is 1.3x"
                            + " the minimal one; paired, 1.45x (open item 4)"),
            new Row("sandbox.bare_spawn", "TieredSandbox.runIsolated([\"/bin/true\"]), bubblewrap rung, vs a bare /bin/true (report)",
                    SANDBOX + "runIsolatedBubblewrap", SANDBOX + "bareTrue", Metric.SCORE, List.of(), null, null),
            new Row("sandbox.bare_true", "bubblewrap's own cost: the library's bwrap argv vs a bare /bin/true (report)",
                    SANDBOX + "bareBubblewrapProcess", SANDBOX + "bareTrue", Metric.SCORE, List.of(), null, null),
            new Row("sandbox.warm.bwrap", "TieredSandbox.runIsolated([\"/bin/true\"]), warm, bubblewrap rung, vs a bare"
                    + " /bin/true", SANDBOX + "runIsolatedBubblewrapWarm", SANDBOX + "bareTrue", Metric.SCORE,
                    List.of(new RatioAtMost(2, false)), null,
                    "a request frame to the supervisor, its clone and exec of the command (session, uid switch, limits,"
                            + " seccomp), the kill-and-reap sweep, the checks (sockstat before the TCP tables, whose reads"
                            + " walk the host's whole hash: 13 ms a command before 2026-12-03) and the exit frame"),
            new Row("sandbox.warm.container", "TieredSandbox.runIsolated([\"/bin/true\"]), warm, container rung (podman),"
                    + " vs a bare /bin/true", SANDBOX + "runIsolatedContainerWarm", SANDBOX + "bareTrue", Metric.SCORE,
                    List.of(new RatioAtMost(3, false)), null,
                    "the same supervisor round trip as on the bubblewrap rung, through podman's attached standard"
                            + " streams (conmon) instead of pipes of its own"),
            new Row("sandbox.warm.gvisor", "TieredSandbox.runIsolated([\"/bin/true\"]), warm, gVisor rung (podman with"
                    + " runsc), vs a bare /bin/true", SANDBOX + "runIsolatedGvisorWarm", SANDBOX + "bareTrue", Metric.SCORE,
                    List.of(new RatioAtMost(3, false)), null,
                    "a spawn inside gVisor's kernel on its ptrace platform, the only one here: posix_spawn of /bin/true"
                            + " from Python took 10.1 ms inside gVisor against 0.60 ms on the host"
                            + " (results/sandbox-warm-2026-12-03.md); the supervisor's own checks are a small part"),
            new Row("sandbox.warm.bwrap_vs_cold", "TieredSandbox.runIsolated([\"/bin/true\"]), bubblewrap rung, warm vs"
                    + " cold (report)", SANDBOX + "runIsolatedBubblewrapWarm", SANDBOX + "runIsolatedBubblewrap",
                    Metric.SCORE, List.of(), null, null),
            new Row("sandbox.twenty.bwrap", "20 short commands (ls, cat, grep, sh -c ..., a write) in one workspace,"
                    + " bubblewrap rung, warm vs cold (report)", SANDBOX + "twentyCommandsBubblewrapWarm",
                    SANDBOX + "twentyCommandsBubblewrapCold", Metric.SCORE, List.of(), null, null),
            new Row("sandbox.twenty.container", "20 short commands in one workspace, container rung (podman), warm vs cold"
                    + " (report)", SANDBOX + "twentyCommandsContainerWarm", SANDBOX + "twentyCommandsContainerCold",
                    Metric.SCORE, List.of(), null, null),
            new Row("sandbox.gvisor.cold", "TieredSandbox.runIsolated([\"/bin/true\"]), cold, gVisor rung (podman with runsc)"
                    + " vs the container rung (runc) (report: the ratio)", SANDBOX + "runIsolatedGvisorCold",
                    SANDBOX + "runIsolatedContainerCold", Metric.SCORE, List.of(), null, null),
            new Row("sandbox.gvisor.getppid", "100,000 getppid calls from Python inside the sandbox, gVisor rung vs the"
                    + " container rung (report: the system-call tax of the stronger rung)", SANDBOX + "getppidLoopGvisor",
                    SANDBOX + "getppidLoopContainer", Metric.SCORE, List.of(), null, null),
            new Row("sandbox.getppid.bwrap", "100,000 getppid calls from Python inside the sandbox, bubblewrap rung vs the"
                    + " container rung (report)", SANDBOX + "getppidLoopBubblewrap", SANDBOX + "getppidLoopContainer",
                    Metric.SCORE, List.of(), null, null),
            new Row("http_fetch.1KiB", "http_fetch of a 1 KiB body from loopback vs a plain OkHttp GET (CALLER_THREAD)",
                    HTTP + "httpFetch:bodyBytes=1024", HTTP + "plainOkHttp:bodyBytes=1024",
                    Metric.SCORE, List.of(new RatioAtMost(1.1, false)), null,
                    "no single hot spot: the executor (2 us in a tight loop, 15-20 us between blocking reads) and the"
                            + " tool's own checks (5-15 us) on a ~200 us loopback round trip; forks a minute apart"
                            + " drift past the margin: check with HttpFetchBenchmark --paired (open item 5)"),
            new Row("http_fetch.1MiB", "http_fetch of a 1 MiB body from loopback vs a plain OkHttp GET (CALLER_THREAD)",
                    HTTP + "httpFetch:bodyBytes=1048576", HTTP + "plainOkHttp:bodyBytes=1048576", Metric.SCORE,
                    List.of(new RatioAtMost(1.2, false)), null,
                    "the executor counts the body's UTF-8 length once to cap it, plus copying and decoding; the handler"
                            + " alone is about 1.1x the plain GET (open item 5)"),
            new Row("store.sqlite.1", "durable SQLite appends/s, 1 thread, vs in-memory appends (report)",
                    STORE + "sqliteOneThread", STORE + "inMemoryOneThread", Metric.SCORE, List.of(), null, null),
            new Row("store.sqlite.8", "durable SQLite appends/s, 8 threads, vs in-memory appends",
                    STORE + "sqliteEightThreads", STORE + "inMemoryEightThreads", Metric.SCORE,
                    List.of(new AtLeast(10_000, "ops/s")), null,
                    "each thread has one append outstanding, so a group commit holds at most 8: the rate is at most"
                            + " 8 / (the WAL fsync's latency + a commit's CPU); the tear-down prints appends per commit"),
            new Row("store.sqlite.8_vs_1", "durable SQLite appends/s, 8 threads vs 1 (what group commit buys; report)",
                    STORE + "sqliteEightThreads", STORE + "sqliteOneThread", Metric.SCORE, List.of(), null, null),
            new Row("store.pg.execute.16", "durable calls/s through the executor (mark + completion), 16 callers,"
                    + " PostgreSQL vs SQLite", STORE + "executePostgresSixteenCallers:writers=2",
                    STORE + "executeSqliteSixteenCallers", Metric.SCORE, List.of(new AtLeast(10_000, "ops/s")), null,
                    "each call waits for two commits in turn (the mark, then the completion), so 16 callers make at"
                            + " most 16 / (2 x a commit's latency) calls/s: the server's WAL fsync plus one round trip"
                            + " per batch; the tear-down prints writes per commit"),
            new Row("store.pg.execute.1", "durable calls/s through the executor, 1 caller, PostgreSQL vs SQLite (report)",
                    STORE + "executePostgresOneCaller:writers=2", STORE + "executeSqliteOneCaller", Metric.SCORE, List.of(), null,
                    null),
            new Row("store.pg.execute.16_vs_1", "durable calls/s through the executor on PostgreSQL, 16 callers vs 1"
                    + " (what group commit buys; report)", STORE + "executePostgresSixteenCallers:writers=2",
                    STORE + "executePostgresOneCaller:writers=2", Metric.SCORE, List.of(), null, null),
            new Row("store.pg.execute.16.writers", "durable calls/s through the executor on PostgreSQL, 16 callers,"
                    + " the default 2 writer threads vs 1 (the single group-commit writer before; report)",
                    STORE + "executePostgresSixteenCallers:writers=2", STORE + "executePostgresSixteenCallers:writers=1",
                    Metric.SCORE, List.of(), null, null),
            new Row("store.sqlite.execute.16_vs_1", "durable calls/s through the executor on SQLite, 16 callers vs 1"
                    + " (report)", STORE + "executeSqliteSixteenCallers", STORE + "executeSqliteOneCaller", Metric.SCORE,
                    List.of(), null, null),
            new Row("store.query.invocation", "every call of an invocation on 10M records, PostgreSQL vs SQLite",
                    "StoreQueryBenchmark.postgresByInvocation", "StoreQueryBenchmark.sqliteByInvocation", Metric.SCORE,
                    List.of(new AtMost(10_000, "us/op")), null,
                    "an index range scan of 10 rows scattered over the table: page reads from a disk shared with"
                            + " other sessions, and a connection per read"),
            new Row("store.query.tool_status_hour", "the newest 100 failed calls of a tool in the last hour on 10M"
                    + " records, PostgreSQL vs SQLite", "StoreQueryBenchmark.postgresToolStatusLastHour",
                    "StoreQueryBenchmark.sqliteToolStatusLastHour", Metric.SCORE, List.of(new AtMost(10_000, "us/op")),
                    null, "a range scan of toolyard_call_by_tool_status_start (about 70 rows) and a sort of them by seq"),
            new Row("allocation.langchain4j", "bytes per execute (CALLER_THREAD) vs LangChain4j",
                    CALLER + "toolyard", CALLER + "langchain4j", Metric.ALLOCATION,
                    List.of(new AtMost(4096, "B/op")), null,
                    "the parse 1,040 B, the digest text 336 B and the call id 112 B per call (open item 1)"),
            new Row("allocation.springai", "bytes per execute (CALLER_THREAD) vs Spring AI",
                    CALLER + "toolyard", CALLER + "springAi", Metric.ALLOCATION,
                    List.of(new AtMost(4096, "B/op")), null,
                    "the parse 1,040 B, the digest text 336 B and the call id 112 B per call (open item 1)"),
            new Row("allocation.caps", "bytes per execute with 16 MiB caps vs the default caps (flat in the caps)",
                    "SizeCapsAllocationBenchmark.execute:caps=16MiB", "SizeCapsAllocationBenchmark.execute:caps=default",
                    Metric.ALLOCATION, List.of(new OverheadAtMost(64, "B/op")), null,
                    "something on the path sizes a buffer by a cap instead of by the data"),
            new Row("observer.otel_noop", "execute with the OpenTelemetry observer on OpenTelemetry.noop() vs no observer"
                    + " (CALLER_THREAD; report)", OBSERVER + "otelNoop", OBSERVER + "noObserver", Metric.SCORE,
                    List.of(), null, null),
            new Row("observer.otel_sdk", "execute with the OpenTelemetry observer on the SDK, in-memory exporter, vs no"
                    + " observer (CALLER_THREAD; report)", OBSERVER + "otelSdk", OBSERVER + "noObserver", Metric.SCORE,
                    List.of(), null, null),
            new Row("observer.otel_sdk.allocation", "bytes per execute with the OpenTelemetry observer on the SDK vs no"
                    + " observer (report)", OBSERVER + "otelSdk", OBSERVER + "noObserver", Metric.ALLOCATION,
                    List.of(), null, null));
}
