// `vthost serve` through the official MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned in package-lock.json) over stdio,
// negotiating 2026-07-28 (versionNegotiation auto: the server/discover
// probe, no initialize): the scenarios of ../mcp/sdk_client.test.mjs in
// the stateless era.  Approvals and the auto reviewer's sampling arrive
// as input_required and are answered by the same handlers a 2025 client
// registers; the retry runs the call once.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "@modelcontextprotocol", "client", "package.json"))) {
  console.error(`The SDK v2 client is not installed. Run ./setup.sh test, or: npm ci --prefix ${here}`);
  process.exit(1);
}
const bin = process.env.VTHOST_BIN;
if (!bin || !existsSync(bin)) {
  console.error(`VTHOST_BIN is not set to the built vthost (got ${bin})`);
  process.exit(1);
}
const { Client } = await import("@modelcontextprotocol/client");
const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");

const DEFAULT_TOOLS = ["exec_command", "write_stdin", "apply_patch", "search_tools"];
const ALLOW_ALL = `[permissions]
allow = ["exec_command", "write_stdin", "apply_patch", "search_tools", "code_search"]
`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (r) => r.content?.[0]?.text ?? "";
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) rmSync(w, { recursive: true, force: true });
});

function workspace(toml = ALLOW_ALL) {
  const w = mkdtempSync(join(tmpdir(), "vthost-mcp2026-"));
  if (toml) writeFileSync(join(w, "vtcode.toml"), toml);
  workspaces.push(w);
  return w;
}

async function connect(ws, { profile, pluginDirs = [], capabilities = {}, listChanged } = {}) {
  const args = ["--workspace", ws];
  if (existsSync(join(ws, "vtcode.toml"))) args.push("--config", join(ws, "vtcode.toml"));
  if (profile) args.push("--profile", profile);
  for (const d of pluginDirs) args.push("--plugin-dir", d);
  args.push("serve");
  const transport = new StdioClientTransport({ command: bin, args, env: { ...process.env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client(
    { name: "vthost-sdk-v2-test", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: "auto" }, ...(listChanged && { listChanged }) },
  );
  await client.connect(transport);
  clients.push(client);
  // every scenario below runs in the stateless era, never a fallback
  assert.equal(client.getProtocolEra(), "modern", "negotiated the 2026-07-28 era");
  client.stderrText = () => stderr;
  return client;
}

async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function aliveMarker(marker) {
  let dirs = [];
  try {
    dirs = readdirSync("/proc");
  } catch {}
  for (const d of dirs) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      const a = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (a.includes(marker) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") return true;
    } catch {}
  }
  return false;
}

function checkToolShape(t) {
  assert.equal(typeof t.name, "string");
  assert.ok(t.description.length > 0);
  assert.equal(t.inputSchema.type, "object", `${t.name}: inputSchema.type`);
  assert.ok(t.inputSchema.properties.max_output_tokens, `${t.name}: max_output_tokens`);
  for (const h of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
    assert.equal(typeof t.annotations?.[h], "boolean", `${t.name}: annotations.${h}`);
}

const runs = (ws) => (existsSync(join(ws, "count.txt")) ? readFileSync(join(ws, "count.txt"), "utf8").split("\n").filter(Boolean).length : 0);

test("negotiates 2026-07-28 through server/discover: identity and instructions", async () => {
  const c = await connect(workspace());
  assert.equal(c.getProtocolEra(), "modern");
  assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
  assert.equal(c.getServerVersion()?.name, "vthost");
  assert.ok(c.getServerCapabilities()?.tools?.listChanged);
  assert.match(c.getInstructions() ?? "", /default/);
});

test("default profile lists exactly the four tools, well-formed", async () => {
  const c = await connect(workspace());
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), DEFAULT_TOOLS);
  tools.forEach(checkToolShape);
});

test("advanced profile lists five tools including code_search", async () => {
  const ws = workspace();
  const c = await connect(ws, { profile: "advanced" });
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...DEFAULT_TOOLS, "code_search"].sort());
  writeFileSync(join(ws, "main.c"), "int vt_answer(void) { return 42; }\n");
  const r = await c.callTool({ name: "code_search", arguments: { query: "vt_answer" } });
  assert.ok(!r.isError, text(r));
  assert.match(JSON.stringify(r.structuredContent), /main\.c/);
  const bad = await c.callTool({ name: "code_search", arguments: { query: "x", max_results: 1000 } });
  assert.equal(bad.isError, true);
});

