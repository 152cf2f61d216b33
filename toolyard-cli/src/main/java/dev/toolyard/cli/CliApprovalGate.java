package dev.toolyard.cli;

import dev.toolyard.spi.ApprovalDecision;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.ApprovalRequest;
import java.io.Console;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The CLI's approval gate: {@code --approve} approves, otherwise the person at the terminal is asked, and
 * with no terminal the call is denied, so a script can never approve by accident. The question shows the
 * arguments with every control character escaped: they are the model's text and must not drive the terminal.
 */
final class CliApprovalGate implements ApprovalGate {
    /** Asks one question and returns the answer line, or {@code null} at the end of input. */
    interface Prompt {
        String ask(String question);
    }

    private final boolean approveAll;
    private final Prompt prompt;
    private final String user;

    CliApprovalGate(boolean approveAll, Prompt prompt, String user) {
        this.approveAll = approveAll;
        this.prompt = prompt;
        this.user = user;
    }

    /** @return the gate for this process: {@code --approve}, else its console if it has one, else deny */
    static CliApprovalGate forThisProcess(boolean approveAll) {
        Console console = System.console();
        Prompt prompt = console == null ? null : question -> {
            console.writer().print(question);
            console.flush();
            return console.readLine();
        };
        return new CliApprovalGate(approveAll, prompt, System.getProperty("user.name", "unknown"));
    }

    @Override
    public CompletionStage<ApprovalDecision> review(ApprovalRequest request) {
        if (approveAll) {
            return CompletableFuture.completedFuture(ApprovalDecision.approve("cli --approve (" + user + ")"));
        }
        if (prompt == null) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("cli",
                    "no terminal to ask and --approve was not given"));
        }
        CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
        // Off the caller's thread, so the executor's approval timeout holds even while nobody types.
        Thread asking = new Thread(() -> {
            try {
                String line = prompt.ask(question(request));
                boolean yes = line != null && (line.strip().toLowerCase(Locale.ROOT).equals("y")
                        || line.strip().toLowerCase(Locale.ROOT).equals("yes"));
                answer.complete(yes ? ApprovalDecision.approve("terminal (" + user + ")")
                        : ApprovalDecision.deny("terminal (" + user + ")", "the person at the terminal said no"));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        }, "toolyard-approval-prompt");
        asking.setDaemon(true);
        asking.start();
        return answer;
    }

    static String question(ApprovalRequest request) {
        return "toolyard: " + request.toolName() + " (" + request.riskClass() + ") needs approval.\n"
                + "  arguments: " + printable(request.argumentsJson()) + "\n"
                + "  call " + request.callId() + ", invocation " + printable(request.invocationId()) + "\n"
                + "Run it? [y/N] ";
    }

    /** @return the text with control characters (C0, DEL, C1) and line/paragraph separators as escapes */
    static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
