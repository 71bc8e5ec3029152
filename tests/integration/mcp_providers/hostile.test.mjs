// Hostile providers stay bounded (docs/mcp-providers.md, "Hostile
// providers"): a flood of requests for the client is refused past the
// call's and the provider's bounds, never buffered, and nothing reaches
// the client once the call is over; a crashed provider whose helper
// holds its stdout fails its call at once and the helper is killed; a
// wrong [[mcp.providers]] entry disables that provider only.  Real
// provider processes (stdio) and a real HTTP server on 127.0.0.1.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { sleep, text, waitFor, alive } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const node = process.execPath;
const workspaces = [];
const clients = [];
const servers = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const s of servers) s.kill("SIGKILL");
  await sleep(300);
  for (const w of workspaces) removeWorkspace(w);
  for (const c of clients)
    assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
});

const kib = (pid, field) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))[1]);

function workspace({ mcp = "", extra = "", timeout = 4 } = {}) {
  const w = makeWorkspace("x");
  workspaces.push(w);
  writeFileSync(join(w, "vtcode.toml"), `[permissions]
allow = ["search_tools", "mcp__hostile", "mcp__web", "mcp__ok"]

[mcp]
tool_timeout_seconds = ${timeout}
startup_timeout_seconds = 8
${mcp}

[[mcp.providers]]
name = "hostile"
command = "${node}"
args = ["${join(here, "hostile_provider.mjs")}"]
env = { HOSTILE_LOG = "${join(w, "flood.log")}", HOSTILE_PIDFILE = "${join(w, "helper.pid")}" }
${extra}
`);
  return w;
}

// A client that declares elicitation; `answer` false: it never answers.
async function connect(ws, { answer = false, env = {} } = {}) {
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(env), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "vthost-hostile-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.prompts = [];
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    client.prompts.push(Date.now());
    return answer ? { action: "accept", content: { a: "x" } } : new Promise(() => {});
  });
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  client.pid = transport.pid;
  return client;
}

async function search(c, query) {
  const r = await c.callTool({ name: "search_tools", arguments: { query, limit: 10 } });
  assert.ok(!r.isError, text(r));
  return r.structuredContent.tools.map((t) => t.name);
}
const floodLog = (ws) => (existsSync(join(ws, "flood.log")) ? readFileSync(join(ws, "flood.log"), "utf8") : "");
const counts = (s) => {
  const m = s.match(/answered (\d+) refused (\d+)/);
  return m ? { answered: Number(m[1]), refused: Number(m[2]) } : { answered: 0, refused: 0 };
};

// The call ends at tool_timeout_seconds (4 s); the client saw its prompts
// before the deadline only.
async function floodNeverAnswered(c, tool, n) {
  const t0 = Date.now();
  const r = await c.callTool({ name: tool, arguments: { n } }, undefined, { timeout: 60000 });
  const took = Date.now() - t0;
  assert.equal(r.isError, true, text(r));
  assert.match(text(r), /did not answer tools\/call within 4 s/);
  assert.ok(took < 4000 + 2500, `the call ended after ${took} ms, its timeout is 4000`);
  await sleep(1500);  // anything still on its way to the client arrives
  const late = c.prompts.filter((t) => t > t0 + 4000 + 250);
  assert.equal(late.length, 0, `${late.length} prompts reached the client after the deadline`);
  assert.ok(c.prompts.length >= 1 && c.prompts.length <= 16, `${c.prompts.length} prompts`);
  return took;
}

test("stdio: a flood of 20,000 requests, a client that never answers: the call ends at its timeout", async () => {
  const ws = workspace();
  const c = await connect(ws);
  assert.ok((await search(c, "hostile flood")).includes("mcp__hostile__flood"));
  await floodNeverAnswered(c, "mcp__hostile__flood", 20000);
  // every request was answered to the provider (refused), none buffered
  await waitFor(() => counts(floodLog(ws)).refused + counts(floodLog(ws)).answered === 20000, 20000,
    `all 20,000 requests refused (${floodLog(ws)})`);
  assert.match(floodLog(ws), /-32000/);
  // the provider and vthost still work
  await search(c, "hostile ok");
  const ok = await c.callTool({ name: "mcp__hostile__ok", arguments: {} });
  assert.match(text(ok), /hostile ok/);
});

