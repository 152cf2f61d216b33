package dev.toolyard;

import static dev.toolyard.Fixtures.context;
import static dev.toolyard.Fixtures.echo;
import static dev.toolyard.Fixtures.executor;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.internal.Text;
import dev.toolyard.spi.Sandbox;
import dev.toolyard.spi.ToolCallEvent;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30) // a hang guard only: no test here asserts wall-clock speed
class ToolExecutorTest {
    @TempDir
    Path root;

    ToolRegistry registry;
    InMemoryToolCallStore store;
    ToolContext ctx;

    @BeforeEach
    void setUp() throws Exception {
        registry = new ToolRegistry();
        store = new InMemoryToolCallStore();
        ctx = context(root);
        registry.register(spec("echo").build(), echo());
        Files.writeString(root.resolve("notes.md"), "hello");
    }

    /** Runs the call, checks nothing was thrown, and that the single new record matches the result. */
    private ToolResult call(ToolExecutor executor, ToolCallRequest request, ToolContext context) {
        int before = store.records().size();
        ToolResult[] holder = new ToolResult[1];
        assertThatCode(() -> holder[0] = executor.execute(request, context)).doesNotThrowAnyException();
        ToolResult result = holder[0];
        List<ToolCallRecord> records = store.records();
        assertThat(records).hasSize(before + 1);
        ToolCallRecord record = records.get(records.size() - 1);
        assertThat(record.callId()).isEqualTo(result.callId());
        assertThat(record.status()).isEqualTo(result.status());
        assertThat(record.reasonOptional()).isEqualTo(result.reason());
        assertThat(record.reasonDetail()).isEqualTo(result.reasonDetail());
        assertThat(record.invocationId()).isEqualTo(context.invocationId());
        assertThat(record.argumentsSha256()).hasSize(64);
        return result;
    }

    private ToolResult call(ToolExecutor executor, String name, String args) {
        return call(executor, ToolCallRequest.of(name, args), ctx);
    }

    private static void assertRefused(ToolResult r, Reason reason) {
        assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(r.reason()).contains(reason);
        assertThat(r.content()).contains(reason.wireName());
    }

    // --- the reason table, one executor-owned reason at a time -------------------------------------

