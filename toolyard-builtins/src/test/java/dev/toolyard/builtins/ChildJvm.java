package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs file tool calls through a real executor in a child JVM, so that a test can narrow what the
 * process may do: run as root without the power to ignore file modes (setpriv), or with a file size
 * limit (prlimit). The child prints one JSON line per call: the result and its record.
 */
final class ChildJvm {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One call as the child saw it. */
    record Outcome(String status, String reason, String detail, String content, String recordStatus,
            String recordReason) {}

    /**
     * One call to make: tool name and arguments as JSON, or {@code @file} naming a file that holds
     * them (a command-line argument is limited to 128 KiB).
     */
    record Call(String tool, String argumentsJson) {}

    private ChildJvm() {}

    /**
     * @param prefix launcher prefix (setpriv, prlimit), may be empty
     * @param writeRoot the workspace's write root
     * @param writeFileMaxBytes the cap of write_file in the child
     * @param calls the calls, in order
     * @return one outcome per call
     */
    static List<Outcome> run(List<String> prefix, Path writeRoot, long writeFileMaxBytes, List<Call> calls)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xmx128m");
        command.add(Main.class.getName());
        command.add(writeRoot.toString());
        command.add(Long.toString(writeFileMaxBytes));
        for (Call c : calls) {
            command.add(c.tool());
            command.add(c.argumentsJson());
        }
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        process.getOutputStream().close();
        byte[] out;
        byte[] err;
        try (InputStream stdout = process.getInputStream(); InputStream stderr = process.getErrorStream()) {
            out = stdout.readAllBytes();
            err = stderr.readAllBytes();
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("the child JVM did not finish");
        }
        String stderrText = new String(err, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("child JVM exit; stderr: %s", stderrText).isZero();
        List<Outcome> outcomes = new ArrayList<>();
        for (String line : new String(out, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n = JSON.readTree(line);
            outcomes.add(new Outcome(n.get("status").stringValue(), n.get("reason").stringValue(),
                    n.get("detail").stringValue(), n.get("content").stringValue(), n.get("recordStatus").stringValue(),
                    n.get("recordReason").stringValue()));
        }
        assertThat(outcomes).as("one outcome per call; stderr: %s", stderrText).hasSize(calls.size());
        return outcomes;
    }

    /** The child: {@code writeRoot writeFileMaxBytes (tool argumentsJson)...}. */
    public static final class Main {
        private Main() {}

        public static void main(String[] args) throws java.io.IOException {
            ToolRegistry registry = new ToolRegistry();
            registry.register(BuiltinTools.readFile());
            registry.register(BuiltinTools.writeFile(Long.parseLong(args[1])));
            registry.register(BuiltinTools.listDir());
            InMemoryToolCallStore store = new InMemoryToolCallStore();
            ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment())
                    .allowlist(Set.of("read_file", "write_file", "list_dir"))
                    .store(store)
                    .build();
            ToolContext context = ToolContext.of("inv-child", SandboxPaths.of(Path.of(args[0])));
            StringBuilder out = new StringBuilder();
            for (int i = 2; i + 1 < args.length; i += 2) {
                String arguments = args[i + 1].startsWith("@")
                        ? java.nio.file.Files.readString(Path.of(args[i + 1].substring(1)))
                        : args[i + 1];
                ToolResult r = executor.execute(ToolCallRequest.of(args[i], arguments), context);
                List<ToolCallRecord> records = store.records();
                ToolCallRecord record = records.get(records.size() - 1);
                ObjectNode line = JSON.createObjectNode();
                line.put("status", r.status().name());
                line.put("reason", r.reason().map(x -> x.wireName()).orElse(""));
                line.put("detail", r.reasonDetail());
                line.put("content", r.content());
                line.put("recordStatus", record.status().name());
                line.put("recordReason", record.reason().map(x -> x.wireName()).orElse(""));
                out.append(JSON.writeValueAsString(line)).append('\n');
            }
            System.out.print(out);
            System.out.flush();
        }
    }
}
