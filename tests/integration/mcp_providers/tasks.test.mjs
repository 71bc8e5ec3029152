// Provider tools that run only as MCP tasks (2025-11-25,
// execution.taskSupport "required"): the reference server's
// simulate-research-query (@modelcontextprotocol/server-everything, pinned
// in reference/) is listed, found and callable through vthost, over MCP
// (the official SDK client) and with a one-shot `vthost call`; the raw
// provider's needs_task shows the task's progress relayed, and that the
// client's cancellation and the call's deadline reach the provider as
// tasks/cancel with the call ending at once.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { sleep, text, waitFor } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const everything = join(here, "reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
if (!existsSync(everything)) {
  console.error(`${everything} is missing: run ./setup.sh test (npm ci in tests/integration/mcp_providers/reference)`);
  process.exit(1);
}

const node = process.execPath;
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await sleep(300);
  for (const w of workspaces) removeWorkspace(w);
  for (const c of clients) assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
});

function workspace(timeout = 30) {
  const w = makeWorkspace("x");
  workspaces.push(w);
  writeFileSync(
    join(w, "vtcode.toml"),
    `[permissions]
allow = ["search_tools", "mcp__everything", "mcp__raw", "mcp__test"]

[mcp]
tool_timeout_seconds = ${timeout}
startup_timeout_seconds = 15

[[mcp.providers]]
name = "everything"
command = "${node}"
args = ["${everything}", "stdio"]

[[mcp.providers]]
name = "raw"
command = "${node}"
args = ["${join(here, "raw_provider.mjs")}"]
env = { RAW_MODE = "tasks", RAW_LOG = "${join(w, "raw.log")}" }

[[mcp.providers]]
name = "test"
command = "${node}"
args = ["${join(here, "sdk_provider.mjs")}"]
`,
  );
  return w;
}

async function connect(ws, capabilities = {}) {
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "vthost-tasks-test", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  return client;
}

async function search(c, query) {
  const r = await c.callTool({ name: "search_tools", arguments: { query, limit: 5 } });
  assert.ok(!r.isError, text(r));
  return r.structuredContent.tools.map((t) => t.name);
}

const rawLog = (ws) => (existsSync(join(ws, "raw.log")) ? readFileSync(join(ws, "raw.log"), "utf8") : "");

test("server-everything's task-only tool is listed, found and callable over MCP", async () => {
  const c = await connect(workspace());
  const found = await search(c, "simulates a deep research operation");
  assert.ok(found.includes("mcp__everything__simulate_research_query"), found.join(" "));
  const listed = (await c.listTools()).tools.find((t) => t.name === "mcp__everything__simulate_research_query");
  assert.ok(listed, "listed after the search");
  const progress = [];
  const r = await c.callTool(
    { name: "mcp__everything__simulate_research_query", arguments: { topic: "tardigrades" } },
    undefined,
    { onprogress: (p) => progress.push(p.message ?? ""), timeout: 30000 },
  );
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /# Research Report: tardigrades/);
  assert.match(text(r), /Stage 4: Generating report/);
  // the task's status messages, relayed as the call's progress
  assert.ok(progress.some((m) => /Gathering sources/.test(m)), `progress: ${JSON.stringify(progress)}`);
  assert.ok(progress.some((m) => /Generating report/.test(m)), `progress: ${JSON.stringify(progress)}`);
});

test("server-everything's task asks through vthost's client (input_required) and uses the answer", async () => {
  const c = await connect(workspace(), { elicitation: {} });
  const asked = [];
  c.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { interpretation: "snake" } };
  });
  assert.ok((await search(c, "simulates a deep research operation")).includes("mcp__everything__simulate_research_query"));
  const r = await c.callTool(
    { name: "mcp__everything__simulate_research_query", arguments: { topic: "python", ambiguous: true } },
    undefined,
    { timeout: 30000 },
  );
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /# Research Report: python \(snake\)/);
  assert.equal(asked.length, 1, JSON.stringify(asked));
  assert.match(asked[0], /^MCP server 'everything' asks: The research query "python" could have multiple interpretations/);
});

