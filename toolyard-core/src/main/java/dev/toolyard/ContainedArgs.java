package dev.toolyard;

import java.nio.file.Path;
import java.util.Map;

/**
 * The hand-off after the containment check: every path argument resolved inside the workspace. Only
 * this can become a handler's {@link ToolArgs}.
 *
 * @param parsed the validated arguments, path arguments already replaced by their resolved paths
 * @param paths the resolved path arguments by name
 */
record ContainedArgs(ParsedArgs parsed, Map<String, Path> paths) {
    Call call() {
        return parsed.call();
    }

    Tool tool() {
        return parsed.resolved().tool();
    }

    ToolArgs toolArgs() {
        return new ToolArgs(parsed.arguments(), paths);
    }
}
