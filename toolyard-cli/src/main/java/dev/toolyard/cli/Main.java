package dev.toolyard.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code toolyard} command line. Errors a user can make end with one line and a non-zero exit. */
@Command(name = "toolyard", mixinStandardHelpOptions = true, version = "toolyard 0.1.0",
        // every subcommand, and every one added later, inherits -h/--help and -V/--version
        scope = CommandLine.ScopeType.INHERIT,
        description = "Run model tool calls through ToolYard: check the host, watch a demo, make a call, read records.",
        subcommands = {DoctorCommand.class, DemoCommand.class, CallCommand.class, RecordsCommand.class,
                McpCommand.class, ContractCommand.class,
                PolicyCommand.class})
public final class Main implements Runnable {
    /** Exit code for a mistake in what the user asked (a missing workspace, invalid JSON, an unknown store). */
    static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams; for tests. */
    static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof UserError u) {
                commandLine.getErr().println("toolyard: " + u.getMessage());
                return USAGE;
            }
            commandLine.getErr().println("toolyard: " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
            return 1;
        });
        return cli.execute(args);
    }

    /** A mistake the user can fix; printed as one line, never a stack trace. */
    static final class UserError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UserError(String message) {
            super(message, null, false, false);
        }
    }
}