test("stdio: a flood of 100,000 requests keeps vthost's memory bounded", async () => {
  const ws = workspace();
  // ASan's quarantine would otherwise hold every freed message
  const c = await connect(ws, { env: { ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?? ""}:quarantine_size_mb=16` } });
  await search(c, "hostile flood");
  await search(c, "hostile ok");
  await c.callTool({ name: "mcp__hostile__ok", arguments: {} });
  const before = kib(c.pid, "VmRSS");
  await floodNeverAnswered(c, "mcp__hostile__flood", 100000);
  await waitFor(() => counts(floodLog(ws)).refused + counts(floodLog(ws)).answered === 100000, 60000,
    `all 100,000 requests refused (${floodLog(ws)})`);
  const peak = kib(c.pid, "VmHWM");
  console.log(`100,000 requests over stdio: RSS ${before} KiB before, peak ${peak} KiB`);
  // unbounded, the queue held 197 MiB at 100,000 requests
  assert.ok(peak - before < 40 * 1024, `RSS ${before} KiB before, peak ${peak} KiB`);
});

test("stdio: an answering client gets at most max_relayed_requests_per_call, and per minute per provider", async () => {
  const ws = workspace({ mcp: "max_relayed_requests_per_call = 5\nmax_relayed_requests_per_minute = 8" });
  const c = await connect(ws, { answer: true });
  await search(c, "hostile flood");
  const r = await c.callTool({ name: "mcp__hostile__flood", arguments: { n: 2000 } });
  assert.ok(!r.isError, text(r));
  assert.equal(counts(text(r)).answered, 5, text(r));
  assert.equal(counts(text(r)).refused, 1995, text(r));
  assert.match(text(r), /max_relayed_requests_per_call/);
  assert.equal(c.prompts.length, 5);
  // the provider's budget: 8 a minute, 5 used
  const r2 = await c.callTool({ name: "mcp__hostile__flood", arguments: { n: 10 } });
  assert.equal(counts(text(r2)).answered, 3, text(r2));
  assert.match(text(r2), /max_relayed_requests_per_minute/);
  assert.equal(c.prompts.length, 8);
});

async function httpProvider() {
  const server = spawn(node, [join(here, "hostile_http_provider.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(server);
  const port = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening (\d+)/);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error(`hostile_http_provider.mjs exited with ${code}`)));
  });
  return { port, stats: async () => (await fetch(`http://127.0.0.1:${port}/stats`)).json() };
}

// The TCP connections process `pid` holds to `port`, as "LOCALPORT:STATE"
// (/proc/net/tcp: 01 established, 08 close-wait, ...): whether a stream
// the provider still counts open (its `streams`, by vthost's port) is
// still vthost's, or only the provider's.
function heldTo(pid, port) {
  const mine = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) mine.add(m[1]);
    } catch {}
  }
  const states = [];
  for (const f of ["tcp", "tcp6"]) {
    let t = "";
    try { t = readFileSync(`/proc/${pid}/net/${f}`, "utf8"); } catch { continue; }
    for (const line of t.split("\n").slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length > 9 && parseInt(c[2].split(":")[1], 16) === Number(port) && mine.has(c[9]))
        states.push(`${parseInt(c[1].split(":")[1], 16)}:${c[3]}`);
    }
  }
  return states;
}

