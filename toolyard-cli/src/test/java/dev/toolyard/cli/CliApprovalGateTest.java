package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.RiskClass;
import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CLI's gate. The interactive path is fed through its {@link CliApprovalGate.Prompt}, the seam the real
 * {@link java.io.Console} plugs into: a JVM under test has no console to feed, so the one line that binds
 * {@code System.console()} to the prompt is not exercised here.
 */
@Timeout(30)
class CliApprovalGateTest {
    private static final ApprovalRequest WRITE = new ApprovalRequest("write_file",
            "{\"path\":\"x\",\"content\":\"\\u001b[2J\u001b]0;owned\u0007\"}", "ab".repeat(32), "inv-1", "call-1", "",
            RiskClass.WRITE);

    private static ApprovalDecision decide(CliApprovalGate gate) throws Exception {
        return gate.review(WRITE).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void withoutATerminalAndWithoutApproveEveryCallIsDenied() throws Exception {
        ApprovalDecision d = decide(new CliApprovalGate(false, null, "alice"));
        assertThat(d.approved()).isFalse();
        assertThat(d.reason()).contains("no terminal");
    }

    @Test
    void approveApprovesWithoutAskingAndNamesItself() throws Exception {
        List<String> asked = new ArrayList<>();
        ApprovalDecision d = decide(new CliApprovalGate(true, q -> {
            asked.add(q);
            return "n";
        }, "alice"));
        assertThat(d.approved()).isTrue();
        assertThat(d.reviewer()).isEqualTo("cli --approve (alice)");
        assertThat(asked).isEmpty();
    }

    @Test
    void atATerminalOnlyAYesApprovesAndAnythingElseOrTheEndOfInputDenies() throws Exception {
        assertThat(decide(new CliApprovalGate(false, q -> "y", "alice")).approved()).isTrue();
        assertThat(decide(new CliApprovalGate(false, q -> " YES ", "alice")).reviewer()).isEqualTo("terminal (alice)");
        for (String answer : new String[] {"", "n", "no", "sure", "y es", null}) {
            assertThat(decide(new CliApprovalGate(false, q -> answer, "alice")).approved()).as("answer %s", answer).isFalse();
        }
        // a failing prompt fails the answer, which the executor turns into approval_denied
        assertThatThrownBy(() -> decide(new CliApprovalGate(false, q -> {
            throw new IllegalStateException("terminal gone");
        }, "alice"))).isInstanceOf(ExecutionException.class);
    }

    @Test
    void theQuestionShowsTheCallButEscapesEveryControlCharacterTheModelSent() throws Exception {
        List<String> asked = new ArrayList<>();
        decide(new CliApprovalGate(false, q -> {
            asked.add(q);
            return "n";
        }, "alice"));
        String q = asked.get(0);
        assertThat(q).contains("write_file (WRITE) needs approval").contains("call call-1").endsWith("[y/N] ");
        assertThat(q).doesNotContain("\u001b").doesNotContain("\u0007").contains("\\u001b]0;owned\\u0007");
        assertThat(CliApprovalGate.printable("a\u2028b\u0085c\u007f")).isEqualTo("a\\u2028b\\u0085c\\u007f");
    }
}
