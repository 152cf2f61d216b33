package dev.toolyard;

import dev.toolyard.spi.ToolCallStart;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.spi.PathDecision;
import static dev.toolyard.Fixtures.context;
import static dev.toolyard.Fixtures.echo;
import static dev.toolyard.Fixtures.executor;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.spi.Text;
import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.PolicyQuery;
import dev.toolyard.spi.PolicyDecision;
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
import dev.toolyard.spi.ApprovalDecision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
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
        assertThat(record.reason()).isEqualTo(result.reason());
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

    @Test
    void aFailureKeepsItsRawOutputInTheRecordUpToTheContentCapAndTheModelSeesOnlyTheReason() {
        String raw = "{\"count\":\"two\"} " + "é".repeat(2_000); // 4,017 bytes: over the summary cap
        String longer = "x".repeat(3_000) + "é".repeat(1_000); // 5,000 bytes: over the content cap
        registry.register(spec("strict").build(), (args, c) -> ToolOutput.failedWithRecordedOutput(
                Reason.HANDLER_ERROR, "$.count: fails \"type\"", args.string("text").equals("long") ? longer : raw));
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("strict"))
                .store(store).maxContentBytes(4_096).maxSummaryBytes(256).build();
        ToolResult r = call(executor, "strict", "{\"text\":\"a\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.content()).isEqualTo("Tool 'strict' - handler_error: $.count: fails \"type\"")
                .doesNotContain("two");
        ToolCallRecord kept = store.records().get(store.records().size() - 1);
        assertThat(kept.summary()).isEqualTo(raw); // whole: the content cap, not the summary cap, applies
        r = call(executor, "strict", "{\"text\":\"long\"}");
        assertThat(r.content()).doesNotContain("xxx");
        kept = store.records().get(store.records().size() - 1);
        assertThat(Text.utf8Length(kept.summary())).isLessThanOrEqualTo(4_096);
        assertThat(kept.summary()).startsWith("xxx").endsWith("[truncated: showing at most 4096 of 5000 bytes]");
        assertThatThrownBy(() -> ToolOutput.failedWithRecordedOutput(Reason.TOO_LARGE, "d", "raw"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // --- the ladder ---------------------------------------------------------------------------------

    @Test
    void aCallFailingEveryCheckWalksDownEveryOutcomeOneRungAtATime() throws Exception {
        ToolSpec runner = ToolSpec.builder("runner").description("runs").argsSchema(pathSchema())
                .riskClass(RiskClass.EXECUTE).egress(EgressClass.ALLOWLISTED).requiresIsolation(true)
                .pathArg("path", PathAccess.READ).build();
        String bad = "{\"path\":\"../escape\",\"extra\":true}";
        String good = "{\"path\":\"../escape\"}";
        ToolContext narrow = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("other")).build();
        ToolContext spent = ToolContext.builder("inv-spent", SandboxPaths.of(root)).callBudget(1).build();
        ToolContext approved = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("runner")).build();
        ToolContext egress = ToolContext.builder("inv", SandboxPaths.of(root)).approvedTools(Set.of("runner"))
                .egressCeiling(EgressClass.ALLOWLISTED).build();
        Sandbox isolated = new IsolatedContainment();

        ToolRegistry empty = new ToolRegistry();
        empty.register(spec("other").build(), echo());
        List<Reason> walked = new ArrayList<>();
        ToolExecutor oneCallRounds = ToolExecutor.builder(empty, new PathContainment()).allowlist(Set.of("other"))
                .store(store).maxCallsPerRound(1).build();
        List<ToolResult> round = oneCallRounds.executeRound(List.of(ToolCallRequest.of("other", "{\"text\":\"a\"}"),
                ToolCallRequest.of("runner", bad)), narrow);
        walked.add(round.get(1).reason().get());
        walked.add(call(executor(empty, store, "other"), ToolCallRequest.of("runner", bad), narrow).reason().get());
        ToolRegistry withRunner = new ToolRegistry();
        withRunner.register(spec("other").build(), echo());
        withRunner.register(runner, (args, c) -> ToolOutput.of("ran"));
        ToolExecutor notAllowing = executor(withRunner, store, "other");
        assertThat(call(notAllowing, ToolCallRequest.of("other", "{\"text\":\"a\"}"), spent).isOk()).isTrue();
        walked.add(call(notAllowing, ToolCallRequest.of("runner", bad), spent).reason().get());
        walked.add(call(notAllowing, ToolCallRequest.of("runner", bad), narrow).reason().get());
        ToolExecutor allowing = executor(withRunner, store, "other", "runner");
        walked.add(call(allowing, ToolCallRequest.of("runner", bad), narrow).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", bad), approved).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", good), approved).reason().get());
        walked.add(call(allowing, ToolCallRequest.of("runner", good), egress).reason().get());
        Reason policyDenied = Reason.declare("policy_denied", ToolStatus.REFUSED);
        ToolExecutor withTier = ToolExecutor.builder(withRunner, isolated).allowlist(Set.of("runner")).store(store)
                .policyGate(q -> q.arguments().toString().contains("secret")
                        ? PolicyDecision.refuse(policyDenied, "no secrets") : PolicyDecision.allow())
                .requireApprovalFrom(RiskClass.EXECUTE)
                .approvalGate(r -> CompletableFuture.completedFuture(r.argumentsJson().contains("notes.md")
                        ? ApprovalDecision.approve("reviewer-1") : ApprovalDecision.deny("reviewer-1", "not that")))
                .build();
        walked.add(call(withTier, ToolCallRequest.of("runner", good), egress).reason().get());
        // the approval gate would deny this one too: the policy gate answers first
        walked.add(call(withTier, ToolCallRequest.of("runner", "{\"path\":\"secret.txt\"}"), egress).reason().get());
        walked.add(call(withTier, ToolCallRequest.of("runner", "{\"path\":\"notes.txt\"}"), egress).reason().get());
        assertThat(walked).containsExactly(Reason.ROUND_LIMIT, Reason.UNKNOWN_TOOL, Reason.BUDGET_EXHAUSTED,
                Reason.NOT_ALLOWLISTED, Reason.NOT_APPROVED, Reason.ARGS_INVALID, Reason.EGRESS_NOT_PERMITTED,
                Reason.ISOLATION_UNAVAILABLE, Reason.PATH_ESCAPE, policyDenied, Reason.APPROVAL_DENIED);
        ToolResult fine = call(withTier, ToolCallRequest.of("runner", "{\"path\":\"notes.md\"}"), egress);
        assertThat(fine.isOk()).isTrue();
        assertThat(store.records().get(store.records().size() - 1).approver()).isEqualTo("reviewer-1");
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
        assertThat(store.records().get(1).reason()).contains(Reason.ARGS_INVALID);
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
        assertThat(event.isolationTier()).isEqualTo(IsolationTier.IN_PROCESS);
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
                .containsExactly(IsolationTier.BWRAP, IsolationTier.BWRAP, IsolationTier.IN_PROCESS, IsolationTier.IN_PROCESS);
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

    @Test
    void theContextsAgentNameIsRecordedOnRefusalsAndOnCallsThatRan() {
        ToolExecutor executor = executor(registry, store, "echo");
        ToolContext named = ToolContext.builder("inv-agent", ctx.workspace()).agent("triage-bot").build();

        call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}"), named);
        call(executor, ToolCallRequest.of("nope", "{}"), named);
        call(executor, ToolCallRequest.of("echo", "{\"text\":\"a\"}"), ctx);

        assertThat(store.records()).extracting(ToolCallRecord::agent).containsExactly("triage-bot", "triage-bot", "");
        assertThat(named.agent()).contains("triage-bot");
        assertThat(ctx.agent()).isEmpty();
    }

    @Test
    void anAgentNameOfTheWrongFormFailsAtBuildNamingTheParameter() {
        ToolContext.Builder b = ToolContext.builder("inv", ctx.workspace());
        assertThatThrownBy(() -> b.agent("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agent");
        assertThatThrownBy(() -> b.agent("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.agent("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
    }

    // --- the application's policy gate ------------------------------------------------------------

    private ToolExecutor gated(PolicyGate gate, String... allowlisted) {
        return ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of(allowlisted)).store(store)
                .policyGate(gate).build();
    }

    @Test
    void aGatesRefusalIsRecordedWithItsReasonAndTheHandlerNeverRuns() {
        AtomicInteger ran = new AtomicInteger();
        registry.register(spec("counted").build(), (args, c) -> {
            ran.incrementAndGet();
            return ToolOutput.of("ran");
        });
        Reason denied = Reason.declare("policy_denied", ToolStatus.REFUSED);
        ToolExecutor executor = gated(q -> PolicyDecision.refuse(denied, "rule counted: argument text"), "counted");

        ToolResult r = call(executor, "counted", "{\"text\":\"a\"}");

        assertRefused(r, denied);
        assertThat(r.reasonDetail()).isEqualTo("rule counted: argument text");
        assertThat(ran).hasValue(0);
    }

    @Test
    void aShadowVerdictLetsTheCallRunAndTheRecordKeepsWhatWouldHaveBeenRefused() {
        ToolExecutor executor = gated(q -> PolicyDecision.allowAndRecord("would deny: argument text"), "echo");

        ToolResult r = call(executor, "echo", "{\"text\":\"a\"}");

        assertThat(r.status()).isEqualTo(ToolStatus.OK);
        assertThat(store.records().get(0).shadowDenial()).isEqualTo("would deny: argument text");
        assertThat(call(gated(q -> PolicyDecision.allow(), "echo"), "echo", "{\"text\":\"a\"}").status())
                .isEqualTo(ToolStatus.OK);
        assertThat(store.records().get(1).shadowDenialOptional()).isEmpty();
    }

    @Test
    void aGateThatThrowsOrGivesNoVerdictRefusesTheCallInsteadOfLettingItThrough() {
        ToolResult thrown = call(gated(q -> {
            throw new IllegalStateException("bug");
        }, "echo"), "echo", "{\"text\":\"a\"}");
        ToolResult none = call(gated(q -> null, "echo"), "echo", "{\"text\":\"a\"}");

        assertThat(thrown.reason()).map(Reason::wireName).contains("policy_error");
        assertThat(thrown.reasonDetail()).contains("IllegalStateException");
        assertThat(none.reason()).map(Reason::wireName).contains("policy_error");
    }

    @Test
    void theGateRunsAfterContainmentAndSeesTheAgentAndTheResolvedPath() throws Exception {
        Files.createDirectories(root.resolve("sub"));
        registry.register(reader(), (args, c) -> ToolOutput.of("read"));
        List<PolicyQuery> asked = new ArrayList<>();
        ToolExecutor executor = gated(q -> {
            asked.add(q);
            return PolicyDecision.allow();
        }, "reader");
        ToolContext named = ToolContext.builder("inv-g", ctx.workspace()).agent("docs-bot").build();

        call(executor, ToolCallRequest.of("reader", "{\"path\":\"../outside\"}"), named);
        assertThat(store.records().get(0).reason()).contains(Reason.PATH_ESCAPE);
        assertThat(asked).as("a call containment refuses never reaches the gate").isEmpty();

        call(executor, ToolCallRequest.of("reader", "{\"path\":\"sub/../notes.md\"}"), named);
        assertThat(asked).hasSize(1);
        PolicyQuery q = asked.get(0);
        assertThat(q.agent()).isEqualTo("docs-bot");
        assertThat(q.spec().name()).isEqualTo("reader");
        assertThat(q.paths().get("path")).isEqualTo(root.toRealPath().resolve("notes.md"));
        assertThat(q.arguments().get("path").stringValue()).isEqualTo(root.toRealPath().resolve("notes.md").toString());
    }

    // --- bounded under load, cheap by default, close ----------------------------------------------

    /** A handler that ignores interruption until released: what a hostile or broken tool looks like. */
    private static ToolHandler stubborn(CountDownLatch release, AtomicInteger started, AtomicInteger returned) {
        return (args, c) -> {
            started.incrementAndGet();
            while (true) {
                try {
                    if (release.await(10, TimeUnit.MILLISECONDS)) {
                        break;
                    }
                } catch (InterruptedException ignored) {
                    // deliberately ignored
                }
            }
            returned.incrementAndGet();
            return ToolOutput.of("late");
        };
    }

    /** Makes daemon threads and remembers them, so a test can count the live ones. */
    private static final class CountingThreads implements java.util.concurrent.ThreadFactory {
        final List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "flood-worker-" + made.size());
            t.setDaemon(true);
            made.add(t);
            return t;
        }

        long alive() {
            return made.stream().filter(Thread::isAlive).count();
        }
    }

    @Nested
    class UnderLoad {
        @Test
        void aFloodOfCallsToAHandlerThatIgnoresInterruptionIsBoundedRefusedAndRecovers() throws Exception {
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger started = new AtomicInteger();
            AtomicInteger returned = new AtomicInteger();
            registry.register(spec("stubborn").build(), stubborn(release, started, returned));
            CountingThreads threads = new CountingThreads();
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("stubborn", "echo")).store(store).workerThreads(threads).build();
            ToolContext quick = ToolContext.builder("flood", SandboxPaths.of(root)).timeout(Duration.ofMillis(20)).build();
            ToolCallRequest request = ToolCallRequest.of("stubborn", "{\"text\":\"a\"}");

            ExecutorService callers = Executors.newFixedThreadPool(4);
            List<Future<ToolResult>> results = new ArrayList<>();
            long peak = 0;
            try {
                for (int i = 0; i < 3_000; i++) {
                    results.add(callers.submit(() -> executor.execute(request, quick)));
                }
                Map<String, Integer> outcomes = new LinkedHashMap<>();
                for (Future<ToolResult> f : results) {
                    ToolResult r = f.get();
                    outcomes.merge(r.reason().map(Reason::wireName).orElse("ok"), 1, Integer::sum);
                    peak = Math.max(peak, threads.alive());
                }

                // A call whose deadline passed before a new worker even started its handler times out too, and
                // its slot comes back at once; so a few more than 64 may time out, but never more than 64 run.
                assertThat(outcomes.keySet()).as("every call timed out or was refused").containsOnly("timeout", "tool_saturated");
                assertThat(outcomes.get("timeout") + outcomes.get("tool_saturated")).isEqualTo(3_000);
                assertThat(outcomes.get("tool_saturated")).isGreaterThan(2_500);
                assertThat(started.get()).as("handlers that ran and were abandoned").isBetween(1, 64);
                assertThat(peak).as("live worker threads during the flood").isLessThanOrEqualTo(64);
                assertThat(threads.made.size()).as("threads ever made").isLessThanOrEqualTo(64);
                assertThat(store.byToolAndStatus("stubborn", ToolStatus.REFUSED)).hasSize(outcomes.get("tool_saturated"))
                        .allMatch(r -> r.reason().orElse(null) == Reason.TOOL_SATURATED);
                ToolResult healthy = executor.execute(ToolCallRequest.of("echo", "{\"text\":\"still here\"}"), quick);
                assertThat(healthy.content()).as("another tool keeps working meanwhile").isEqualTo("still here");

                release.countDown(); // the abandoned handlers return and give their slots back
                ToolResult after = null;
                for (int attempt = 0; attempt < 500; attempt++) {
                    after = executor.execute(request, quick);
                    if (after.reason().orElse(null) != Reason.TOOL_SATURATED) {
                        break;
                    }
                    Thread.sleep(10);
                }
                assertThat(after.status()).as("the tool is accepted again once its handlers returned")
                        .isEqualTo(ToolStatus.OK);
                for (int i = 0; i < 500 && returned.get() < started.get(); i++) {
                    Thread.sleep(10);
                }
                assertThat(returned.get()).as("every abandoned handler returned").isEqualTo(started.get());
            } finally {
                release.countDown();
                callers.shutdownNow();
                executor.close();
            }
        }

        @Test
        void theExecutorWideBoundRefusesAnyToolOnceReachedAndNamesWhichBound() {
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger started = new AtomicInteger();
            AtomicInteger returned = new AtomicInteger();
            registry.register(spec("slow_a").build(), stubborn(release, started, returned));
            registry.register(spec("slow_b").build(), stubborn(release, started, returned));
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("slow_a", "slow_b")).store(store).maxHandlersPerTool(2).maxHandlers(3).build();
            ToolContext quick = ToolContext.builder("bounds", SandboxPaths.of(root)).timeout(Duration.ofMillis(20)).build();
            try {
                List<Reason> a = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    a.add(call(executor, ToolCallRequest.of("slow_a", "{\"text\":\"a\"}"), quick).reason().get());
                }
                ToolResult b1 = call(executor, ToolCallRequest.of("slow_b", "{\"text\":\"a\"}"), quick);
                ToolResult b2 = call(executor, ToolCallRequest.of("slow_b", "{\"text\":\"a\"}"), quick);

                assertThat(a).containsExactly(Reason.TIMEOUT, Reason.TIMEOUT, Reason.TOOL_SATURATED);
                assertThat(store.records().get(2).reasonDetail()).contains("the tool already has 2");
                assertThat(b1.reason()).contains(Reason.TIMEOUT);
                assertRefused(b2, Reason.TOOL_SATURATED);
                assertThat(b2.reasonDetail()).contains("the executor already has 3");
            } finally {
                release.countDown();
                executor.close();
            }
        }

        @Test
        void boundsAreValidatedAtBuildNamingTheParameter() {
            ToolExecutor.Builder b = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of()).store(store);
            assertThatThrownBy(() -> b.maxHandlersPerTool(0)).hasMessageContaining("maxHandlersPerTool");
            assertThatThrownBy(() -> b.maxHandlers(-1)).hasMessageContaining("maxHandlers");
            assertThatThrownBy(() -> b.maxHandlers(8).maxHandlersPerTool(9).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxHandlersPerTool")
                    .hasMessageContaining("maxHandlers (8)");
        }

        @Test
        void sequentialCallsAtAToolsBoundNeverFindTheirOwnSlotStillHeldRegressionForSpuriousSaturation() {
            // A worker used to publish the result before giving its slot back, so the caller's next call
            // could find the slot still held and be refused tool_saturated with nothing else running.
            registry.register(spec("single").build(), echo());
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("single"))
                    .store(store).handlerMode(HandlerMode.HANDOFF).maxHandlersPerTool(1).maxHandlers(1).build();
            for (int i = 0; i < 3_000; i++) {
                ToolResult r = executor.execute(ToolCallRequest.of("single", "{\"text\":\"a\"}"), ctx);
                assertThat(r.isOk()).as("call %d: %s", i, r.reasonDetail()).isTrue();
            }
        }

        @Test
        void aMarkTheStoreRefusesGivesTheSlotBack() {
            registry.register(spec("once").build(), echo());
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("once"))
                    .store(new BrokenStore(false, true)).maxHandlersPerTool(1).build();
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("once", "{\"text\":\"a\"}"), ctx))
                        .as("a store failure every time, never tool_saturated").isInstanceOf(StoreFailureException.class);
            }
        }

        @Test
        void aCooperativeToolRunsOnTheCallersThreadByDefaultAndAnApplicationToolIsHandedOff() {
            Thread caller = Thread.currentThread();
            ToolHandler where = (args, c) -> ToolOutput.of(String.valueOf(Thread.currentThread() == caller));
            registry.register(spec("coop").cooperative(true).build(), where);
            registry.register(spec("app").build(), where);
            ToolExecutor byTool = executor(registry, store, "coop", "app");
            ToolExecutor handoff = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("coop"))
                    .store(store).handlerMode(HandlerMode.HANDOFF).build();

            assertThat(call(byTool, "coop", "{\"text\":\"a\"}").content()).isEqualTo("true");
            assertThat(call(byTool, "app", "{\"text\":\"a\"}").content()).isEqualTo("false");
            assertThat(call(handoff, "coop", "{\"text\":\"a\"}").content()).as("an explicit mode wins").isEqualTo("false");
        }

        @Test
        void aCooperativeHandlerThatOverrunsStillTimesOut() {
            registry.register(spec("overrun").cooperative(true).build(), (args, c) -> {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                while (System.nanoTime() < end) {
                    Thread.onSpinWait(); // busy, never looks at its interrupt flag
                }
                return ToolOutput.of("late output that must not be seen");
            });
            ToolContext quick = ToolContext.builder("inv", SandboxPaths.of(root)).timeout(Duration.ofMillis(50)).build();

            ToolResult r = call(executor(registry, store, "overrun"), ToolCallRequest.of("overrun", "{\"text\":\"a\"}"), quick);

            assertThat(r.status()).isEqualTo(ToolStatus.TIMEOUT);
            assertThat(r.reasonDetail()).matches("ran \\d+ ms against a limit of 50 ms");
            assertThat(r.content()).doesNotContain("late output");
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }

        @Test
        void closeStopsAcceptingCallsAndEndsTheWorkers() throws Exception {
            CountingThreads threads = new CountingThreads();
            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch running = new CountDownLatch(1);
            registry.register(spec("waits").build(), (args, c) -> {
                running.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                return ToolOutput.of("stopped");
            });
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(Set.of("echo", "waits"))
                    .store(store).workerThreads(threads).build();
            call(executor, "echo", "{\"text\":\"a\"}");
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                Future<ToolResult> waiting = caller.submit(() -> executor.execute(
                        ToolCallRequest.of("waits", "{\"text\":\"a\"}"), ctx));
                assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

                executor.close();
                executor.close(); // idempotent

                assertThat(waiting.get(10, TimeUnit.SECONDS).content()).isEqualTo("stopped");
                assertThat(interrupted).as("a busy worker is interrupted").isTrue();
                assertThatThrownBy(() -> executor.execute(ToolCallRequest.of("echo", "{\"text\":\"a\"}"), ctx))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
                for (int i = 0; i < 500 && threads.alive() > 0; i++) {
                    Thread.sleep(10);
                }
                assertThat(threads.alive()).as("every worker ended").isZero();
            } finally {
                caller.shutdownNow();
            }
        }
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