test("HTTP: a flood of 20,000 requests on the call's stream ends at its timeout, nothing relayed after", async () => {
  const { port, stats } = await httpProvider();
  const ws = workspace({ extra: `
[[mcp.providers]]
name = "web"
endpoint = "http://127.0.0.1:${port}/mcp"
` });
  const c = await connect(ws);
  assert.ok((await search(c, "hostile http flood")).includes("mcp__web__flood"));
  await floodNeverAnswered(c, "mcp__web__flood", 20000);
  // vthost stopped at the deadline: one request relayed (refused at the
  // deadline), none of the rest answered
  let s = await stats();
  assert.ok(s.answered === 0 && s.refused >= 1 && s.refused < 20000, JSON.stringify(s));
  // and left the stream.  Its close is seen at once when the machine is
  // quiet; the bound leaves room for a loaded one, and a wait that runs
  // out says whose the connection still is.
  const left = Date.now();
  try {
    await waitFor(async () => (await stats()).open === 0, 15000, "vthost to close the flood's stream");
  } catch (e) {
    s = await stats();
    assert.fail(`${e.message} (${Date.now() - left} ms after the call's end and 1.5 s): provider ${JSON.stringify(s)}; ` +
      `vthost (pid ${c.pid}) holds ${JSON.stringify(heldTo(c.pid, port))} to its port`);
  }
  s = await stats();
  assert.ok(s.answered === 0 && s.refused >= 1 && s.refused < 20000, JSON.stringify(s));

  // an answering client: at most max_relayed_requests_per_call (16) prompts
  const c2 = await connect(ws, { answer: true });
  await search(c2, "hostile http flood");
  const r = await c2.callTool({ name: "mcp__web__flood", arguments: { n: 3000 } }, undefined, { timeout: 60000 });
  assert.equal(r.isError, true, text(r));
  assert.ok(c2.prompts.length <= 16, `${c2.prompts.length} prompts`);
  const late = c2.prompts.filter((t) => t > Date.now() - 1500);
  assert.equal(late.length, 0, "prompts after the deadline");
  assert.match((await stats()).last, /max_relayed_requests_per_(call|minute)/);
});

test("a provider that crashes while its helper holds stdout fails its call at once; the helper is killed", async () => {
  const ws = workspace({ timeout: 60 });
  const c = await connect(ws);
  await search(c, "hostile crash");
  const t0 = Date.now();
  const r = await c.callTool({ name: "mcp__hostile__fork_crash", arguments: {} });
  const took = Date.now() - t0;
  assert.equal(r.isError, true);
  assert.match(text(r), /exited with status 9/);
  assert.ok(took < 1000, `the call failed after ${took} ms`);
  const helper = Number(readFileSync(join(ws, "helper.pid"), "utf8"));
  await waitFor(() => !alive(helper), 2000, `the helper ${helper} to be killed with the provider's group`);
  // restarted on the next call
  await search(c, "hostile ok");
  assert.match(text(await c.callTool({ name: "mcp__hostile__ok", arguments: {} })), /hostile ok/);
});

test("a wrong [[mcp.providers]] entry disables that provider only, and says why", async () => {
  const ws = workspace({ extra: `
[[mcp.providers]]
name = "both"
command = "/bin/true"
endpoint = "http://127.0.0.1:9/mcp"

[[mcp.providers]]
name = "ok"
command = "${node}"
args = ["${join(here, "hostile_provider.mjs")}"]
` });
  const c = await connect(ws);
  assert.ok((await search(c, "hostile ok")).includes("mcp__ok__ok"));
  assert.match(text(await c.callTool({ name: "mcp__ok__ok", arguments: {} })), /hostile ok/);
  const why = "vtcode.toml: [[mcp.providers]] 'both' has both a command (stdio) and an endpoint (HTTP): name one";
  assert.ok(c.stderrText().includes(why), c.stderrText());
  const list = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "--format", "json", "mcp", "list"],
    { env: serverEnv(), encoding: "utf8", timeout: 60000 });
  assert.equal(list.status, 0, list.stderr);
  const both = JSON.parse(list.stdout).find((p) => p.name === "both");
  assert.equal(both.state, "disabled");
  assert.equal(both.reason, why);
});