test("exec_command: good and bad arguments", async () => {
  const c = await connect(workspace());
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "printf 'v2-%s' $((6*7))" } });
  assert.ok(!r.isError, text(r));
  assert.equal(r.structuredContent.exit_code, 0);
  assert.match(r.structuredContent.output, /v2-42/);
  for (const args of [{}, { cmd: 5 }, { cmd: "true", bogus: 1 }, { cmd: "true", max_output_tokens: 0 }]) {
    const bad = await c.callTool({ name: "exec_command", arguments: args });
    assert.equal(bad.isError, true, JSON.stringify(args));
  }
});

test("write_stdin: feeds a running session; bad session is an error", async () => {
  const c = await connect(workspace());
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, `a session id: ${text(r)}`);
  assert.match(String(sid), /^[0-9a-f]{32}$/, "an opaque handle, not the plugin's counter");
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "hello\n", yield_time_ms: 3000 } });
  assert.ok(!w.isError, text(w));
  assert.match(w.structuredContent.output, /got:hello/);
  const bad = await c.callTool({ name: "write_stdin", arguments: { session_id: 987654, chars: "x" } });
  assert.equal(bad.isError, true);
});

test("apply_patch: edits the workspace; a bad patch changes nothing", async () => {
  const ws = workspace();
  const c = await connect(ws);
  const patch = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello from 2026\n*** End Patch\n";
  const r = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
  assert.ok(!r.isError, text(r));
  assert.equal(readFileSync(join(ws, "notes/hello.txt"), "utf8"), "hello from 2026\n");
  const bad = await c.callTool({ name: "apply_patch", arguments: { input: "*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n" } });
  assert.equal(bad.isError, true);
  assert.ok(!existsSync(join(ws, "missing.txt")));
});

test("search_tools: the change comes on the subscriptions/listen stream; the list refreshes", async () => {
  const dir = process.env.VTHOST_CATALOG_DIR;
  assert.ok(dir && existsSync(join(dir, "catalog_fixture.so")), `catalog fixture plugin in ${dir}`);
  let changed = 0;
  const c = await connect(
    workspace('[permissions]\nallow = ["exec_command", "search_tools", "github_review_pull_request"]\n'),
    { pluginDirs: [dir], listChanged: { tools: { onChanged: () => changed++ } } },
  );
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), DEFAULT_TOOLS);
  const r = await c.callTool({ name: "search_tools", arguments: { query: "GitHub pull request review", limit: 2 } });
  assert.ok(!r.isError, text(r));
  await waitFor(() => changed > 0, 5000, "notifications/tools/list_changed on the subscription");
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.deepEqual(names.slice(0, 4), DEFAULT_TOOLS);
  assert.ok(names.includes("github_review_pull_request"), names.join(","));
  const call = await c.callTool({
    name: "github_review_pull_request",
    arguments: { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" },
  });
  assert.ok(!call.isError, text(call));
});

test("a denied call is a result with isError", async () => {
  const ws = workspace('[permissions]\nallow = ["exec_command"]\ndeny = ["exec_command(rm *)"]\n');
  writeFileSync(join(ws, "keep.txt"), "x");
  const c = await connect(ws);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "rm -f keep.txt" } });
  assert.equal(r.isError, true);
  assert.ok(existsSync(join(ws, "keep.txt")));
});

test("unknown tool is JSON-RPC error -32602", async () => {
  const c = await connect(workspace());
  await assert.rejects(c.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);
});

test("approvals come as input_required; approve runs once, deny runs nothing", async () => {
  const ws = workspace(""); // no allow rules: exec_command asks
  const c = await connect(ws, { capabilities: { elicitation: {} } });
  const asked = [];
  let answer = "approve";
  c.setRequestHandler("elicitation/create", async (req, ctx) => {
    asked.push(req.params.message);
    // fulfilled from an input_required result: the id is its inputRequests key
    assert.match(String(ctx?.mcpReq?.id), /^vthost-approval-/);
    return { action: "accept", content: { decision: answer } };
  });
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo approved-run >> count.txt" } });
  assert.equal(asked.length, 1);
  assert.match(asked[0], /exec_command/);
  assert.ok(!ok.isError, text(ok));
  assert.equal(runs(ws), 1, "the approved call ran exactly once");
  answer = "deny";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo denied-run >> count.txt" } });
  assert.equal(asked.length, 2);
  assert.equal(no.isError, true);
  assert.equal(runs(ws), 1, "the denied call ran nothing");
});

