// Drives a ToolYard MCP server with the official TypeScript client (McpCommandTest runs it).
// Usage: node client.mjs '<json>' where json is
//   {"command": "...", "args": [...], "calls": [{"label": "...", "name": "...", "arguments": {...}}],
//    "elicitation": "accept" | "decline" | "cancel"}
// With "elicitation" the client declares the elicitation capability and answers every
// elicitation/create with that action ("accept" submits {"approve": true}); without it the client
// declares no elicitation capability. Every elicitation request it got is in "elicitations".
// Prints one JSON object on stdout: the server's info, its tools, each call's result or error, the
// client's own errors (a line on the server's stdout that is not JSON-RPC would be one), and the
// server's stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const config = JSON.parse(process.argv[2]);
const clientErrors = [];
let serverStderr = "";

const transport = new StdioClientTransport({
  command: config.command,
  args: config.args,
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
  stderr: "pipe",
});
transport.stderr?.on("data", (chunk) => { serverStderr += chunk.toString(); });

const out = { calls: {}, elicitations: [] };
const client = new Client({ name: "toolyard-mcp-client-test", version: "1.0.0" },
  config.elicitation ? { capabilities: { elicitation: {} } } : undefined);
client.onerror = (e) => clientErrors.push(String(e?.stack ?? e));
if (config.elicitation) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    out.elicitations.push(request.params);
    return config.elicitation === "accept"
      ? { action: "accept", content: { approve: true } }
      : { action: config.elicitation };
  });
}

try {
  await client.connect(transport);
  out.serverInfo = client.getServerVersion();
  out.tools = (await client.listTools()).tools;
  for (const call of config.calls) {
    try {
      out.calls[call.label] = { result: await client.callTool({ name: call.name, arguments: call.arguments }) };
    } catch (e) {
      out.calls[call.label] = { error: { name: e?.name, code: e?.code, message: String(e?.message ?? e) } };
    }
  }
} catch (e) {
  clientErrors.push(String(e?.stack ?? e));
} finally {
  await client.close().catch((e) => clientErrors.push(String(e)));
}
out.clientErrors = clientErrors;
out.serverStderr = serverStderr;
process.stdout.write(JSON.stringify(out) + "\n");
