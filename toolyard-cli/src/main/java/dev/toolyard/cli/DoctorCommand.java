package dev.toolyard.cli;

import dev.toolyard.IsolationTier;
import dev.toolyard.cli.internal.Table;
import dev.toolyard.spi.Json;
import dev.toolyard.sandbox.IsolationReport;
import dev.toolyard.sandbox.TieredSandbox;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code toolyard doctor}: every rung of the ladder probed ({@link TieredSandbox#survey()}), each with
 * its canary's time and what it enforces, the one the ladder takes marked; what a user would paste
 * into a bug report, or read to choose {@code --tier}.
 */
@Command(name = "doctor", description = {"Probe every rung of the isolation ladder (podman, docker, bubblewrap), each "
        + "with its canary (the command line a run on that rung uses, around /bin/true) run "
        + TieredSandbox.SURVEY_CANARY_RUNS + " times, and show each rung's median canary time, what enforces each "
        + "limit, whether ToolYard's seccomp filter is loaded and why it was taken or skipped; the rung the ladder "
        + "takes is marked TAKEN.", "Exits 0 when a tier is available, 1 when isolated runs are refused."})
final class DoctorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
    String image = HostMachine.DEFAULT_IMAGE;

    @Mixin
    TierOption tier;

    @Override
    public Integer call() {
        IsolationReport report = HostMachine.sandbox(image, tier, false).survey();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json(report)));
        } else {
            text(report, out);
        }
        out.flush();
        return report.tier() == IsolationTier.UNAVAILABLE ? 1 : 0;
    }

    private static ObjectNode json(IsolationReport report) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("tier", report.tier().wireName());
        root.put("startAt", report.startAt().wireName());
        root.put("canaryRuns", TieredSandbox.SURVEY_CANARY_RUNS);
        ArrayNode rungs = root.putArray("rungs");
        for (IsolationReport.Rung r : report.rungs()) {
            ObjectNode n = rungs.addObject();
            n.put("name", r.name());
            n.put("taken", r.taken());
            n.put("standing", r.standing().toLowerCase(Locale.ROOT));
            n.put("why", r.why());
            if (r.canaryTime().isPresent()) {
                n.put("canaryMillis", millis(r.canaryTime().get()));
            } else {
                n.putNull("canaryMillis");
            }
            ArrayNode times = n.putArray("canaryTimesMillis");
            r.canaryTimes().forEach(t -> times.add(millis(t)));
            ArrayNode command = n.putArray("canaryCommand");
            r.canaryCommand().forEach(command::add);
            n.put("seccompFilterLoaded", r.seccompFilterLoaded());
            ObjectNode enforcement = n.putObject("limitEnforcement");
            r.limitEnforcement().forEach(enforcement::put);
            String warm = report.warmByRung().get(r.name());
            if (warm != null) {
                n.put("warm", warm);
            } else {
                n.putNull("warm");
            }
            String network = report.commandNetworkByRung().get(r.name());
            if (network != null) {
                n.put("commandNetwork", network);
            } else {
                n.putNull("commandNetwork");
            }
        }
        root.put("warmMode", report.warmMode());
        ArrayNode unenforced = root.putArray("limitsUnenforced");
        report.limitsUnenforced().stream().sorted().forEach(unenforced::add);
        root.put("runsAs", report.runsAs());
        root.put("seccompFilterLoaded", report.seccompFilterLoaded());
        ObjectNode enforcement = root.putObject("limitEnforcement");
        report.limitEnforcement().forEach(enforcement::put);
        root.put("java", System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
        root.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        ArrayNode climb = root.putArray("toClimb");
        HostMachine.climbHints(report).forEach(climb::add);
        return root;
    }

    private static void text(IsolationReport report, PrintWriter out) {
        String taken = report.rungs().stream().filter(IsolationReport.Rung::taken).map(r -> " (" + r.name() + ")")
                .findFirst().orElse("");
        out.println("ToolYard doctor");
        out.println("  tier:   " + report.tier().wireName() + taken + "; the ladder starts at "
                + (report.startAt() == IsolationTier.BWRAP ? "bubblewrap (--tier bwrap)"
                        : report.startAt() == IsolationTier.GVISOR ? "gvisor (--tier gvisor)" : "container (the default)"));
        out.println("  java:   " + System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
        out.println("  os:     " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        out.println("  every rung, in ladder order; a canary is the command line a run on that rung uses, around /bin/true,");
        out.println("  run " + TieredSandbox.SURVEY_CANARY_RUNS + " times (spawn to exit; TAKEN is the rung runs use):");
        Table table = new Table("rung", "ladder", "canary (median of " + TieredSandbox.SURVEY_CANARY_RUNS + ")", "fastest..slowest",
                "seccomp filter");
        for (IsolationReport.Rung r : report.rungs()) {
            table.row(r.name(), r.standing(), r.canaryTime().map(DoctorCommand::shown).orElse("-"),
                    r.passed() ? shown(Collections.min(r.canaryTimes())) + ".." + shown(Collections.max(r.canaryTimes())) : "-",
                    !r.passed() ? "-" : r.seccompFilterLoaded() ? "ToolYard's own"
                            : r.name().equals("bwrap") ? "none" : "the engine's default");
        }
        StringWriter rows = new StringWriter();
        table.print(new PrintWriter(rows));
        rows.toString().lines().forEach(line -> out.println("    " + line));
        for (IsolationReport.Rung r : report.rungs()) {
            out.println("  " + r.name() + ", " + r.standing() + ": " + r.why());
            if (!r.limitEnforcement().isEmpty()) {
                out.println("    what enforces each limit on " + r.name() + ":");
                r.limitEnforcement().forEach((limit, how) -> out.println("      " + limit + ": " + how));
            }
            String warm = report.warmByRung().get(r.name());
            if (warm != null) {
                out.println("    warm mode on " + r.name() + ": " + warm);
            }
            String network = report.commandNetworkByRung().get(r.name());
            if (network != null) {
                out.println("    network for commands on " + r.name() + ": " + network);
            }
        }
        out.println("  warm mode:       " + report.warmMode());
        out.println("  commands run as: " + report.runsAs());
        out.println("  seccomp filter:  " + (report.seccompFilterLoaded() ? "ToolYard's own, loaded on every run"
                : "not loaded" + (report.tier() == IsolationTier.UNAVAILABLE ? " (no tier)" : "")));
        out.println("  limits this tier cannot enforce: "
                + (report.limitsUnenforced().isEmpty() ? "none" : String.join(", ", report.limitsUnenforced())));
        for (String hint : HostMachine.climbHints(report)) {
            out.println("  to climb: " + hint);
        }
        if (report.tier() == IsolationTier.UNAVAILABLE) {
            out.println("  run_command is refused on this host (isolation_unavailable); other tools work.");
        }
    }

    private static double millis(Duration d) {
        return Math.round(d.toNanos() / 1e5) / 10.0;
    }

    private static String shown(Duration d) {
        return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }
}
