package dev.toolyard.builtins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.HandlerMode;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.Reason;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.builtins.internal.ScriptedResolver;
import dev.toolyard.internal.CompiledSchema;
import dev.toolyard.spi.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every built-in tool's real schema compiles to the fast path ({@link CompiledSchema}), and on the
 * built-ins' own arguments the fast path says what the executor says: the same acceptance and the
 * same {@code args_invalid} detail.
 */
class BuiltinSchemasCompileTest {
    @TempDir
    Path root;

    private static Map<String, Tool> tools() {
        ScriptedResolver resolver = new ScriptedResolver().answer("docs.example", "127.0.0.1");
        return Map.of(
                "read_file", BuiltinTools.readFile(),
                "write_file", BuiltinTools.writeFile(),
                "list_dir", BuiltinTools.listDir(),
                "run_command", BuiltinTools.runCommand(dev.toolyard.sandbox.TieredSandbox.builder()
                        .which(name -> Optional.empty()).build()), // only its spec is used here
                "http_fetch", BuiltinTools.httpFetch(List.of("docs.example"), resolver));
    }

    private static CompiledSchema fastPath(String tool) {
        Optional<CompiledSchema> compiled = CompiledSchema.compile(tools().get(tool).spec().argsSchemaNode());
        assertThat(compiled).as("%s compiles to the fast path", tool).isPresent();
        return compiled.get();
    }

    @Test
    void everyBuiltinSchemaCompilesToTheFastPath() {
        for (Map.Entry<String, Tool> e : tools().entrySet()) {
            assertThat(e.getValue().spec().name()).isEqualTo(e.getKey());
            assertThat(CompiledSchema.compile(e.getValue().spec().argsSchemaNode())).as(e.getKey()).isPresent();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "read_file   | {\"path\":5}                          | `$.path: fails \"type\" (\"string\")`",
        "read_file   | {\"path\":\"\"}                       | `$.path: fails \"minLength\" (1)`",
        "read_file   | {}                                    | `$: fails \"required\" for property 'path'`",
        "read_file   | {\"path\":\"a\",\"x\":1}              | `$: fails \"additionalProperties\" for property 'x' (false)`",
        "write_file  | {\"path\":\"a\"}                      | `$: fails \"required\" for property 'content'`",
        "write_file  | {\"path\":\"a\",\"content\":1}        | `$.content: fails \"type\" (\"string\")`",
        "list_dir    | {\"path\":null}                       | `$.path: fails \"type\" (\"string\")`",
        "run_command | {\"argv\":[]}                         | `$.argv: fails \"minItems\" (1)`",
        "run_command | {\"argv\":[\"ls\",1]}                 | `$.argv[1]: fails \"type\" (\"string\")`",
        "run_command | {\"argv\":\"ls -l\"}                  | `$.argv: fails \"type\" (\"array\")`",
        "http_fetch  | {\"url\":\"\"}                        | `$.url: fails \"minLength\" (1)`",
        "http_fetch  | {\"url\":[\"http://docs.example/\"]}  | `$.url: fails \"type\" (\"string\")`",
    })
    void theFastPathRefusesWhatTheExecutorRefusesWithTheSameDetail(String tool, String arguments, String detail) {
        assertThat(fastPath(tool).firstViolation(Json.MAPPER.readTree(arguments))).isEqualTo(detail);
        ToolResult r = execute(tool, arguments);
        assertThat(r.reason()).contains(Reason.ARGS_INVALID);
        assertThat(r.reasonDetail()).isEqualTo(detail);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "read_file   | {\"path\":\"notes.md\"}",
        "write_file  | {\"path\":\"notes.md\",\"content\":\"\"}",
        "list_dir    | {\"path\":\".\"}",
        "run_command | {\"argv\":[\"ls\",\"-l\"]}",
        "http_fetch  | {\"url\":\"http://docs.example/\"}",
    })
    void theFastPathAcceptsWhatTheExecutorLetsPastItsSchemaCheck(String tool, String arguments) {
        assertThat(fastPath(tool).firstViolation(Json.MAPPER.readTree(arguments))).isNull();
        assertThat(execute(tool, arguments).reason()).isNotEqualTo(Optional.of(Reason.ARGS_INVALID));
    }

    private ToolResult execute(String tool, String arguments) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(tools().get(tool));
        ToolExecutor executor = ToolExecutor.builder(registry, new PathContainment()).allowlist(java.util.Set.of(tool))
                .store(new InMemoryToolCallStore()).handlerMode(HandlerMode.CALLER_THREAD).build();
        // No egress for http_fetch and no isolation tier for run_command: a call that passes the schema
        // stops at the next check, before any handler, socket or process.
        return executor.execute(ToolCallRequest.of(tool, arguments), ToolContext.of("schemas", SandboxPaths.of(root)));
    }
}
