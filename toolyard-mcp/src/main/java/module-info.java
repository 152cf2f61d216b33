/**
 * ToolYard's MCP server: {@code ToolYardMcpServer} serves a registry's tools through the MCP Java SDK,
 * every call through {@code ToolExecutor.execute}.
 */
module dev.toolyard.mcp {
    requires transitive dev.toolyard.core;
    requires transitive io.modelcontextprotocol.sdk.mcp.core;
    requires reactor.core;

    exports dev.toolyard.mcp;
}
