package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import dev.toolyard.internal.Json;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code toolyard doctor}: the isolation report a user would paste into a bug report. */
@Command(name = "doctor", description = "Show the isolation tier this host offers, every rung visited and why, "
        + "the uid commands run as, whether ToolYard's seccomp filter is loaded, what enforces each limit, "
        + "the limits it cannot enforce, and how to climb a rung. Exits 0 when a tier is available.")
final class DoctorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = Hosts.DEFAULT_IMAGE;

    @Override
    public Integer call() {
        IsolationReport report = TieredSandbox.builder().containerImage(image).build().report();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("tier", report.tier().wireName());
            ArrayNode rungs = root.putArray("rungs");
            for (IsolationReport.Rung r : report.rungs()) {
                rungs.addObject().put("name", r.name()).put("taken", r.taken()).put("why", r.why());
            }
            ArrayNode unenforced = root.putArray("limitsUnenforced");
            report.limitsUnenforced().stream().sorted().forEach(unenforced::add);
            root.put("runsAs", report.runsAs());
            root.put("seccompFilterLoaded", report.seccompFilterLoaded());
            ObjectNode enforcement = root.putObject("limitEnforcement");
            report.limitEnforcement().forEach(enforcement::put);
            root.put("java", System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
            root.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
            ArrayNode climb = root.putArray("toClimb");
            Hosts.climbHints(report).forEach(climb::add);
            out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        } else {
            out.println("ToolYard doctor");
            out.println("  tier:   " + report.tier().wireName());
            out.println("  java:   " + System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
            out.println("  os:     " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
            out.println("  rungs visited, in order:");
            for (IsolationReport.Rung r : report.rungs()) {
                out.println("    " + (r.taken() ? "[taken]   " : "[skipped] ") + r.name() + ": " + r.why());
            }
            out.println("  commands run as: " + report.runsAs());
            out.println("  seccomp filter:  " + (report.seccompFilterLoaded() ? "ToolYard's own, loaded on every run"
                    : "not loaded" + (report.tier() == IsolationTier.UNAVAILABLE ? " (no tier)" : "")));
            if (!report.limitEnforcement().isEmpty()) {
                out.println("  limits, and what enforces each on this host:");
                report.limitEnforcement().forEach((limit, how) -> out.println("    " + limit + ": " + how));
            }
            out.println("  limits this tier cannot enforce: "
                    + (report.limitsUnenforced().isEmpty() ? "none" : String.join(", ", report.limitsUnenforced())));
            for (String hint : Hosts.climbHints(report)) {
                out.println("  to climb: " + hint);
            }
            if (report.tier() == IsolationTier.UNAVAILABLE) {
                out.println("  run_command is refused on this host (isolation_unavailable); other tools work.");
            }
        }
        return report.tier() == IsolationTier.UNAVAILABLE ? 1 : 0;
    }
}
