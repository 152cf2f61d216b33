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
import java.util.Optional;
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
        Map<String, String> env = checkedEnv(sandbox, environment);
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

    static Tool create(IsolatedRunner sandbox, Map<String, String> environment, CommandNetwork network) {
        Objects.requireNonNull(network, "network");
        Map<String, String> env = checkedEnv(sandbox, environment);
        ProxyEnvironment.with(env, network.loopbackPort()); // fails now, naming the variable, rather than at each call
        ToolSpec spec = ToolSpec.builder(NAME)
                .description("Run one command in an isolated sandbox, in the workspace directory. It can reach only "
                        + "the hosts the application allowed, over HTTP and HTTPS through a proxy that HTTP_PROXY and "
                        + "HTTPS_PROXY name; any other destination gets 403 with an X-Proxy-Error header saying why. "
                        + "Give the program and its arguments as a list; no shell is involved.")
                .argsSchema(SCHEMA)
                .riskClass(RiskClass.EXECUTE)
                .egress(EgressClass.ALLOWLISTED)
                .requiresIsolation(true)
                .cooperative(true)
                .build();
        return new Tool(spec, (args, context) -> runNetworked(sandbox, env, network, args, context));
    }

    private static Map<String, String> checkedEnv(IsolatedRunner sandbox, Map<String, String> environment) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(environment, "environment");
        Map<String, String> env = Map.copyOf(new TreeMap<>(environment));
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().indexOf('=') >= 0 || e.getKey().indexOf('\0') >= 0
                    || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("environment has an invalid entry: " + e.getKey());
            }
        }
        return env;
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

    private static ToolOutput runNetworked(IsolatedRunner sandbox, Map<String, String> env, CommandNetwork network,
            ToolArgs args, ToolContext context) {
        List<String> argv = args.strings("argv");
        for (String item : argv) {
            if (item.indexOf('\0') >= 0) {
                return ToolOutput.refused(Reason.ARGS_INVALID, "argv items must not contain a NUL character");
            }
        }
        Optional<String> unavailable = sandbox.proxyRouteUnavailable();
        if (unavailable.isPresent()) {
            return ToolOutput.refused(Reason.ISOLATION_UNAVAILABLE, "network for commands is unavailable on this host: "
                    + unavailable.get());
        }
        CommandNetwork.Run run = network.runIsolated(sandbox, argv, context.workspace(),
                context.timeout().plus(SANDBOX_MARGIN), env);
        SubprocessResult r = run.result();
        String text = format(r) + (r.stderr().isEmpty() || r.stderr().endsWith("\n") ? "" : "\n") + "--- network ---\n"
                + (run.lines().isEmpty() ? "no connections\n" : String.join("\n", run.lines()) + "\n");
        return ToolOutput.of(text, summary(argv, r) + ", network " + run.connections() + " connections")
                .withNetworkRecord(run.recordJson());
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