test("a program asked at run time is refused: the command is not run again", async () => {
  const ws = workspace('[permissions]\nallow = ["exec_command(ls)", "exec_command(ls *)"]\n');
  const c = await connect(ws, { capabilities: { elicitation: {} } });
  let asked = 0;
  c.setRequestHandler("elicitation/create", async () => {
    asked++;
    return { action: "accept", content: { decision: "approve" } };
  });
  // ls is allowed; `$X` is opaque up front, so touch is judged as it
  // executes, when no request to the client is possible in this era
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "ls; X=touch; $X asked-late" } });
  assert.equal(r.resultType ?? "complete", "complete");
  assert.equal(asked, 0, "nobody is asked while the command runs");
  assert.ok(!existsSync(join(ws, "asked-late")));
  assert.equal(r.structuredContent?.denied_execs?.[0]?.program, "touch", text(r));
});

test("the auto reviewer asks the client's model through input_required sampling", async () => {
  const ws = workspace('[permissions.auto]\nmodel = "review-model"\n');
  mkdirSync(join(ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(ws, ".vtcode", "agents", "auto.md"), "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed agent.\n");
  const c = await connect(ws, { capabilities: { sampling: {} } });
  const asked = [];
  let verdict = "ALLOW: harmless echo";
  c.setRequestHandler("sampling/createMessage", async (req, ctx) => {
    assert.match(String(ctx?.mcpReq?.id), /^vthost-review-/);
    asked.push(req.params);
    return { role: "assistant", model: "review-model", content: { type: "text", text: verdict } };
  });
  const meta = { "vthost/agent": "auto" };
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo reviewed-run >> count.txt" }, _meta: meta });
  assert.ok(asked.length >= 1, "sampling/createMessage was asked");
  assert.match(JSON.stringify(asked[0].messages), /reviewed-run/);
  assert.equal(asked[0].modelPreferences?.hints?.[0]?.name, "review-model");
  assert.ok(!ok.isError, text(ok));
  assert.equal(runs(ws), 1);
  verdict = "BLOCK: not today";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo blocked >> count.txt" }, _meta: meta });
  assert.equal(no.isError, true);
  assert.equal(runs(ws), 1);
});

test("progress notifications for a long exec_command", async () => {
  const c = await connect(workspace());
  const seen = [];
  const r = await c.callTool(
    { name: "exec_command", arguments: { cmd: "sleep 2; echo finished", yield_time_ms: 10000 } },
    { onprogress: (p) => seen.push(p), timeout: 30000 },
  );
  assert.ok(!r.isError, text(r));
  assert.match(r.structuredContent.output, /finished/);
  assert.ok(seen.length >= 1, "at least one progress notification");
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
});

test("other requests are answered during a long call", async () => {
  const c = await connect(workspace());
  let longDone = false;
  const long = c
    .callTool({ name: "exec_command", arguments: { cmd: "sleep 3; echo slow-done", yield_time_ms: 10000 } }, { timeout: 30000 })
    .then((r) => ((longDone = true), r));
  await sleep(200);
  const t0 = Date.now();
  await c.listTools({}, { cache: "bypass" }).catch(() => c.listTools());
  assert.ok(Date.now() - t0 < 1000, "tools/list answered quickly");
  const quick = await c.callTool({ name: "exec_command", arguments: { cmd: "echo quick" } });
  assert.match(quick.structuredContent.output, /quick/);
  assert.equal(longDone, false);
  assert.match((await long).structuredContent.output, /slow-done/);
});

test("cancelling a call ends its process", async () => {
  const ws = workspace();
  const c = await connect(ws);
  const ac = new AbortController();
  const marker = `31.${process.pid}1`;
  const pending = c.callTool(
    { name: "exec_command", arguments: { cmd: `echo $$ > pid.txt; exec sleep ${marker}`, yield_time_ms: 20000 } },
    { signal: ac.signal, timeout: 60000 },
  );
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to be exec'd");
  ac.abort("test cancels");
  await assert.rejects(pending);
  await waitFor(() => !aliveMarker(marker), 5000, "the process to end after cancellation");
  assert.ok((await c.listTools()).tools.length > 0, "the server is fine");
});

test("closing the client ends the server and its sessions promptly", async () => {
  const ws = workspace();
  const c = await connect(ws);
  const marker = `31.${process.pid}2`;
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: `exec sleep ${marker}`, yield_time_ms: 300 } });
  assert.ok(r.structuredContent.session_id !== undefined, text(r));
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to be exec'd");
  const t0 = Date.now();
  await c.close();
  assert.ok(Date.now() - t0 < 1900, `close took ${Date.now() - t0} ms`);
  await waitFor(() => !aliveMarker(marker), 3000, "the session process to end");
});

test("no server reported a sanitizer error", async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const c of clients) assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error/);
});
