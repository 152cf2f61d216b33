#!/usr/bin/env bash
# The real Cedar engine (@cedar-policy/cedar-wasm from npm) for toolyard-policy's tests, which evaluate
# exported Cedar policies in it on the same requests as ToolYard's own evaluator. Installed into
# toolyard-policy/src/test/cedar from its committed package.json and package-lock.json (node_modules is
# not committed). Idempotent: npm ci runs only when the installed version differs from the lock. With
# CI=true the Cedar tests fail rather than skip, so this script must leave the engine in place.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../toolyard-policy/src/test/cedar"

# Node and npm from Debian when missing (this step runs before setup-mcp-client.sh, which needs them too).
ci_require_tools "the Cedar engine" node=nodejs npm=npm

want=$(node -e 'console.log(require("./package-lock.json").packages["node_modules/@cedar-policy/cedar-wasm"].version)')
have=$(node -e 'try { console.log(require("./node_modules/@cedar-policy/cedar-wasm/package.json").version) } catch (e) { console.log("none") }')
if [ "$want" != "$have" ]; then
  npm ci --no-audit --no-fund
fi
node -e 'import("@cedar-policy/cedar-wasm/nodejs").then(c => console.log("setup-cedar: cedar-wasm " + c.getCedarVersion()))'