test("server-everything's task-only tool through a one-shot vthost call", () => {
  const ws = workspace();
  const args = serverArgs(ws).slice(0, -1);
  const r = spawnSync(bin, [...args, "--yes", "call", "mcp__everything__simulate_research_query", '{"topic":"lichens"}'], {
    env: serverEnv(),
    encoding: "utf8",
    timeout: 60000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /# Research Report: lichens/);
});

test("a task's own progress is relayed and its result comes back", async () => {
  const ws = workspace();
  const c = await connect(ws);
  assert.ok((await search(c, "runs only as an MCP task")).includes("mcp__raw__needs_task"));
  const progress = [];
  const r = await c.callTool({ name: "mcp__raw__needs_task", arguments: { ms: 600 } }, undefined, {
    onprogress: (p) => progress.push(p.message ?? ""),
  });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /raw needs_task done after 600 ms/);
  assert.ok(progress.includes("raw half"), `progress: ${JSON.stringify(progress)}`);
  assert.doesNotMatch(rawLog(ws), /cancel/, "a finished task is not cancelled");
});

test("cancelling the call cancels the task (tasks/cancel) at once", async (t) => {
  const ws = workspace();
  const c = await connect(ws);
  assert.ok((await search(c, "runs only as an MCP task")).includes("mcp__raw__needs_task"));
  const ac = new AbortController();
  const pending = c.callTool({ name: "mcp__raw__needs_task", arguments: { ms: -1 } }, undefined, {
    signal: ac.signal,
  });
  await sleep(700); // the task exists and is polled
  const t0 = Date.now();
  ac.abort();
  await assert.rejects(pending);
  await waitFor(() => /cancel raw-task-1/.test(rawLog(ws)), 5000, "tasks/cancel at the provider");
  const took = Date.now() - t0;
  assert.ok(took < 1500, `tasks/cancel ${took} ms after the client's cancellation`);
  t.diagnostic(`tasks/cancel reached the provider ${took} ms after the client's cancellation`);
  // the provider's call slot is free again
  const r = await c.callTool({ name: "mcp__raw__needs_task", arguments: { ms: 100 } });
  assert.match(text(r), /raw needs_task done/);
});

test("the call's deadline holds: the task is cancelled and the error says so", async (t) => {
  const ws = workspace(2);
  const c = await connect(ws);
  assert.ok((await search(c, "runs only as an MCP task")).includes("mcp__raw__needs_task"));
  const t0 = Date.now();
  const r = await c.callTool({ name: "mcp__raw__needs_task", arguments: { ms: -1 } }, undefined, { timeout: 20000 });
  const took = Date.now() - t0;
  assert.ok(r.isError, text(r));
  assert.match(text(r), /did not finish the task of 'needs_task' within 2 s .*cancelled it \(tasks\/cancel\)/);
  assert.ok(took < 4500, `ended ${took} ms after the call`);
  t.diagnostic(`a call with a 2 s deadline ended after ${took} ms`);
  assert.match(rawLog(ws), /cancel raw-task-1/);
});

// A task that needs the user's input (input_required): its elicitation
// comes while tasks/result waits and reaches the client that can answer.
test("a task's elicitation reaches a client that declared elicitation", async () => {
  const ws = workspace();
  const c = await connect(ws, { elicitation: {} });
  const asked = [];
  c.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  assert.ok((await search(c, "runs only as an MCP task")).includes("mcp__raw__needs_task"));
  const progress = [];
  const r = await c.callTool({ name: "mcp__raw__needs_task", arguments: { ask: true } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /raw needs_task answered: accept \{"name":"Ada"\}/);
  // the status, then progress under tasks/result's own token, in order
  assert.deepEqual(progress.map((p) => p.message),
    ["MCP task working: started", "MCP task input_required: needs a name", "raw waits for the answer"]);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, JSON.stringify(progress));
  assert.deepEqual(asked, ["MCP server 'raw' asks: Which name?"]);
});

// An elicitation no one can answer is refused at once (the provider goes
// on without it): tool_timeout_seconds is 60 here, the calls end in a
// few seconds.
const refusedFast = (t, took, what) => {
  assert.ok(took < 8000, `${what}: ended after ${took} ms`);
  t.diagnostic(`${what}: the call ended after ${took} ms (tool_timeout_seconds 60)`);
};

test("a task's elicitation is refused at once for a client without elicitation", async (t) => {
  const ws = workspace(60);
  const c = await connect(ws);
  assert.ok((await search(c, "runs only as an MCP task")).includes("mcp__raw__needs_task"));
  const t0 = Date.now();
  const r = await c.callTool({ name: "mcp__raw__needs_task", arguments: { ask: true } }, undefined, { timeout: 90000 });
  refusedFast(t, Date.now() - t0, "over MCP");
  assert.match(text(r), /raw needs_task answered: error -32000: .*did not declare the elicitation capability/);
});

for (const [tool, args, expect] of [
  ["mcp__raw__needs_task", '{"ask":true}', /raw needs_task answered: error -32000: .*no MCP client to ask/],
  ["mcp__test__ask_name", '{"raw":true}', /fallback: hello stranger .*no MCP client to ask/],
]) {
  test(`a one-shot vthost call without a terminal refuses ${tool}'s elicitation at once`, (t) => {
    const ws = workspace(60);
    const t0 = Date.now();
    const r = spawnSync(bin, [...serverArgs(ws).slice(0, -1), "call", tool, args], {
      env: serverEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 90000,
    });
    refusedFast(t, Date.now() - t0, "vthost call");
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, expect);
  });
}

// The same over Streamable HTTP: server-everything serving HTTP, a
// one-shot call completes, and one past its deadline is cancelled there.
async function freePort() {
  const s = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => s.once("listening", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

test("server-everything over Streamable HTTP: the task runs, and is cancelled at the deadline", async () => {
  const port = await freePort();
  const srv = spawn(node, [everything, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  srv.stderr.on("data", (d) => (log += d));
  try {
    await waitFor(() => /listening on port/.test(log), 15000, "server-everything to listen");
    const run = (timeout) => {
      const ws = makeWorkspace("x");
      workspaces.push(ws);
      writeFileSync(join(ws, "vtcode.toml"), `[permissions]
allow = ["mcp__web"]
[mcp]
tool_timeout_seconds = ${timeout}
[[mcp.providers]]
name = "web"
endpoint = "http://127.0.0.1:${port}/mcp"
`);
      const t0 = Date.now();
      const r = spawnSync(bin, [...serverArgs(ws).slice(0, -1), "call", "mcp__web__simulate_research_query", '{"topic":"moss"}'], {
        env: serverEnv(), encoding: "utf8", timeout: 60000,
      });
      return { ...r, took: Date.now() - t0 };
    };
    const ok = run(30);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /# Research Report: moss/);
    const late = run(2);
    assert.equal(late.status, 1, late.stdout + late.stderr);
    assert.match(late.stdout, /did not finish the task of 'simulate-research-query' within 2 s .*cancelled it \(tasks\/cancel\)/);
    assert.ok(late.took < 5000, `ended after ${late.took} ms`);
  } finally {
    srv.kill();
  }
});
