#!/usr/bin/env bash
# Installs the official MCP TypeScript client that toolyard-cli's McpCommandTest drives `toolyard mcp`
# with: @modelcontextprotocol/sdk 1.32.2, pinned with all its dependencies by the committed
# toolyard-cli/src/test/mcp-client/package-lock.json, into that directory's node_modules (git-ignored).
# Needs Node >= 18 and npm; installs Debian's nodejs and npm only if either is missing.
# Idempotent: runs `npm ci` only when node_modules was not installed from this exact lock file.
# With CI=true McpCommandTest fails rather than skips, so this script must leave the client in place.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../toolyard-cli/src/test/mcp-client"

ci_require_tools "the MCP client test" node=nodejs npm=npm
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 18 ]; then
  echo "node $(node --version) is too old: @modelcontextprotocol/sdk 1.32.2 needs Node >= 18" >&2
  exit 1
fi

stamp=node_modules/.toolyard-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && [ -f node_modules/@modelcontextprotocol/sdk/package.json ]; then
  echo "MCP client already installed from this lock file"
else
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi

version="$(node -p 'require("./node_modules/@modelcontextprotocol/sdk/package.json").version')"
if [ "$version" != "1.32.2" ]; then
  echo "installed @modelcontextprotocol/sdk $version, expected 1.32.2" >&2
  exit 1
fi
echo "MCP TypeScript client @modelcontextprotocol/sdk $version ready (node $(node --version))"
