package dev.toolyard.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the real command line with captured streams, for tests. */
record CliRun(int exit, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(exit, out.toString(), err.toString());
    }
}
