package dev.toolyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(120) // a hang guard only
class MainTest {
    @TempDir
    Path tmp;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void theDemoRunsEveryStepForRealAndEachRowEndsAsACarefulReaderExpects() {
        CliRun r = run("demo", "--dir", tmp.toString());
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
        CliRun records = run("records", "--store", tmp.resolve("records.db").toString(), "--json");
        assertThat(records.exit()).isZero();
        assertThat(records.out()).contains("\"status\":\"refused\"").contains("\"reason\":\"link_local_address\"");
        assertThat(records.out().lines()).hasSize(10);
        assertThat(records.out().split("\"callId\"", -1)).hasSize(11);
    }

    @Test
    void aCallIsRecordedAndPrintedAsJson() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "hi");
        Path store = tmp.resolve("calls.db");
        CliRun ok = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{\"path\":\"a.txt\"}",
                "--store", store.toString(), "--invocation", "cli-test");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).contains("\"status\" : \"ok\"").contains("\"content\" : \"hi\"");
        CliRun escape = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args",
                "{\"path\":\"../../etc/passwd\"}", "--store", store.toString(), "--invocation", "cli-test");
        assertThat(escape.exit()).isEqualTo(1);
        assertThat(escape.out()).contains("\"reason\" : \"path_escape\"");
        CliRun listed = run("records", "--store", store.toString(), "--invocation", "cli-test");
        assertThat(listed.out()).contains("2 record(s)").contains("path_escape");
    }

    @Test
    void withoutATerminalOrApproveAToolThatWritesIsDeniedAndWithApproveItRunsAndTheRecordNamesTheApprover()
            throws Exception {
        // The test JVM's stdin is a pipe, so System.console() is null: the non-interactive path.
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path store = tmp.resolve("calls.db");
        String args = "{\"path\":\"out.md\",\"content\":\"hi\"}";
        CliRun denied = run("call", "--workspace", ws.toString(), "--tool", "write_file", "--args", args,
                "--store", store.toString(), "--invocation", "cli-gate");
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.out()).contains("\"reason\" : \"approval_denied\"").contains("no terminal to ask");
        assertThat(ws.resolve("out.md")).doesNotExist();

        CliRun approved = run("call", "--workspace", ws.toString(), "--tool", "write_file", "--args", args,
                "--store", store.toString(), "--invocation", "cli-gate", "--approve");
        assertThat(approved.exit()).as(approved.out()).isZero();
        assertThat(ws.resolve("out.md")).hasContent("hi");

        CliRun read = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{\"path\":\"out.md\"}",
                "--store", store.toString(), "--invocation", "cli-gate");
        assertThat(read.exit()).as("a tool that only reads needs no approval").isZero();
        CliRun records = run("records", "--store", store.toString(), "--invocation", "cli-gate", "--json");
        assertThat(records.out()).containsPattern("\"reason\" ?: ?\"approval_denied\"")
                .containsPattern("\"approver\" ?: ?\"cli --approve \\(.+\\)\"");
    }

    @Test
    void mistakesAUserCanMakeGetOneLineAndANonZeroExitNeverAStackTrace() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        CliRun missing = run("call", "--workspace", tmp.resolve("nope").toString(), "--tool", "read_file", "--args", "{}");
        CliRun badJson = run("call", "--workspace", ws.toString(), "--tool", "read_file", "--args", "{bad");
        CliRun noStore = run("records", "--store", tmp.resolve("none.db").toString());
        Path notAStore = Files.writeString(tmp.resolve("text.db"), "this is not a database");
        CliRun wrongStore = run("records", "--store", notAStore.toString());
        for (CliRun r : new CliRun[] {missing, badJson, noStore, wrongStore}) {
            assertThat(r.exit()).as(r.err()).isEqualTo(Main.USAGE);
            assertThat(r.err().strip()).startsWith("toolyard: ").doesNotContain("\n").doesNotContain("\tat ");
        }
        assertThat(missing.err()).contains("is not an existing directory");
        assertThat(badJson.err()).contains("--args is not valid JSON");
        assertThat(noStore.err()).contains("no store at");
    }

    @Test
    void doctorSaysWhomCommandsRunAsWhetherTheFilterIsLoadedAndWhatEnforcesEachLimit() {
        CliRun r = run("doctor");

        assertThat(r.out()).contains("commands run as: ", "seccomp filter:  ");
        if (r.exit() == 0) {
            assertThat(r.out()).contains("what enforces each limit on ", "      cpuSeconds: RLIMIT_CPU",
                    "      processCount: ", "RLIMIT_NPROC", "seccomp filter:  ToolYard's own, loaded on every run");
        }
    }

    @Test
    void everySubcommandAnswersDashHAndDashDashHelpWithItsUsageAndExitZero() {
        CommandLine root = new CommandLine(new Main());
        List<List<String>> paths = new ArrayList<>();
        collect(root, new ArrayList<>(), paths);
        assertThat(paths).extracting(p -> String.join(" ", p))
                .contains("", "doctor", "demo", "call", "records", "records show");
        for (List<String> path : paths) {
            for (String flag : new String[] {"-h", "--help"}) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                CliRun r = run(args.toArray(String[]::new));
                String name = String.join(" ", path);
                assertThat(r.exit()).as(name + " " + flag + ": " + r.err()).isZero();
                assertThat(r.err()).as(name + " " + flag).isEmpty();
                assertThat(r.out()).as(name + " " + flag).startsWith("Usage: toolyard" + (name.isEmpty() ? "" : " " + name))
                        .contains("-h, --help").contains("-V, --version");
            }
        }
    }

    @Test
    void theRootAndEverySubcommandPrintTheVersionForDashCapitalV() {
        for (String[] args : new String[][] {{"-V"}, {"--version"}, {"doctor", "-V"}, {"records", "show", "--version"}}) {
            CliRun r = run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isZero();
            assertThat(r.out().strip()).isEqualTo("toolyard 0.1.0");
        }
    }

    private static void collect(CommandLine cli, List<String> path, List<List<String>> out) {
        out.add(path);
        for (Map.Entry<String, CommandLine> sub : cli.getSubcommands().entrySet()) {
            List<String> next = new ArrayList<>(path);
            next.add(sub.getKey());
            collect(sub.getValue(), next, out);
        }
    }

    @Test
    void doctorReportsTheTierAndEveryRungAsJson() {
        CliRun r = run("doctor", "--json");
        assertThat(r.out()).contains("\"tier\"").contains("\"rungs\"").contains("\"limitsUnenforced\"").contains("\"java\"")
                .contains("\"runsAs\"").contains("\"seccompFilterLoaded\"").contains("\"limitEnforcement\"")
                .contains("\"startAt\"").contains("\"canaryRuns\"").contains("\"canaryMillis\"").contains("\"canaryCommand\"");
        assertThat(r.exit()).isEqualTo(r.out().contains("\"tier\" : \"unavailable\"") ? 1 : 0);
    }
}
