package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120) // a hang guard only
class MainTest {
    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void theDemoRunsEveryStepForRealAndEachRowEndsAsACarefulReaderExpects() {
        Run r = run("demo", "--dir", tmp.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        boolean tier = !r.out().contains("isolation tier: unavailable");
        String ranOrRefused = tier ? "ok       -" : "refused  isolation_unavailable";
        assertThat(r.out())
                .containsPattern("read a note +read_file +ok +-")
                .containsPattern("escape with \\.\\./ +read_file +refused +path_escape")
                .containsPattern("write a report +write_file +ok +-")
                .containsPattern("run python in the sandbox +run_command +" + ranOrRefused.replace(" ", " +"))
                .containsPattern("fetch the allowlisted docs +http_fetch +ok +-")
                .containsPattern("fetch cloud metadata +http_fetch +refused +link_local_address")
                .containsPattern("fetch an unlisted host +http_fetch +refused +host_not_allowed")
                .containsPattern("call a tool that does not exist +delete_everything +refused +unknown_tool")
                .containsPattern("arguments that fail the schema +read_file +refused +args_invalid")
                .containsPattern("a command past its timeout +run_command +"
                        + (tier ? "timeout +timeout" : "refused +isolation_unavailable"));
        assertThat(tmp.resolve("workspace/out/report.md")).hasContent("All checks passed.\n");
        Run records = run("records", "--store", tmp.resolve("records.db").toString(), "--json");
        assertThat(records.exit()).isZero();
        assertThat(records.out()).contains("\"status\" : \"refused\"").contains("\"reason\" : \"link_local_address\"");
        assertThat(records.out().split("\"callId\"", -1)).hasSize(11);
    }

    @Test
    void aCallIsRecordedAndPrintedAsJson() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "hi");
        Path store = tmp.resolve("calls.db");
        Run ok = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{\"path\":\"a.txt\"}",
                "--store", store.toString(), "--invocation", "cli-test");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).contains("\"status\" : \"ok\"").contains("\"content\" : \"hi\"");
        Run escape = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args",
                "{\"path\":\"../../etc/passwd\"}", "--store", store.toString(), "--invocation", "cli-test");
        assertThat(escape.exit()).isEqualTo(1);
        assertThat(escape.out()).contains("\"reason\" : \"path_escape\"");
        Run listed = run("records", "--store", store.toString(), "--invocation", "cli-test");
        assertThat(listed.out()).contains("2 record(s)").contains("path_escape");
    }

    @Test
    void withoutATerminalOrApproveAToolThatWritesIsDeniedAndWithApproveItRunsAndTheRecordNamesTheApprover()
            throws Exception {
        // The test JVM's stdin is a pipe, so System.console() is null: the non-interactive path.
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("calls.db");
        String args = "{\"path\":\"out.md\",\"content\":\"hi\"}";
        Run denied = run("call", "--workspace", ws.toString(), "--tool", "write_file", "--args", args,
                "--store", store.toString(), "--invocation", "cli-gate");
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.out()).contains("\"reason\" : \"approval_denied\"").contains("no terminal to ask");
        assertThat(ws.resolve("out.md")).doesNotExist();

        Run approved = run("call", "--workspace", ws.toString(), "--tool", "write_file", "--args", args,
                "--store", store.toString(), "--invocation", "cli-gate", "--approve");
        assertThat(approved.exit()).as(approved.out()).isZero();
        assertThat(ws.resolve("out.md")).hasContent("hi");

        Run read = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{\"path\":\"out.md\"}",
                "--store", store.toString(), "--invocation", "cli-gate");
        assertThat(read.exit()).as("a tool that only reads needs no approval").isZero();
        Run records = run("records", "--store", store.toString(), "--invocation", "cli-gate", "--json");
        assertThat(records.out()).contains("\"reason\" : \"approval_denied\"")
                .containsPattern("\"approver\" : \"cli --approve \\(.+\\)\"");
    }

    @Test
    void mistakesAUserCanMakeGetOneLineAndANonZeroExitNeverAStackTrace() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Run missing = run("call", "--workspace", tmp.resolve("nope").toString(), "--tool", "read_file", "--args", "{}");
        Run badJson = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{bad");
        Run noStore = run("records", "--store", tmp.resolve("none.db").toString());
        Path notAStore = Files.writeString(tmp.resolve("text.db"), "this is not a database");
        Run wrongStore = run("records", "--store", notAStore.toString());
        for (Run r : new Run[] {missing, badJson, noStore, wrongStore}) {
            assertThat(r.exit()).as(r.err()).isEqualTo(Main.USAGE);
            assertThat(r.err().strip()).startsWith("toolyard: ").doesNotContain("\n").doesNotContain("\tat ");
        }
        assertThat(missing.err()).contains("is not an existing directory");
        assertThat(badJson.err()).contains("--args is not valid JSON");
        assertThat(noStore.err()).contains("no store at");
    }

    @Test
    void doctorReportsTheTierAndEveryRungAsJson() {
        Run r = run("doctor", "--json");
        assertThat(r.out()).contains("\"tier\"").contains("\"rungs\"").contains("\"limitsUnenforced\"").contains("\"java\"");
        assertThat(r.exit()).isEqualTo(r.out().contains("\"tier\" : \"unavailable\"") ? 1 : 0);
    }
}
