// Honest refusals through the official SDK client: a prompt the user
// answers "deny", one the client declines (as `codex exec` does for every
// prompt) and one it cancels (as `claude -p` does) each say what happened,
// and keep what the prompt was about (a protected path, an escalation).
// In every case the command or edit must not have happened.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "./lib.mjs";

requireClients();
const bin = vthostBin();
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");

const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) removeWorkspace(w);
  for (const c of clients) assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
});
const text = (r) => r.content?.[0]?.text ?? "";

// A client with elicitation whose every prompt gets `reply`.
async function connect(reply) {
  const ws = makeWorkspace(""); // no rules: commands and edits ask
  workspaces.push(ws);
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const c = new Client({ name: "vthost-refusals-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  c.asked = [];
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    c.asked.push(req.params.message);
    return reply;
  });
  await c.connect(transport);
  clients.push(c);
  c.stderrText = () => stderr;
  c.ws = ws;
  return c;
}

const cases = [
  ["the user refused", { action: "accept", content: { decision: "deny" } }, /the user refused/, /declined|dismissed/],
  ["declined", { action: "decline" }, /the user declined the approval prompt/, /user refused|denied by the user|no decision/],
  ["cancelled", { action: "cancel" }, /the approval prompt was dismissed without a decision/, /user refused|denied by the user|declined/],
];

for (const [name, reply, says, never] of cases) {
  test(`a command prompt ${name}: said so, and nothing ran`, async () => {
    const c = await connect(reply);
    const r = await c.callTool({ name: "exec_command", arguments: { cmd: "touch ran.marker" } });
    assert.equal(r.isError, true);
    assert.equal(c.asked.length, 1);
    assert.match(text(r), says);
    assert.doesNotMatch(text(r), never);
    assert.ok(!existsSync(join(c.ws, "ran.marker")));
  });

  test(`a protected-path prompt ${name}: the reason stays in the refusal`, async () => {
    const c = await connect(reply);
    const patch = "*** Begin Patch\n*** Add File: .vscode/settings.json\n+{}\n*** End Patch\n";
    const r = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
    assert.equal(r.isError, true);
    assert.equal(c.asked.length, 1);
    assert.match(c.asked[0], /protected path/);
    assert.match(text(r), says);
    assert.match(text(r), /protected path .*\.vscode\/settings\.json/);
    assert.ok(!existsSync(join(c.ws, ".vscode/settings.json")));
  });

  test(`an escalation prompt ${name}: the reason stays in the refusal`, async () => {
    const c = await connect(reply);
    const r = await c.callTool({
      name: "exec_command",
      arguments: { cmd: "touch esc.marker", sandbox_permissions: "require_escalated", justification: "needs the network" },
    });
    assert.equal(r.isError, true);
    assert.match(text(r), says);
    assert.match(text(r), /outside the sandbox/);
    assert.ok(!existsSync(join(c.ws, "esc.marker")));
  });
}

test("a client without elicitation: no prompt is possible, said as such", async () => {
  const ws = makeWorkspace("");
  workspaces.push(ws);
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const c = new Client({ name: "vthost-refusals-test", version: "1.0.0" }, { capabilities: {} });
  await c.connect(transport);
  clients.push(c);
  c.stderrText = () => stderr;
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "touch ran.marker" } });
  assert.equal(r.isError, true);
  assert.match(text(r), /no prompt is possible here/);
  assert.doesNotMatch(text(r), /user refused|declined|cancelled/);
  assert.ok(!existsSync(join(ws, "ran.marker")));
});
