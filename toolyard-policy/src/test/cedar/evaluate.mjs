// Evaluates Cedar policies in the real engine (@cedar-policy/cedar-wasm) for toolyard-policy's tests.
// Input (a file named by argv[2]): {"policies": "<Cedar text>", "requests": [{principal, action, resource, context}]}.
// Output (stdout): {"parse": "ok" | "<errors>", "decisions": ["allow" | "deny" | "error: ...", ...]}.
import { readFileSync } from 'node:fs';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const parsed = cedar.checkParsePolicySet({ staticPolicies: input.policies });
const out = { engine: cedar.getCedarVersion ? cedar.getCedarVersion() : 'unknown', parse: 'ok', decisions: [] };
if (parsed.type !== 'success') {
  out.parse = JSON.stringify(parsed.errors);
} else {
  for (const r of input.requests) {
    const answer = cedar.isAuthorized({
      principal: r.principal, action: r.action, resource: r.resource, context: r.context,
      policies: { staticPolicies: input.policies }, entities: [],
    });
    if (answer.type !== 'success') {
      out.decisions.push('error: ' + JSON.stringify(answer.errors));
    } else {
      out.decisions.push(answer.response.decision);
    }
  }
}
process.stdout.write(JSON.stringify(out));
