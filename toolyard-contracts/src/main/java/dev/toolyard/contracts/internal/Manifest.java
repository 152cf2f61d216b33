package dev.toolyard.contracts.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * A manifest that passed every load check. Immutable.
 *
 * @param file the file name used in messages
 * @param tool the {@code [tool]} table
 * @param args the arguments, in position order (then name)
 * @param command the {@code [command]} backend; {@code null} when absent
 * @param http the {@code [http]} backend; {@code null} when absent
 * @param output the {@code [output]} table; {@code null} when absent (callback dispatch only)
 * @param warnings what loaded but should change (a deprecated {@code template}, say)
 */
public record Manifest(String file, ToolInfo tool, List<ArgDef> args, CommandPlan command, Http http, Output output,
        List<String> warnings) {

    /** Copies the lists. */
    public Manifest {
        args = List.copyOf(args);
        warnings = List.copyOf(warnings);
    }

    /**
     * The {@code [tool]} table.
     *
     * @param name the tool's name
     * @param version the version string; may be empty
     * @param binary the binary; may be empty
     * @param description for the model
     * @param timeoutSeconds at least 1
     * @param riskTier low, medium, high or critical
     * @param humanApproval whether the manifest asks for approval
     * @param callback whether {@code dispatch = "callback"}
     * @param networkEgress whether the manifest declares that the tool reaches the network
     * @param allowInterpreter whether argv[0] may be a shell or interpreter
     * @param limits the {@code [tool.limits]}
     */
    public record ToolInfo(String name, String version, String binary, String description, long timeoutSeconds,
            String riskTier, boolean humanApproval, boolean callback, boolean networkEgress, boolean allowInterpreter,
            Limits limits) {}

    /**
     * {@code [tool.limits]}; each {@code null} when unset.
     *
     * @param nproc processes
     * @param nofile open files
     * @param fsizeBytes largest file written
     * @param addressSpaceBytes address space
     * @param cpuSeconds CPU time
     */
    public record Limits(Long nproc, Long nofile, Long fsizeBytes, Long addressSpaceBytes, Long cpuSeconds) {
        /** No limits set. */
        public static final Limits NONE = new Limits(null, null, null, null, null);

        /** @return whether any limit is set */
        public boolean any() {
            return nproc != null || nofile != null || fsizeBytes != null || addressSpaceBytes != null || cpuSeconds != null;
        }
    }

    /**
     * The {@code [http]} table.
     *
     * @param method upper case
     * @param url the URL template as written (what the envelope reports)
     * @param urlParts the template split into literals and placeholders
     * @param headers header name to its parts
     * @param headerTemplates header name to the value as written
     * @param body the body template's parts; {@code null} for no body
     * @param successStatus the statuses that are success; empty means 200-299
     */
    public record Http(String method, String url, List<CommandPlan.Part> urlParts,
            Map<String, List<CommandPlan.Part>> headers, Map<String, String> headerTemplates,
            List<CommandPlan.Part> body, Set<Integer> successStatus) {}

    /**
     * The {@code [output]} table.
     *
     * @param parser text, json, jsonl, csv or xml
     * @param maxBytes cap on captured output, in UTF-8 bytes
     * @param envelope whether the model sees the evidence envelope (always true in ToolYard: the envelope
     *     is what is recorded)
     * @param schema the {@code [output.schema]}; {@code null} when none
     */
    public record Output(String parser, long maxBytes, boolean envelope, ObjectNode schema) {}
}
