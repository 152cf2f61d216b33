package dev.toolyard.builtins;

import dev.toolyard.EgressClass;
import dev.toolyard.Reason;
import dev.toolyard.RiskClass;
import dev.toolyard.spi.IsolatedRunner;
import dev.toolyard.spi.SubprocessResult;
import dev.toolyard.Tool;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * {@code run_command}: runs one command, given as an argv list, through the sandbox's isolation tier,
 * in the write root. The executor refuses it on a host with no tier ({@code requiresIsolation}). A
 * non-zero exit is an {@code OK} result that says so: the command ran.
 *
 * <p>The sandbox's own deadline is set a second past the invocation's, so the executor's deadline
 * always fires first: the call ends {@code TIMEOUT}, and the interrupt makes the sandbox kill the tree.
 */
final class RunCommandTool {
    static final String NAME = "run_command";
    static final int MAX_ARGV = 256;
    static final int MAX_ARG_CHARS = 4096;
    static final Map<String, String> DEFAULT_ENV = Map.of("PATH", "/usr/local/bin:/usr/bin:/bin");
    private static final Duration SANDBOX_MARGIN = Duration.ofSeconds(1);

    private static final String SCHEMA = """
            {"type":"object","properties":{"argv":{"type":"array","minItems":1,"maxItems":%d,\
            "items":{"type":"string","maxLength":%d},\
            "description":"The command and its arguments, one item each; no shell is involved."}},\
            "required":["argv"],"additionalProperties":false}""".formatted(MAX_ARGV, MAX_ARG_CHARS);

    private RunCommandTool() {}

    static Tool create(IsolatedRunner sandbox, Map<String, String> environment) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(environment, "environment");
        Map<String, String> env = Map.copyOf(new TreeMap<>(environment));
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().indexOf('=') >= 0 || e.getKey().indexOf('\0') >= 0
                    || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("environment has an invalid entry: " + e.getKey());
            }
        }
        ToolSpec spec = ToolSpec.builder(NAME)
                .description("Run one command in an isolated sandbox, in the workspace directory, with no network. "
                        + "Give the program and its arguments as a list; no shell is involved.")
                .argsSchema(SCHEMA)
                .riskClass(RiskClass.EXECUTE)
                .egress(EgressClass.NONE)
                .requiresIsolation(true)
                .cooperative(true) // the interrupt at the deadline kills the tree
                .build();
        return new Tool(spec, (args, context) -> run(sandbox, env, args, context));
    }

    private static ToolOutput run(IsolatedRunner sandbox, Map<String, String> env, ToolArgs args, ToolContext context) {
        List<String> argv = args.strings("argv");
        for (String item : argv) {
            if (item.indexOf('\0') >= 0) {
                return ToolOutput.refused(Reason.ARGS_INVALID, "argv items must not contain a NUL character");
            }
        }
        SubprocessResult r = sandbox.runIsolated(argv, context.workspace(), context.timeout().plus(SANDBOX_MARGIN), env);
        return ToolOutput.of(format(r), summary(argv, r));
    }

    /** The stable, model-readable form: header lines, then each stream under its own marker. */
    static String format(SubprocessResult r) {
        return "exit_code: " + r.exitCode() + "\n"
                + "tier: " + r.tier().wireName() + "\n"
                + "timed_out: " + r.timedOut() + "\n"
                + "output_truncated: " + r.outputTruncated() + "\n"
                + "--- stdout ---\n" + r.stdout() + (r.stdout().isEmpty() || r.stdout().endsWith("\n") ? "" : "\n")
                + "--- stderr ---\n" + r.stderr();
    }

    private static String summary(List<String> argv, SubprocessResult r) {
        return "ran " + argv.get(0) + " (" + argv.size() + " args) on " + r.tier().wireName() + ": exit_code "
                + r.exitCode() + (r.timedOut() ? ", timed out" : "") + (r.outputTruncated() ? ", output truncated" : "")
                + ", stdout " + r.stdout().length() + " chars, stderr " + r.stderr().length() + " chars";
    }
}
