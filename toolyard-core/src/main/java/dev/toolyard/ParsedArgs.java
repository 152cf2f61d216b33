package dev.toolyard;

import tools.jackson.databind.node.ObjectNode;

/**
 * The hand-off after the schema check: arguments parsed and valid for the tool's schema. The egress and
 * containment checks take it, so neither runs on arguments that were never validated.
 *
 * @param resolved the call and its tool
 * @param arguments the validated arguments; containment rewrites path arguments in place
 */
record ParsedArgs(ResolvedTool resolved, ObjectNode arguments) {
    Call call() {
        return resolved.call();
    }

    ToolSpec spec() {
        return resolved.spec();
    }
}
