// `vthost serve` through the official MCP TypeScript SDK client (pinned
// 1.32.2) with StdioClientTransport: tool lists per profile, every tool
// with good and bad arguments, denials, elicitation, list_changed after
// search_tools, progress, ping during a long call, cancellation and a
// prompt exit on close.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv, catalogDir, ALLOW_ALL,
  sleep, text, aliveMarker,
} from "./lib.mjs";

requireClients();
const bin = vthostBin();
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema, ElicitRequestSchema, CreateMessageRequestSchema } = await import(
  "@modelcontextprotocol/sdk/types.js"
);

const DEFAULT_TOOLS = ["exec_command", "write_stdin", "apply_patch", "search_tools"];
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) removeWorkspace(w);
});

function workspace(toml = ALLOW_ALL) {
  const w = makeWorkspace(toml);
  workspaces.push(w);
  return w;
}

async function connect(ws, { profile, pluginDirs, capabilities = {} } = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args: serverArgs(ws, { profile, pluginDirs }),
    env: serverEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));

  const client = new Client({ name: "vthost-sdk-test", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  return client;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function checkToolShape(t) {
  assert.equal(typeof t.name, "string");
  assert.equal(typeof t.description, "string");
  assert.ok(t.description.length > 0);
  const s = t.inputSchema;
  assert.equal(s.type, "object", `${t.name}: inputSchema.type`);
  assert.equal(s.additionalProperties, false, `${t.name}: additionalProperties`);
  for (const [k, v] of Object.entries(s.properties ?? {}))
    assert.ok(v && typeof v === "object" && !Array.isArray(v), `${t.name}.${k} is an object`);
  assert.ok(s.properties.max_output_tokens, `${t.name}: max_output_tokens`);
  for (const r of s.required ?? []) assert.ok(s.properties[r], `${t.name}: required ${r} is a property`);
  for (const h of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
    assert.equal(typeof t.annotations?.[h], "boolean", `${t.name}: annotations.${h}`);
}

test("initialize: server info, capabilities, instructions", async () => {
  const c = await connect(workspace());
  assert.equal(c.getServerVersion().name, "vthost");
  assert.ok(c.getServerCapabilities().tools?.listChanged);
  assert.ok(c.getServerCapabilities().logging);
  const ins = c.getInstructions();
  assert.match(ins, /default/);
  assert.match(ins, /unix_like/);
  await c.ping();
});

test("default profile lists exactly the four tools, well-formed", async () => {
  const c = await connect(workspace());
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), DEFAULT_TOOLS);
  tools.forEach(checkToolShape);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.search_tools.annotations.readOnlyHint, true);
  assert.equal(byName.exec_command.annotations.readOnlyHint, false);
});

test("advanced profile lists five tools including code_search", async () => {
  const c = await connect(workspace(), { profile: "advanced" });
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...DEFAULT_TOOLS, "code_search"].sort());
  tools.forEach(checkToolShape);
  const ws = workspaces[workspaces.length - 1];
  writeFileSync(join(ws, "main.c"), "int vt_answer(void) { return 42; }\n");
  const r = await c.callTool({ name: "code_search", arguments: { query: "vt_answer" } });
  assert.ok(!r.isError, text(r));
  assert.match(JSON.stringify(r.structuredContent), /main\.c/);
  const bad = await c.callTool({ name: "code_search", arguments: { query: "x", max_results: 1000 } });
  assert.equal(bad.isError, true);
});

test("exec_command: good and bad arguments", async () => {
  const c = await connect(workspace());
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "printf 'sdk-%s' $((6*7))" } });
  assert.ok(!r.isError, text(r));
  assert.equal(r.structuredContent.exit_code, 0);
  assert.match(r.structuredContent.output, /sdk-42/);
  assert.match(text(r), /sdk-42/);
  for (const args of [{}, { cmd: 5 }, { cmd: "true", bogus: 1 }, { cmd: "true", max_output_tokens: 0 }]) {
    const bad = await c.callTool({ name: "exec_command", arguments: args });
    assert.equal(bad.isError, true, JSON.stringify(args));
    assert.ok(text(bad).length > 0);
  }
});

test("write_stdin: feeds a running session; bad session is an error", async () => {
  const c = await connect(workspace());
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  assert.ok(!r.isError, text(r));
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, `a session id: ${text(r)}`);
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "hello\n", yield_time_ms: 3000 } });
  assert.ok(!w.isError, text(w));
  assert.match(w.structuredContent.output, /got:hello/);
  const bad = await c.callTool({ name: "write_stdin", arguments: { session_id: 987654, chars: "x" } });
  assert.equal(bad.isError, true);
  const bad2 = await c.callTool({ name: "write_stdin", arguments: { chars: "x" } });
  assert.equal(bad2.isError, true);
});

