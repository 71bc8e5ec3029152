// The auto reviewer's probe model, through the official SDK client's
// sampling handler: the probe ([permissions.auto] probe_model) is asked
// first with a short prompt and its model hint; the full model
// ([permissions.auto] model) only when the probe is not confident (ALLOW
// LOW, BLOCK LOW, UNSURE).  Both answers are in the audit log.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "./lib.mjs";

requireClients();
const bin = vthostBin();
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { CreateMessageRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");

const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) removeWorkspace(w);
});

const CONFIG = `[permissions]
audit_enabled = true

[permissions.auto]
model = "full-model"
probe_model = "probe-model"
max_consecutive_denials = 10
max_total_denials = 10
`;

// A server whose agent "auto" sends every exec_command to review; the
// sampling handler answers by the model hint from `answers`.
async function reviewed(answers) {
  const ws = makeWorkspace(CONFIG);
  workspaces.push(ws);
  mkdirSync(join(ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(ws, ".vtcode", "agents", "auto.md"),
    "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed agent.\n");
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe" });
  const client = new Client({ name: "probe-test", version: "1.0.0" }, { capabilities: { sampling: {} } });
  const asked = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const hint = req.params.modelPreferences?.hints?.[0]?.name ?? "";
    asked.push({ hint, system: req.params.systemPrompt ?? "", text: JSON.stringify(req.params.messages) });
    const answer = answers[hint];
    if (answer === undefined) throw new Error(`no answer for model hint '${hint}'`);
    return { role: "assistant", model: hint, content: { type: "text", text: answer } };
  });
  await client.connect(transport);
  clients.push(client);
  const call = (cmd) => client.callTool({ name: "exec_command", arguments: { cmd }, _meta: { "vthost/agent": "auto" } });
  const audit = () => readFileSync(join(ws, ".vtcode", "audit", "permissions.jsonl"), "utf8")
    .trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.review);
  return { ws, asked, call, audit };
}

test("a confident probe decides alone: the full model is never asked", async () => {
  const s = await reviewed({ "probe-model": "ALLOW HIGH: prints a word" });
  const r = await s.call("echo probed-run");
  assert.ok(!r.isError, JSON.stringify(r));
  assert.match(r.structuredContent.output, /probed-run/);
  assert.deepEqual(s.asked.map((a) => a.hint), ["probe-model"]);
  assert.match(s.asked[0].text, /probed-run/);
  const full = s.audit().at(-1).review;
  assert.equal(full.stage, "probe");
  assert.equal(full.outcome, "allow");
  assert.equal(full.probe.model, "probe-model");
  assert.equal(full.probe.answer, "allow");
});

test("a confident probe BLOCK stops the call without the full model", async () => {
  const s = await reviewed({ "probe-model": "BLOCK HIGH: writes a file" });
  const r = await s.call("echo x > probe-blocked.txt");
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /probe/);
  assert.ok(!existsSync(join(s.ws, "probe-blocked.txt")));
  assert.deepEqual(s.asked.map((a) => a.hint), ["probe-model"]);
  assert.equal(s.audit().at(-1).review.stage, "probe");
  assert.equal(s.audit().at(-1).review.probe.answer, "block");
});

for (const unsure of ["UNSURE: cannot tell", "ALLOW LOW: maybe", "BLOCK LOW: maybe not", "I think so"]) {
  test(`an unconfident probe ("${unsure}") goes to the full model, which decides`, async () => {
    const s = await reviewed({ "probe-model": unsure, "full-model": "BLOCK: the full model says no" });
    const r = await s.call("echo y > full-blocked.txt");
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /the full model says no/);
    assert.ok(!existsSync(join(s.ws, "full-blocked.txt")));
    assert.deepEqual(s.asked.map((a) => a.hint), ["probe-model", "full-model"]);
    // the probe's prompt is the short one
    assert.ok(s.asked[0].system.length < s.asked[1].system.length, "the probe prompt is shorter");
    assert.ok(s.asked[0].text.length < s.asked[1].text.length, "the probe sees less");
    const rev = s.audit().at(-1).review;
    assert.equal(rev.stage, "sampling");
    assert.equal(rev.model, "full-model");
    assert.equal(rev.outcome, "block");
    assert.equal(rev.probe.model, "probe-model");
    assert.equal(rev.probe.answer, "unsure");
  });
}

test("without probe_model only the full model is asked", async () => {
  const ws = makeWorkspace(CONFIG.replace('probe_model = "probe-model"\n', ""));
  workspaces.push(ws);
  mkdirSync(join(ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(ws, ".vtcode", "agents", "auto.md"),
    "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed agent.\n");
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe" });
  const client = new Client({ name: "probe-test", version: "1.0.0" }, { capabilities: { sampling: {} } });
  const hints = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    hints.push(req.params.modelPreferences?.hints?.[0]?.name);
    return { role: "assistant", model: "m", content: { type: "text", text: "ALLOW: fine" } };
  });
  await client.connect(transport);
  clients.push(client);
  const r = await client.callTool({ name: "exec_command", arguments: { cmd: "echo plain" }, _meta: { "vthost/agent": "auto" } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.deepEqual(hints, ["full-model"]);
});
