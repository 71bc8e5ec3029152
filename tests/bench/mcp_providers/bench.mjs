// MCP provider benchmarks (not a ctest test): prints ratios.
//   VTHOST_BIN=build/bin/vthost node tests/bench/mcp_providers/bench.mjs [N]
// 1. a proxied call (client -> vthost -> provider) against calling the
//    provider directly (client -> provider), N calls each: a stdio
//    provider, then a Streamable HTTP one (the SDK's server on 127.0.0.1);
// 2. search_tools over a catalog of 1,000 provider tools;
// 3. vthost start-up (initialize + tools/list) with 10 configured lazy
//    providers against none.
import { createRequire } from "node:module";
import { spawn } from "node:child_process";
import http from "node:http";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../../integration/mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const bin = process.env.VTHOST_BIN;
if (!bin) {
  console.error("set VTHOST_BIN to the built vthost");
  process.exit(2);
}
const N = Number(process.argv[2] || 500);
const provider = join(here, "many_provider.mjs");
const node = process.execPath;

async function connect(command, args, env = {}) {
  const c = new Client({ name: "bench", version: "1" }, { capabilities: {} });
  await c.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: "ignore" }));
  return c;
}
function workspace(providers) {
  const ws = mkdtempSync(join(tmpdir(), "vthost-bench-"));
  let toml = `[permissions]\nallow = ["search_tools", "mcp__many"]\n`;
  for (let i = 0; i < providers; i++) {
    const name = i === 0 ? "many" : `lazy${i}`;
    toml += `\n[[mcp.providers]]\nname = "${name}"\ncommand = "${node}"\nargs = ["${provider}"]\n`;
  }
  writeFileSync(join(ws, "vtcode.toml"), toml);
  return ws;
}
const vthostArgs = (ws) => ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "serve"];
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
async function timeCalls(c, name, n) {
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await c.callTool({ name, arguments: { text: "x" } });
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return t;
}

// 1. proxied vs direct
const direct = await connect(node, [provider], { MANY_TOOLS: "10" });
await timeCalls(direct, "echo", 20);
const d = median(await timeCalls(direct, "echo", N));
await direct.close();
const ws1 = workspace(1);
const via = await connect(bin, vthostArgs(ws1));
await via.callTool({ name: "search_tools", arguments: { query: "echo a text back" } });
await timeCalls(via, "mcp__many__echo", 20);
const p = median(await timeCalls(via, "mcp__many__echo", N));
console.log(`call, median of ${N}: direct ${d.toFixed(0)} us, through vthost ${p.toFixed(0)} us: ` +
  `${(p / d).toFixed(2)}x, +${(p - d).toFixed(0)} us`);

// 1b. the same through a Streamable HTTP provider
{
  const server = spawn(node, [join(here, "../../integration/mcp_providers/http_provider.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve) => {
    let out = "";
    server.stdout.on("data", (b) => {
      out += b;
      const m = out.match(/listening (\d+)/);
      if (m) resolve(m[1]);
    });
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const hd = new Client({ name: "bench", version: "1" }, { capabilities: {} });
  await hd.connect(new StreamableHTTPClientTransport(new URL(url)));
  await timeCalls(hd, "echo", 20);
  const dh = median(await timeCalls(hd, "echo", N));
  // the SDK client (fetch) pays ~40 ms a call here; node's http module
  // with a keep-alive agent on the same session is the lean direct path
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream",
    "mcp-session-id": hd.transport.sessionId, "mcp-protocol-version": "2025-06-18" };
  const post = (id) => new Promise((resolve, reject) => {
    const r = http.request(url, { method: "POST", agent, headers }, (res) => {
      res.on("data", () => {});
      res.on("end", resolve);
    });
    r.on("error", reject);
    r.end(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }));
  });
  const raw = [];
  for (let i = 0; i < N + 20; i++) {
    const t0 = process.hrtime.bigint();
    await post(1000 + i);
    if (i >= 20) raw.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  const dr = median(raw);
  agent.destroy();
  await hd.close();
  const ws = mkdtempSync(join(tmpdir(), "vthost-bench-"));
  writeFileSync(join(ws, "vtcode.toml"),
    `[permissions]\nallow = ["search_tools", "mcp__web"]\n\n[[mcp.providers]]\nname = "web"\nendpoint = "${url}"\n`);
  const hv = await connect(bin, vthostArgs(ws));
  await hv.callTool({ name: "search_tools", arguments: { query: "echo a text back" } });
  await timeCalls(hv, "mcp__web__echo", 20);
  const ph = median(await timeCalls(hv, "mcp__web__echo", N));
  await hv.close();
  server.kill();
  rmSync(ws, { recursive: true, force: true });
  console.log(`HTTP call, median of ${N}: direct with node http ${dr.toFixed(0)} us, through vthost ` +
    `${ph.toFixed(0)} us: ${(ph / dr).toFixed(2)}x, +${(ph - dr).toFixed(0)} us ` +
    `(direct with the SDK client ${dh.toFixed(0)} us)`);
}

// 2. search over 1,000 provider tools (the catalog is built by the first search)
const s = [];
const queries = ["review pull request", "deploy release", "queue message secret", "dashboard alert metric"];
for (let i = 0; i < 200; i++) {
  const t0 = process.hrtime.bigint();
  await via.callTool({ name: "search_tools", arguments: { query: queries[i % queries.length], detail_level: "name" } });
  s.push(Number(process.hrtime.bigint() - t0) / 1000);
}
const ping = [];
for (let i = 0; i < 200; i++) {
  const t0 = process.hrtime.bigint();
  await via.ping();
  ping.push(Number(process.hrtime.bigint() - t0) / 1000);
}
console.log(`search_tools over 1,001 provider tools, median round trip ${median(s).toFixed(0)} us ` +
  `(ping round trip ${median(ping).toFixed(0)} us; search itself ~${(median(s) - median(ping)).toFixed(0)} us)`);
await via.close();
rmSync(ws1, { recursive: true, force: true });

// 3. start-up with 10 lazy providers
async function startup(providers) {
  const ws = workspace(providers);
  const t = [];
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint();
    const c = await connect(bin, vthostArgs(ws));
    await c.listTools();
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
    await c.close();
  }
  rmSync(ws, { recursive: true, force: true });
  return median(t);
}
const none = await startup(0), ten = await startup(10);
console.log(`start-up (initialize + tools/list), median of 10: no providers ${(none / 1000).toFixed(1)} ms, ` +
  `10 lazy providers ${(ten / 1000).toFixed(1)} ms: ${(ten / none).toFixed(2)}x`);