test("apply_patch: edits the workspace; a bad patch changes nothing", async () => {
  const ws = workspace();
  const c = await connect(ws);
  const patch = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello from mcp\n*** End Patch\n";
  const r = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
  assert.ok(!r.isError, text(r));
  assert.equal(readFileSync(join(ws, "notes/hello.txt"), "utf8"), "hello from mcp\n");
  const bad = await c.callTool({ name: "apply_patch", arguments: { input: "*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n" } });
  assert.equal(bad.isError, true);
  assert.ok(!existsSync(join(ws, "missing.txt")));
  const bad2 = await c.callTool({ name: "apply_patch", arguments: { input: 7 } });
  assert.equal(bad2.isError, true);
});

test("search_tools expands a deferred tool: list_changed, refreshed list, callable", async () => {
  const dir = catalogDir();
  assert.ok(dir && existsSync(join(dir, "catalog_fixture.so")), `catalog fixture plugin in ${dir}`);
  const c = await connect(workspace(`[permissions]
allow = ["exec_command", "search_tools", "github_review_pull_request"]
`), { pluginDirs: [dir] });
  let changed = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  const before = (await c.listTools()).tools.map((t) => t.name);
  assert.deepEqual(before, DEFAULT_TOOLS);
  const bad = await c.callTool({ name: "search_tools", arguments: {} });
  assert.equal(bad.isError, true);
  const r = await c.callTool({ name: "search_tools", arguments: { query: "GitHub pull request review", limit: 2 } });
  assert.ok(!r.isError, text(r));
  await waitFor(() => changed > 0, 5000, "notifications/tools/list_changed");
  const after1 = (await c.listTools()).tools;
  const names = after1.map((t) => t.name);
  assert.deepEqual(names.slice(0, 4), DEFAULT_TOOLS);
  assert.ok(names.includes("github_review_pull_request"), names.join(","));
  after1.forEach(checkToolShape);
  // Deterministic: the same list again.
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), names);
  const call = await c.callTool({
    name: "github_review_pull_request",
    arguments: { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" },
  });
  assert.ok(!call.isError, text(call));
  assert.equal(call.structuredContent.tool, "github_review_pull_request");
});

test("a denied call is a result with isError and says what to do", async () => {
  const ws = workspace(`[permissions]
allow = ["exec_command"]
deny = ["exec_command(rm *)"]
`);
  writeFileSync(join(ws, "keep.txt"), "x");
  const c = await connect(ws);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "rm -f keep.txt" } });
  assert.equal(r.isError, true);
  assert.match(text(r), /deni|block/i);
  assert.ok(existsSync(join(ws, "keep.txt")));
});

test("unknown tool is JSON-RPC error -32602", async () => {
  const c = await connect(workspace());
  await assert.rejects(c.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);
});

test("permission prompts go to the client as elicitation", async () => {
  const ws = workspace(""); // no allow rules: exec_command asks
  const c = await connect(ws, { capabilities: { elicitation: {} } });
  const asked = [];
  let answer = "approve";
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: answer } };
  });
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo approved-run" } });
  assert.equal(asked.length, 1);
  assert.match(asked[0], /exec_command/);
  assert.ok(!ok.isError, text(ok));
  assert.match(ok.structuredContent.output, /approved-run/);
  answer = "deny";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo denied-run > out.txt" } });
  assert.equal(no.isError, true);
  assert.ok(!existsSync(join(ws, "out.txt")));
});

test("programs the command text runs are asked at run time through elicitation", async () => {
  // ls is allowed; `$X` is opaque up front, so touch is judged as it executes
  const ws = workspace('[permissions]\nallow = ["exec_command(ls)", "exec_command(ls *)"]\n');
  const c = await connect(ws, { capabilities: { elicitation: {} } });
  const asked = [];
  let answer = "approve";
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: answer } };
  });
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "ls; X=touch; $X asked-ok" } });
  assert.ok(!ok.isError, text(ok));
  assert.ok(asked.some((m) => /touch asked-ok/.test(m)), JSON.stringify(asked));
  assert.ok(existsSync(join(ws, "asked-ok")), text(ok));
  answer = "deny";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "ls; X=touch; $X asked-no" } });
  assert.ok(!existsSync(join(ws, "asked-no")));
  assert.equal(no.structuredContent?.denied_execs?.[0]?.program, "touch", text(no));
});