    @Test
    void aSuccessfulCallReturnsTheHandlersContentAndIsRecorded() {
        ToolResult r = call(executor(registry, store, "echo"), "echo", "{\"text\":\"hi\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(r.content()).isEqualTo("hi");
        assertThat(r.reason()).isEmpty();
        assertThat(store.records().get(0).summary()).isEqualTo("hi");
        assertThat(store.records().get(0).arguments()).isEqualTo("{\"text\":\"hi\"}");
        assertThat(store.records().get(0).argumentsSha256()).isEqualTo(Text.sha256("{\"text\":\"hi\"}"));
    }

    @Test
    void unknownToolIsRefusedBeforeAnythingElse() {
        ToolResult r = call(executor(registry, store, "echo"), "rm_rf", "not even json");
        assertRefused(r, Reason.UNKNOWN_TOOL);
        assertThat(r.content()).isEqualTo("Tool 'rm_rf' - unknown_tool: no tool of that name is registered");
    }

    @Test
    void aToolOutsideTheAllowlistIsRefusedAndTheRefusalDoesNotRevealTheAllowlist() {
        registry.register(spec("secret_tool").build(), echo());
        ToolResult r = call(executor(registry, store, "secret_tool"), "echo", "{\"text\":\"hi\"}");
        assertRefused(r, Reason.NOT_ALLOWLISTED);
        assertThat(r.content() + r.reasonDetail()).doesNotContain("secret_tool");
    }

    @Test
    void notAllowlistedIsReportedBeforeNotApprovedAndApprovalCanOnlyNarrow() {
        registry.register(spec("other").build(), echo());
        ToolExecutor executor = executor(registry, store, "other");
        ToolContext approvesEcho = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("echo")).build();
        assertRefused(call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}"), approvesEcho), Reason.NOT_ALLOWLISTED);
        ToolContext approvesNothing = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of()).build();
        assertRefused(call(executor, ToolCallRequest.of("other", "{\"text\":\"a\"}"), approvesNothing), Reason.NOT_APPROVED);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"text\":5}", "{}", "{\"text\":\"a\",\"extra\":1}", "not json", "", "   ", "[]", "\"text\"", "null", "42",
        "{\"text\":\"a\"} trailing", "{\"text\":\"a\",\"text\":\"b\"}", "{\"text\":\"a\"", "{'text':'a'}",
        "{\"text\":NaN}", "{\"text\":\"\\ud800\"", "{\"text\":\"a\"}{\"text\":\"b\"}"
    })
    void argumentsThatAreNotAValidObjectForTheSchemaAreRefused(String arguments) {
        ToolResult r = call(executor(registry, store, "echo"), "echo", arguments);
        assertRefused(r, Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).isNotEmpty();
    }

    @Test
    void validationDetailNamesTheFailingPath() {
        ToolResult r = call(executor(registry, store, "echo"), "echo", "{\"text\":\"" + "x".repeat(101) + "\"}");
        assertRefused(r, Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).as(r.reasonDetail()).contains("$.text");
    }

    @Test
    void argumentsNestedDeeperThanTheParserAllowsAreRefusedNotThrown() {
        String deep = "{\"text\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        ToolResult r = call(executor(registry, store, "echo"), "echo", deep);
        assertRefused(r, Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).containsIgnoringCase("nesting");
    }

    @Test
    void aPatternThatBacktracksCatastrophicallyOnModelInputIsBoundedAndRefused() {
        registry.register(ToolSpec.builder("redos").description("d").riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE).argsSchema("""
                    {"type":"object","additionalProperties":false,
                     "properties":{"s":{"type":"string","pattern":"^(a+)+$"}},
                     "patternProperties":{"^(b+)+$":{"type":"string"}}}""").build(), echo());
        ToolExecutor executor = executor(registry, store, "redos");
        // Unbounded, either of these takes longer than the age of the universe.
        ToolResult value = call(executor, "redos", "{\"s\":\"" + "a".repeat(5_000) + "!\"}");
        assertRefused(value, Reason.ARGS_INVALID);
        ToolResult name = call(executor, "redos", "{\"" + "b".repeat(5_000) + "!\":\"x\"}");
        assertRefused(name, Reason.ARGS_INVALID);
        assertThat(call(executor, "redos", "{\"s\":\"aaaa\"}").reason()).isNotEqualTo(java.util.Optional.of(Reason.ARGS_INVALID));
    }

    @Test
    void oversizedArgumentsAreRefusedAndRecordedAsSizeAndDigestOnly() {
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                .allowlist(Set.of("echo")).store(store).maxArgumentBytes(20_000).build();
        String big = "{\"text\":\"" + "x".repeat(30_000) + "\"}";
        ToolResult r = call(executor, "echo", big);
        assertRefused(r, Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).contains("over the limit");
        ToolCallRecord rec = store.records().get(0);
        assertThat(rec.arguments()).isEqualTo("{\"omitted\":true,\"bytes\":" + big.length() + "}");
        assertThat(rec.argumentsSha256()).isEqualTo(Text.sha256(big));
    }

    @Test
    void mapArgumentsAreCheckedLikeJsonAndNonJsonValuesAreRefused() {
        ToolExecutor executor = executor(registry, store, "echo");
        assertThat(call(executor, ToolCallRequest.of("echo", Map.of("text", "hi")), ctx).content()).isEqualTo("hi");
        assertRefused(call(executor, ToolCallRequest.of("echo", Map.of("text", new Object())), ctx), Reason.ARGS_INVALID);
        Map<String, Object> cyclic = new LinkedHashMap<>();
        cyclic.put("text", cyclic);
        assertRefused(call(executor, ToolCallRequest.of("echo", cyclic), ctx), Reason.ARGS_INVALID);
    }

    @Test
    void aToolAboveTheEgressCeilingIsRefused() {
        registry.register(spec("fetchy").egress(EgressClass.ALLOWLISTED).build(), echo());
        ToolExecutor executor = executor(registry, store, "fetchy");
        assertRefused(call(executor, "fetchy", "{\"text\":\"a\"}"), Reason.EGRESS_NOT_PERMITTED);
        ToolContext allowing = ToolContext.builder("inv", SandboxPaths.of(root)).egressCeiling(EgressClass.ALLOWLISTED).build();
        assertThat(call(executor, ToolCallRequest.of("fetchy", "{\"text\":\"a\"}"), allowing).isOk()).isTrue();
    }

    @Test
    void aToolRequiringIsolationIsRefusedOnAHostWithNoTierBeforeItsPathsAreResolved() {
        registry.register(spec("runner").requiresIsolation(true).argsSchema(pathSchema()).pathArg("path", PathAccess.READ)
                .build(), echo());
        ToolResult r = call(executor(registry, store, "runner"), "runner", "{\"path\":\"../escape\"}");
        assertRefused(r, Reason.ISOLATION_UNAVAILABLE);
    }

    @Test
    void aPathArgumentOutsideTheWorkspaceIsRefusedWithoutRevealingTheRoot() {
        registry.register(reader(), (args, c) -> ToolOutput.of(Files.readString(args.path("path"))));
        ToolExecutor executor = executor(registry, store, "reader");
        ToolResult r = call(executor, "reader", "{\"path\":\"../../etc/passwd\"}");
        assertRefused(r, Reason.PATH_ESCAPE);
        assertThat(r.content() + r.reasonDetail()).doesNotContain(root.toString());
        assertThat(r.reasonDetail()).contains("'path'");
    }

    @Test
    void theHandlerReceivesTheResolvedPathAndNeverTheCandidate() throws Exception {
        Files.createDirectories(root.resolve("sub"));
        List<String> seen = new ArrayList<>();
        registry.register(reader(), (args, c) -> {
            seen.add(args.string("path"));
            seen.add(args.path("path").toString());
            return ToolOutput.of(Files.readString(args.path("path")));
        });
        ToolResult r = call(executor(registry, store, "reader"), "reader", "{\"path\":\"sub/../notes.md\"}");
        assertThat(r.content()).isEqualTo("hello");
        String resolved = root.toRealPath().resolve("notes.md").toString();
        assertThat(seen).containsExactly(resolved, resolved);
        assertThat(store.records().get(0).arguments()).isEqualTo("{\"path\":\"sub/../notes.md\"}");
    }

    @Test
    void aHandlerExceptionBecomesHandlerErrorCarryingTheClassOnly() {
        registry.register(spec("boom").build(), (args, c) -> {
            throw new IllegalStateException("secret token sk-123 in the message");
        });
        ToolResult r = call(executor(registry, store, "boom"), "boom", "{\"text\":\"a\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.reason()).contains(Reason.HANDLER_ERROR);
        assertThat(r.reasonDetail()).isEqualTo("java.lang.IllegalStateException");
        assertThat(r.content() + store.records().get(0).summary()).doesNotContain("sk-123");
    }

    @Test
    void aHandlerErrorSuchAsStackOverflowIsAValueToo() {
        registry.register(spec("deep").build(), (args, c) -> {
            throw new StackOverflowError();
        });
        assertThat(call(executor(registry, store, "deep"), "deep", "{\"text\":\"a\"}").reasonDetail())
                .isEqualTo("java.lang.StackOverflowError");
    }

    @Test
    void aHandlerReturningNullFails() {
        registry.register(spec("nothing").build(), (args, c) -> null);
        ToolResult r = call(executor(registry, store, "nothing"), "nothing", "{\"text\":\"a\"}");
        assertThat(r.reason()).contains(Reason.HANDLER_ERROR);
    }

    @Test
    void aHandlerMayRefuseOrFailWithAReasonOfItsOwn() {
        registry.register(spec("picky").build(), (args, c) -> args.string("text").equals("big")
                ? ToolOutput.refused(Reason.TOO_LARGE, "over the cap")
                : ToolOutput.failed(Reason.FILE_NOT_FOUND, "no such file"));
        ToolExecutor executor = executor(registry, store, "picky");
        assertRefused(call(executor, "picky", "{\"text\":\"big\"}"), Reason.TOO_LARGE);
        ToolResult failed = call(executor, "picky", "{\"text\":\"x\"}");
        assertThat(failed.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(failed.reason()).contains(Reason.FILE_NOT_FOUND);
    }

    // --- the ladder ---------------------------------------------------------------------------------

    @Test
    void aCallFailingEveryCheckWalksDownTheSevenOutcomesOneRungAtATime() throws Exception {
        ToolSpec runner = ToolSpec.builder("runner").description("runs").argsSchema(pathSchema())
                .riskClass(RiskClass.EXECUTE).egress(EgressClass.ALLOWLISTED).requiresIsolation(true)
                .pathArg("path", PathAccess.READ).build();
        String bad = "{\"path\":\"../escape\",\"extra\":true}";
        String good = "{\"path\":\"../escape\"}";
        ToolContext narrow = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("other")).build();
        ToolContext approved = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("runner")).build();
        ToolContext egress = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("runner"))
                .egressCeiling(EgressClass.ALLOWLISTED).build();
        Sandbox isolated = new IsolatedContainment();

        ToolRegistry empty = new ToolRegistry();
        empty.register(spec("other").build(), echo());
        List<Reason> walked = new ArrayList<>();
        walked.add(call(executor(empty, store, "other"), ToolCallRequest.of("runner", bad), narrow).reason().get());
        ToolRegistry withRunner = new ToolRegistry();
        withRunner.register(spec("other").build(), echo());
        withRunner.register(runner, (args, c) -> ToolOutput.of("ran"));
        walked.add(call(executor(withRunner, store, "other"), ToolCallRequest.of("runner", bad), narrow).reason().get());
        ToolExecutor allowing = executor(withRunner, store, "other", "runner");
        walked.add(call(allowing, ToolCallRequest.of("runner", bad), narrow).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", bad), approved).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", good), approved).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", good), egress).reason().get());
        ToolExecutor withTier = ToolExecutor.builder(withRunner, isolated).allowlist(Set.of("runner")).store(store).build();
        walked.add(call(withTier, ToolCallRequest.of("runner", good), egress).reason().get());
        assertThat(walked).containsExactly(Reason.UNKNOWN_TOOL, Reason.NOT_ALLOWLISTED, Reason.NOT_APPROVED,
                Reason.ARGS_INVALID, Reason.EGRESS_NOT_PERMITTED, Reason.ISOLATION_UNAVAILABLE, Reason.PATH_ESCAPE);
        ToolResult fine = call(withTier, ToolCallRequest.of("runner", "{\"path\":\"notes.md\"}"), egress);
        assertThat(fine.isOk()).isTrue();
    }

    @Test
    void theDeclaredSequenceMustHavePositionsZeroToNMinusOne() {
        assertThat(ToolExecutor.order(new int[] {0, 1, 2, 3, 4})).containsExactly(0, 1, 2, 3, 4);
        assertThat(ToolExecutor.order(new int[] {1, 0})).containsExactly(1, 0);
        assertThatThrownBy(() -> ToolExecutor.order(new int[] {0, 2, 3})).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolExecutor.order(new int[] {0, 0, 1})).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolExecutor.order(new int[] {-1, 0})).isInstanceOf(IllegalStateException.class);
        assertThat(ToolExecutor.Rung.values()).extracting(r -> r.position).containsExactly(0, 1, 2, 3, 4);
    }

    // --- deadlines ------------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(HandlerMode.class)
    void aHandlerRunningPastItsDeadlineTimesOutAndItsLateOutputIsDiscarded(HandlerMode mode) {
        registry.register(spec("sleepy").build(), (args, c) -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return ToolOutput.of("late output that must not be seen");
            }
            return ToolOutput.of("never");
        });
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("sleepy"))
                .store(store).handlerMode(mode).build();
        ToolContext quick = ToolContext.builder("inv", SandboxPaths.of(root)).timeout(Duration.ofMillis(200)).build();
        ToolResult r = call(executor, ToolCallRequest.of("sleepy", "{\"text\":\"a\"}"), quick);
        assertThat(r.status()).isEqualTo(ToolStatus.TIMEOUT);
        assertThat(r.reason()).contains(Reason.TIMEOUT);
        assertThat(r.reasonDetail()).matches("ran \\d+ ms against a limit of 200 ms");
        assertThat(r.content()).doesNotContain("late output");
        assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt flag is left clean").isFalse();
    }

    @Test
    void aHandlerThatIgnoresInterruptionDoesNotHoldTheCallerPastItsDeadline() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stillRunning = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        registry.register(spec("stubborn").build(), (args, c) -> {
            stillRunning.set(true);
            while (true) {
                try {
                    if (release.await(10, TimeUnit.MILLISECONDS)) {
                        break;
                    }
                } catch (InterruptedException ignored) {
                    // deliberately ignored: this handler does not cooperate
                }
            }
            finished.set(true);
            return ToolOutput.of("late");
        });
        ToolExecutor executor = executor(registry, store, "stubborn");
        ToolContext quick = ToolContext.builder("inv", SandboxPaths.of(root)).timeout(Duration.ofMillis(200)).build();
        ToolResult r = call(executor, ToolCallRequest.of("stubborn", "{\"text\":\"a\"}"), quick);
        assertThat(r.status()).isEqualTo(ToolStatus.TIMEOUT);
        assertThat(stillRunning).isTrue();
        assertThat(finished).as("the caller was released while the handler still ran").isFalse();
        release.countDown();
        assertThat(store.records().get(0).status()).isEqualTo(ToolStatus.TIMEOUT);
    }

    @Test
    void theDefaultTimeoutIsThirtySecondsNeverNone() {
        assertThat(ToolContext.of("inv", SandboxPaths.of(root)).timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> ToolContext.builder("inv", SandboxPaths.of(root)).timeout(Duration.ZERO))
                .hasMessageContaining("timeout must be positive");
    }

    @Test
    void inCallerThreadModeTheHandlerRunsOnTheCallersThread() {
        Thread caller = Thread.currentThread();
        registry.register(spec("where").build(), (args, c) -> ToolOutput.of(String.valueOf(Thread.currentThread() == caller)));
        ToolExecutor onCaller = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("where"))
                .store(store).handlerMode(HandlerMode.CALLER_THREAD).build();
        assertThat(call(onCaller, "where", "{\"text\":\"a\"}").content()).isEqualTo("true");
        assertThat(call(executor(registry, store, "where"), "where", "{\"text\":\"a\"}").content()).isEqualTo("false");
    }

    // --- caps and records ------------------------------------------------------------------------------

    @Test
    void contentOverTheCapIsCutOnACharacterBoundaryWithALabelStatingBothSizes() {
        String big = "é".repeat(10_000) + "😀".repeat(10_000); // 20,000 + 40,000 bytes
        registry.register(spec("big").build(), (args, c) -> ToolOutput.of(big));
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("big"))
                .store(store).maxContentBytes(1_000).maxSummaryBytes(300).build();
        ToolResult r = call(executor, "big", "{\"text\":\"a\"}");
        assertThat(r.truncated()).isTrue();
        assertThat(Text.utf8Length(r.content())).isLessThanOrEqualTo(1_000);
        assertThat(r.content()).endsWith("[truncated: showing at most 1000 of 60000 bytes]");
        assertThat(r.content()).doesNotContain("\uFFFD");
        ToolCallRecord rec = store.records().get(0);
        assertThat(Text.utf8Length(rec.summary())).isLessThanOrEqualTo(300);
        assertThat(rec.summary()).endsWith("of 60000 bytes]");
    }

    @Test
    void capsBelowTheFloorFailAtBuildNamingTheParameter() {
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).maxContentBytes(255))
                .hasMessageContaining("maxContentBytes");
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).maxSummaryBytes(10))
                .hasMessageContaining("maxSummaryBytes");
    }

    @Test
    void aMissingAllowlistOrStoreOrAnUnregisteredAllowlistEntryFailsAtBuild() {
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).store(store).build())
                .hasMessageContaining("allowlist");
        assertThatThrownBy(() -> ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of()).build())
                .hasMessageContaining("store");
        assertThatThrownBy(() -> executor(registry, store, "echo", "ehco")).hasMessageContaining("'ehco'");
    }

    @Test
    void redactedArgumentsAreRecordedAsTheirDigestOnly() {
        registry.register(spec("login").redactArgs(true).build(), echo());
        String args = "{\"text\":\"hunter2\"}";
        call(executor(registry, store, "login"), "login", args);
        call(executor(registry, store, "login"), "login", "{\"text\":\"hunter2\",\"x\":1}");
        for (ToolCallRecord rec : store.records()) {
            assertThat(rec.arguments()).isEqualTo("{\"redacted\":true}");
            assertThat(rec.argumentsRedacted()).isTrue();
        }
        assertThat(store.records().get(0).argumentsSha256()).isEqualTo(Text.sha256(args));
        assertThat(store.records().get(1).reasonOptional()).contains(Reason.ARGS_INVALID);
        assertThat(store.records().get(1).reasonDetail()).doesNotContain("hunter2");
    }

    @Test
    void anEnormousToolNameIsClippedInTheResultAndTheRecord() {
        String name = "x".repeat(1_000_000);
        ToolResult r = call(executor(registry, store, "echo"), name, "{}");
        assertRefused(r, Reason.UNKNOWN_TOOL);
        assertThat(r.toolName().length()).isLessThanOrEqualTo(129);
        assertThat(store.records().get(0).toolName().length()).isLessThanOrEqualTo(129);
    }

    @Test
    void aStoreThatCannotAppendMakesExecuteThrowStoreFailure() {
        ToolExecutor executor = executor(registry, new BrokenStore(true, false), "echo");
        assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("ghost", "{}"), ctx))
                .isInstanceOf(StoreFailureException.class).hasMessageContaining("append");
    }

    @Test
    void aStoreThatCannotMarkTheStartStopsTheCallBeforeTheHandlerRuns() {
        AtomicInteger runs = new AtomicInteger();
        registry.register(spec("effect").build(), (args, c) -> {
            runs.incrementAndGet();
            return ToolOutput.of("done");
        });
        ToolExecutor executor = executor(registry, new BrokenStore(false, true), "effect");
        assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("effect", "{\"text\":\"a\"}"), ctx))
                .isInstanceOf(StoreFailureException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aCallStillRunningReadsBackAsInterruptedUntilItCompletes() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        registry.register(spec("slow").build(), (args, c) -> {
            entered.countDown();
            release.await();
            return ToolOutput.of("ok");
        });
        ToolExecutor executor = executor(registry, store, "slow");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<ToolResult> f = pool.submit(() -> executor.execute(ToolCallRequest.of("slow", "{\"text\":\"a\"}"), ctx));
            entered.await();
            assertThat(store.records()).singleElement().extracting(ToolCallRecord::status).isEqualTo(ToolStatus.INTERRUPTED);
            release.countDown();
            assertThat(f.get().isOk()).isTrue();
            assertThat(store.records()).singleElement().extracting(ToolCallRecord::status).isEqualTo(ToolStatus.OK);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentCallsAreAllRecordedExactlyOnce() throws Exception {
        ToolExecutor executor = executor(registry, store, "echo");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<ToolResult>> futures = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String args = i % 2 == 0 ? "{\"text\":\"" + i + "\"}" : "{\"text\":" + i + "}";
                futures.add(pool.submit(() -> executor.execute(ToolCallRequest.of("echo", args), ctx)));
            }
            int ok = 0;
            for (Future<ToolResult> f : futures) {
                ok += f.get().isOk() ? 1 : 0;
            }
            assertThat(ok).isEqualTo(200);
            assertThat(store.records()).hasSize(400);
            assertThat(store.records()).extracting(ToolCallRecord::callId).doesNotHaveDuplicates();
        } finally {
            pool.shutdownNow();
        }
    }

    // --- observers and the framework's call id ------------------------------------------------------

    /** Remembers what it saw, and on which thread. */
    private static final class Watching implements ToolCallObserver {
        final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<ToolCallEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<ToolCallRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onStart(ToolCallEvent call) {
            seen.add("start " + call.toolName());
            events.add(call);
            threads.add(Thread.currentThread());
        }

        @Override
        public void onEnd(ToolCallEvent call, ToolCallRecord record) {
            seen.add("end " + call.toolName() + " " + record.status());
            events.add(call);
            records.add(record);
            threads.add(Thread.currentThread());
        }
    }

    @Test
    void anObserverSeesStartAndEndOnTheCallersThreadWithOneEventAndTheStoredRecord() {
        Watching watching = new Watching();
        List<ToolStatus> storedWhenStarted = new ArrayList<>();
        ToolCallObserver peeking = new ToolCallObserver() {
            @Override
            public void onStart(ToolCallEvent call) {
                storedWhenStarted.add(store.records().get(store.records().size() - 1).status());
            }
        };
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).observer(watching).observer(peeking).build(); // HANDOFF: the handler runs elsewhere

        ToolResult r = call(executor, ToolCallRequest.of("echo", "{\"text\":\"hi\"}").withCallId("call_42"), ctx);

        assertThat(watching.seen).containsExactly("start echo", "end echo OK");
        assertThat(storedWhenStarted).as("onStart runs after the write-ahead mark").containsExactly(ToolStatus.INTERRUPTED);
        assertThat(watching.events.get(0)).isSameAs(watching.events.get(1));
        assertThat(watching.threads).containsOnly(Thread.currentThread());
        assertThat(watching.records).containsExactly(store.records().get(0));
        ToolCallEvent event = watching.events.get(0);
        assertThat(event.callId()).isEqualTo(r.callId());
        assertThat(event.requestCallId()).contains("call_42");
        assertThat(event.spec()).contains(registry.get("echo").spec());
        assertThat(event.invocationId()).isEqualTo(ctx.invocationId());
        assertThat(event.startedAt()).isEqualTo(store.records().get(0).startedAt());
        assertThat(event.isolationTier()).isEqualTo(IsolationTier.NONE);
    }

    @Test
    void aRefusalEndsWithoutAStartAndAnUnknownToolHasNoSpec() {
        Watching watching = new Watching();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).observer(watching).build();

        call(executor, "nope", "{}");
        call(executor, "echo", "{\"text\":5}");

        assertThat(watching.seen).containsExactly("end nope REFUSED", "end echo REFUSED");
        assertThat(watching.events.get(0).spec()).isEmpty();
        assertThat(watching.events.get(0).requestCallId()).isEmpty();
        assertThat(watching.events.get(1).spec()).isPresent();
        assertThat(watching.records).containsExactlyElementsOf(store.records());
    }

    @Test
    void aToolThatRequiresIsolationIsObservedOnTheSandboxesTier() {
        Watching watching = new Watching();
        registry.register(ToolSpec.builder("runner").description("runs").argsSchema(Fixtures.ECHO_SCHEMA)
                .riskClass(RiskClass.EXECUTE).egress(EgressClass.NONE).requiresIsolation(true).build(), echo());
        ToolExecutor executor = ToolExecutor.builder(registry, new IsolatedContainment())
                .allowlist(Set.of("echo", "runner")).store(store).observer(watching).build();

        call(executor, "runner", "{\"text\":\"a\"}");
        call(executor, "echo", "{\"text\":\"a\"}");

        assertThat(watching.events).extracting(ToolCallEvent::isolationTier)
                .containsExactly(IsolationTier.BWRAP, IsolationTier.BWRAP, IsolationTier.NONE, IsolationTier.NONE);
    }

    @Test
    void anObserverThatThrowsChangesNoOutcome() {
        ToolCallObserver broken = new ToolCallObserver() {
            @Override
            public void onStart(ToolCallEvent call) {
                throw new IllegalStateException("observer bug");
            }

            @Override
            public void onEnd(ToolCallEvent call, ToolCallRecord record) {
                throw new StackOverflowError();
            }
        };
        Watching after = new Watching();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(store).observer(broken).observer(after).build();

        assertThat(call(executor, "echo", "{\"text\":\"hi\"}").content()).isEqualTo("hi");
        assertRefused(call(executor, "nope", "{}"), Reason.UNKNOWN_TOOL);
        assertThat(after.seen).as("the next observer still runs").containsExactly("start echo", "end echo OK",
                "end nope REFUSED");
    }

    @Test
    void anObserverSeesTheEndEvenWhenTheStoreCannotKeepTheRecord() {
        Watching watching = new Watching();
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo"))
                .store(new BrokenStore(true, false)).observer(watching).build();

        assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("nope", "{}"), ctx))
                .isInstanceOf(StoreFailureException.class);
        assertThat(watching.seen).containsExactly("end nope REFUSED");
    }

    @Test
    void theFrameworksCallIdIsRecordedCappedAndNoValueOfItMakesExecuteThrow() {
        ToolExecutor executor = executor(registry, store, "echo");
        String hostile = "\u0000\r\n\ud800" + "x".repeat(10_000);

        call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}").withCallId("toolu_01"), ctx);
        call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}").withCallId(hostile), ctx);
        call(executor, ToolCallRequest.of("nope", "{}").withCallId(hostile), ctx);
        call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}").withCallId(null), ctx);

        assertThat(store.records()).extracting(ToolCallRecord::requestCallId)
                .containsExactly("toolu_01", Text.clip(hostile, 128), Text.clip(hostile, 128), "");
        assertThat(store.records().get(1).requestCallId()).as("128 characters and an ellipsis, like the tool name")
                .hasSize(129).endsWith("…");
    }

    private static String pathSchema() {
        return "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
                + "\"required\":[\"path\"],\"additionalProperties\":false}";
    }

    private static ToolSpec reader() {
        return ToolSpec.builder("reader").description("reads").argsSchema(pathSchema()).riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE).pathArg("path", PathAccess.READ).build();
    }

    /** Path containment that claims a tier, so the path rung is reached for a tool requiring isolation. */
    private static final class IsolatedContainment implements Sandbox {
        private final PathContainment paths = new PathContainment();

        @Override
        public PathDecision resolveRead(String candidate, SandboxPaths workspace) {
            return paths.resolveRead(candidate, workspace);
        }

        @Override
        public PathDecision resolveWrite(String candidate, SandboxPaths workspace) {
            return paths.resolveWrite(candidate, workspace);
        }

        @Override
        public IsolationTier isolationTier() {
            return IsolationTier.BWRAP;
        }

        @Override
        public SubprocessResult runIsolated(List<String> argv, SandboxPaths workspace, Duration timeout,
                Map<String, String> env) {
            throw new AssertionError("the ladder test never runs a command");
        }
    }

    private static final class BrokenStore implements ToolCallStore {
        private final boolean appendFails;
        private final boolean markFails;

        BrokenStore(boolean appendFails, boolean markFails) {
            this.appendFails = appendFails;
            this.markFails = markFails;
        }

        @Override
        public void markStarted(ToolCallStart start) {
            if (markFails) {
                throw new IllegalStateException("disk full");
            }
        }

        @Override
        public void complete(ToolCallRecord record) {}

        @Override
        public void append(ToolCallRecord record) {
            if (appendFails) {
                throw new IllegalStateException("database gone");
            }
        }
    }
}
