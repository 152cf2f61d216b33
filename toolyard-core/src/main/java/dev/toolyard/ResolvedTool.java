package dev.toolyard;

/**
 * The hand-off after the registry check: a call whose tool exists. Only the allowlist and schema checks
 * take it, so neither can run before the tool is known.
 *
 * @param call the call
 * @param tool its registered tool
 */
record ResolvedTool(Call call, Tool tool) {
    ToolSpec spec() {
        return tool.spec();
    }
}
