package dev.toolyard.benchmarks;

import dev.toolyard.EgressClass;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolArgs;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolHandler;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolSpec;

/**
 * The one tool every peer runs: one required string argument, a constant answer. The same body in
 * the three shapes (a ToolYard handler, a LangChain4j {@code @Tool} method, a Spring AI {@code @Tool}
 * method), fed the same JSON string, so what differs is only the machinery around it.
 */
public final class NoteTool {
    /** The tool's name in all three frameworks. */
    public static final String NAME = "note";

    /** The JSON a model would emit for it; the same string goes to every peer. */
    public static final String ARGUMENTS = "{\"text\":\"buy milk\"}";

    /** A call that names no registered tool. */
    public static final String UNKNOWN_NAME = "rm_rf";

    /** Arguments that fail the closed schema (an extra property), so the call stops at {@code args_invalid}. */
    public static final String INVALID_ARGUMENTS = "{\"text\":\"buy milk\",\"extra\":1}";

    /** The small closed schema of the first row. */
    public static final String SCHEMA = """
            {"type":"object","properties":{"text":{"type":"string"}},
             "required":["text"],"additionalProperties":false}""";

    private static final String OK = "ok";
    private static final String EMPTY = "empty";
    private static final ToolOutput OK_OUTPUT = ToolOutput.of(OK);
    private static final ToolOutput EMPTY_OUTPUT = ToolOutput.of(EMPTY);

    /** The ToolYard handler: reads its argument the way any handler would, answers a constant. */
    public static final ToolHandler HANDLER = NoteTool::handle;

    private NoteTool() {}

    static ToolOutput handle(ToolArgs args, ToolContext context) {
        return args.string("text").isEmpty() ? EMPTY_OUTPUT : OK_OUTPUT;
    }

    /** @return the ToolYard spec: read-only, no egress, no path argument, an application's (handed-off) tool */
    public static ToolSpec spec() {
        return builder().build();
    }

    /** @return the same spec declared cooperative, as the built-in tools are: by default it runs on the caller's thread */
    public static ToolSpec cooperativeSpec() {
        return builder().cooperative(true).build();
    }

    private static ToolSpec.Builder builder() {
        return ToolSpec.builder(NAME)
                .description("Take a note.")
                .argsSchema(SCHEMA)
                .riskClass(RiskClass.READ_ONLY)
                .egress(EgressClass.NONE);
    }

    /** The same tool as the peers declare it: an annotated method whose parameter is bound by name. */
    public static final class Peer {
        /**
         * @param text the note
         * @return a constant, like the ToolYard handler
         */
        @dev.langchain4j.agent.tool.Tool(name = NAME, value = "Take a note.")
        @org.springframework.ai.tool.annotation.Tool(name = NAME, description = "Take a note.")
        public String note(String text) {
            return text.isEmpty() ? EMPTY : OK;
        }
    }
}
