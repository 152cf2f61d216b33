/**
 * ToolYard's policy module: deny-by-default tool-call policies learned from records or execute_tool
 * spans, enforced (or shadowed) as the executor's policy gate, and exported to Cedar, Rego and an MCP
 * allowlist. Depends on toolyard-core only.
 */
module dev.toolyard.policy {
    requires transitive dev.toolyard.core;

    exports dev.toolyard.policy;
}
