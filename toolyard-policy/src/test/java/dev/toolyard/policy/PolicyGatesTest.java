package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learned policy as the executor's gate, on the workload's own tools and workspace: what the
 * personas did runs; a call outside the learned envelope (a new path prefix, a new host, a new tool) is
 * refused in ENFORCE and runs, recorded as a would-deny, in SHADOW.
 */
class PolicyGatesTest {
    @TempDir
    Path tmp;

    Workload workload;
    Policy policy;

    @BeforeEach
    void setUp() throws Exception {
        Files.createDirectories(tmp.resolve("ws"));
        workload = new Workload(tmp.resolve("ws"));
        policy = Fixture.synthesizer(Strictness.BALANCED).synthesize(Fixture.calls(tmp), "records");
    }

    @AfterEach
    void tearDown() throws Exception {
        workload.close();
    }

    private List<ToolCallRequest> outsideTheEnvelope() {
        return List.of(
                ToolCallRequest.of("read_file", Map.of("path", "notes/ideas.md")),                  // a new path prefix for docs-writer
                ToolCallRequest.of("http_fetch", Map.of("url", workload.base("mirror.internal") + "/guides/intro")), // a new host
                ToolCallRequest.of("list_dir", Map.of("path", "docs")).withCallId("x"));       // fine for docs-writer: control
    }

    @Test
    void inEnforceACallOutsideTheLearnedEnvelopeIsRefusedNamingTheRuleAndArgumentOnly() {
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        try (ToolExecutor executor = workload.executor(store, PolicyGates.enforce(policy))) {
            ToolContext writer = workload.context("check-1", "docs-writer", Workload.ticking());
            ToolContext researcher = workload.context("check-2", "researcher", Workload.ticking());

            ToolResult newPrefix = executor.execute(outsideTheEnvelope().get(0), writer);
            ToolResult newHost = executor.execute(outsideTheEnvelope().get(1), researcher);
            ToolResult newTool = executor.execute(ToolCallRequest.of("http_fetch", Map.of("url",
                    workload.base("docs.internal") + "/guides/intro")), writer);
            ToolResult inside = executor.execute(outsideTheEnvelope().get(2), writer);
            ToolResult insideFetch = executor.execute(ToolCallRequest.of("http_fetch", Map.of("url",
                    workload.base("docs.internal") + "/guides/a-page-never-fetched")), researcher);

            for (ToolResult r : List.of(newPrefix, newHost, newTool)) {
                assertThat(r.status()).isEqualTo(ToolStatus.REFUSED);
                assertThat(r.reason()).contains(PolicyGates.POLICY_DENIED);
                assertThat(r.reasonDetail()).doesNotContain("drafts", "docs.internal", "api.internal", "/guides", "/v1");
            }
            assertThat(newPrefix.reasonDetail()).isEqualTo("policy rule 'docs-writer/read_file': argument 'path' is not under a"
                    + " path prefix this rule allows");
            assertThat(newHost.reasonDetail()).isEqualTo("policy rule 'researcher/http_fetch': argument 'url' names a host"
                    + " this rule does not allow");
            assertThat(newTool.reasonDetail()).isEqualTo("no policy rule allows tool 'http_fetch' for agent 'docs-writer'");
            assertThat(inside.status()).isEqualTo(ToolStatus.OK);
            assertThat(insideFetch.status()).as("balanced generalises to the directory seen").isEqualTo(ToolStatus.OK);
            assertThat(workload.server.getRequestCount()).as("no denied fetch reached the server").isEqualTo(1);
        }
    }

    @Test
    void aPathIsCheckedAsContainmentResolvedItSoDotDotCannotWalkIntoAnAllowedPrefix() {
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        try (ToolExecutor executor = workload.executor(store, PolicyGates.enforce(policy))) {
            ToolContext writer = workload.context("check-3", "docs-writer", Workload.ticking());

            ToolResult sneaky = executor.execute(ToolCallRequest.of("read_file", Map.of("path", "docs/../notes/ideas.md")), writer);
            ToolResult absolute = executor.execute(ToolCallRequest.of("read_file",
                    Map.of("path", workload.root.resolve("docs/faq.md").toString())), writer);

            assertThat(sneaky.reason()).contains(PolicyGates.POLICY_DENIED);
            assertThat(absolute.status()).as("an absolute path inside an allowed prefix is that prefix").isEqualTo(ToolStatus.OK);
        }
    }

    @Test
    void inShadowTheSameCallsRunAndTheStoreRecordsWhatWouldHaveBeenDenied() throws Exception {
        Path db = tmp.resolve("shadow.db");
        try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(db);
                ToolExecutor executor = workload.executor(store, PolicyGates.shadow(policy))) {
            ToolContext writer = workload.context("shadow-1", "docs-writer", Workload.ticking());
            ToolContext researcher = workload.context("shadow-2", "researcher", Workload.ticking());
            executor.execute(outsideTheEnvelope().get(0), writer);
            executor.execute(outsideTheEnvelope().get(1), researcher);
            executor.execute(outsideTheEnvelope().get(2), writer);
        }
        List<ToolCallRecord> records;
        try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(db)) {
            records = store.recent(10);
        }
        assertThat(records).extracting(ToolCallRecord::status).containsExactly(ToolStatus.OK, ToolStatus.OK, ToolStatus.OK);
        assertThat(records.get(0).shadowDenial()).isEqualTo("would deny: policy rule 'docs-writer/read_file': argument"
                + " 'path' is not under a path prefix this rule allows");
        assertThat(records.get(1).shadowDenial()).contains("researcher/http_fetch", "names a host");
        assertThat(records.get(2).shadowDenialOptional()).isEmpty();
        assertThat(workload.server.getRequestCount()).as("shadow lets the fetch run").isEqualTo(1);
    }

    @Test
    void aCallFromAnAgentWithNoRuleSetIsDenied() {
        InMemoryToolCallStore store = new InMemoryToolCallStore();
        try (ToolExecutor executor = workload.executor(store, PolicyGates.enforce(policy))) {
            ToolResult r = executor.execute(ToolCallRequest.of("list_dir", Map.of("path", "docs")),
                    workload.context("check-4", "intruder", Workload.ticking()));
            assertThat(r.reasonDetail()).isEqualTo("no policy rule allows tool 'list_dir' for agent 'intruder'");
        }
    }
}