test("the auto reviewer asks the client's model through sampling (per-call agent)", async () => {
  const ws = workspace(`[permissions.auto]
model = "review-model"
`);
  mkdirSync(join(ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(ws, ".vtcode", "agents", "auto.md"), "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed agent.\n");
  const c = await connect(ws, { capabilities: { sampling: {} } });
  const asked = [];
  let verdict = "ALLOW: harmless echo";
  c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.push(req.params);
    return { role: "assistant", model: "review-model", content: { type: "text", text: verdict } };
  });
  const meta = { "vthost/agent": "auto" };
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo reviewed-run" }, _meta: meta });
  assert.ok(asked.length >= 1, "sampling/createMessage was sent");
  assert.match(JSON.stringify(asked[0].messages), /reviewed-run/);
  assert.equal(asked[0].modelPreferences?.hints?.[0]?.name, "review-model");
  assert.ok(!ok.isError, text(ok));
  assert.match(ok.structuredContent.output, /reviewed-run/);
  verdict = "BLOCK: not today";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo blocked > blocked.txt" }, _meta: meta });
  assert.equal(no.isError, true);
  assert.ok(!existsSync(join(ws, "blocked.txt")));
});

test("progress notifications for a long exec_command", async () => {
  const c = await connect(workspace());
  const seen = [];
  const r = await c.callTool(
    { name: "exec_command", arguments: { cmd: "sleep 2; echo finished", yield_time_ms: 10000 } },
    undefined,
    { onprogress: (p) => seen.push(p), timeout: 30000 },
  );
  assert.ok(!r.isError, text(r));
  assert.match(r.structuredContent.output, /finished/);
  assert.ok(seen.length >= 1, "at least one progress notification");
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
});

test("ping and other calls are answered during a long call", async () => {
  const c = await connect(workspace());
  let longDone = false;
  const long = c
    .callTool({ name: "exec_command", arguments: { cmd: "sleep 3; echo slow-done", yield_time_ms: 10000 } }, undefined, { timeout: 30000 })
    .then((r) => ((longDone = true), r));
  await sleep(200);
  const p0 = Date.now();
  await c.ping();
  assert.ok(Date.now() - p0 < 1000, "ping answered quickly");
  const quick = await c.callTool({ name: "exec_command", arguments: { cmd: "echo quick" } });
  assert.match(quick.structuredContent.output, /quick/);
  assert.equal(longDone, false, "the quick call was answered while the long one still ran");
  const r = await long;
  assert.match(r.structuredContent.output, /slow-done/);
});

test("cancelling a call ends its process", async () => {
  const ws = workspace();
  const c = await connect(ws);
  const ac = new AbortController();
  const marker1 = `30.${process.pid}1`;
  const pending = c.callTool(
    { name: "exec_command", arguments: { cmd: `echo $$ > pid.txt; exec sleep ${marker1}`, yield_time_ms: 20000 } },
    undefined,
    { signal: ac.signal, timeout: 60000 },
  );
  const pidFile = join(ws, "pid.txt");
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 5000, "the command to start");
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  assert.ok(pid > 0);
  // pid.txt is written just before the shell execs sleep: wait for the exec.
  await waitFor(() => aliveMarker(marker1), 5000, "the sleep to be exec'd");
  ac.abort("test cancels");
  await assert.rejects(pending);
  await waitFor(() => !aliveMarker(marker1), 5000, `process ${pid} to end after cancellation`);
  await c.ping(); // the server is fine
});

test("closing the client ends the server and its sessions promptly", async () => {
  const ws = workspace();
  const c = await connect(ws);
  // A session left running in the background of the server.
  const marker2 = `30.${process.pid}2`;
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: `echo $$ > pid2.txt; exec sleep ${marker2}`, yield_time_ms: 300 } });
  assert.ok(r.structuredContent.session_id !== undefined, text(r));
  const pid = Number(readFileSync(join(ws, "pid2.txt"), "utf8").trim());
  assert.ok(pid > 0);
  await waitFor(() => aliveMarker(marker2), 5000, "the sleep to be exec'd");
  const t0 = Date.now();
  await c.close();
  // The SDK sends SIGTERM 2 s after closing stdin; we must be gone first.
  assert.ok(Date.now() - t0 < 1900, `close took ${Date.now() - t0} ms`);
  await waitFor(() => !aliveMarker(marker2), 3000, `session process ${pid} to end`);
});

test("no server reported a sanitizer error or wrote noise to stderr", async () => {
  // close() returns once the server process has exited (its stderr is in)
  for (const c of clients) await c.close().catch(() => {});
  for (const c of clients) {
    const err = c.stderrText();
    assert.doesNotMatch(err, /Sanitizer|runtime error|LeakSanitizer/, err.slice(0, 4000));
  }
});
