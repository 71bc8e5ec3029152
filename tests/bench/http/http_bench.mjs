// Cheap calls per second over HTTP keep-alive against stdio, and the
// memory an idle HTTP session costs.  Not a ctest test: timings depend on
// the machine and its load.
//   node tests/bench/http/http_bench.mjs build/bin/vthost build/tests/plugins/catalog [N] [SESSIONS]
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const [bin, catalog, nArg, sArg] = process.argv.slice(2);
if (!bin || !catalog) {
  console.error("usage: node http_bench.mjs VTHOST CATALOG_DIR [N] [SESSIONS]");
  process.exit(2);
}
const N = Number(nArg ?? 2000);
const SESSIONS = Number(sArg ?? 200);
const ws = mkdtempSync(join(tmpdir(), "vthost-hbench-"));
const cfg = mkdtempSync(join(tmpdir(), "vthost-hbench-cfg-"));
mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
writeFileSync(join(cfg, "vthost", "http.toml"), `max_sessions_per_client = ${SESSIONS + 10}\n`);
writeFileSync(join(ws, "vtcode.toml"), '[permissions]\nallow = ["search_tools"]\n');
const base = ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "--plugin-dir", catalog, "serve"];
const CALL = (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_tools", arguments: { query: "github pull request", limit: 3, detail_level: "name" } } });
const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } };

function rssKb(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return Number(m[1]);
}

async function stdioRate() {
  const p = spawn(bin, base, { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  const rl = createInterface({ input: p.stdout });
  const waiters = [];
  rl.on("line", (l) => waiters.shift()?.(l));
  const rpc = (m) => new Promise((r) => {
    waiters.push(r);
    p.stdin.write(JSON.stringify(m) + "\n");
  });
  await rpc(INIT);
  p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  for (let i = 1; i <= 50; i++) await rpc(CALL(i)); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await rpc(CALL(100 + i));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  p.stdin.end();
  await new Promise((r) => p.on("exit", r));
  return N / s;
}

async function httpRun() {
  const p = spawn(bin, [...base, "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  let err = "";
  p.stderr.on("data", (d) => (err += d));
  while (!/listening on (\S+),/.test(err)) await new Promise((r) => setTimeout(r, 20));
  const url = err.match(/listening on (\S+),/)[1];
  const token = readFileSync(join(cfg, "vthost", "http-token"), "utf8").trim();
  const H = { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: process.env.ACCEPT || "application/json, text/event-stream" };
  const post = async (m, sid) => {
    const r = await fetch(url, { method: "POST", headers: sid ? { ...H, "Mcp-Session-Id": sid } : H, body: JSON.stringify(m) });
    const t = await r.text();
    if (r.status >= 300) throw new Error(`${r.status} ${t}`);
    return { r, t };
  };
  const init = await post(INIT);
  const sid = init.r.headers.get("mcp-session-id");
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sid);
  for (let i = 1; i <= 50; i++) await post(CALL(i), sid);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await post(CALL(100 + i), sid);
  const rate = N / (Number(process.hrtime.bigint() - t0) / 1e9);
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await post({ jsonrpc: "2.0", id: 10 ** 6 + i, method: "ping" }, sid);
  const pingRate = N / (Number(process.hrtime.bigint() - t1) / 1e9);
  // memory per idle session
  await new Promise((r) => setTimeout(r, 300));
  const before = rssKb(p.pid);
  for (let i = 0; i < SESSIONS; i++) {
    const x = await post({ ...INIT, id: i + 1 });
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, x.r.headers.get("mcp-session-id"));
  }
  await new Promise((r) => setTimeout(r, 300));
  const after = rssKb(p.pid);
  p.kill("SIGTERM");
  await new Promise((r) => p.on("exit", r));
  return { rate, pingRate, perSession: (after - before) / SESSIONS, before, after };
}

const stdio = await stdioRate();
const http = await httpRun();
console.log(`tools/call search_tools over stdio:          ${stdio.toFixed(0)} calls/s (${N} sequential)`);
console.log(`tools/call search_tools over HTTP keep-alive: ${http.rate.toFixed(0)} calls/s (${N} sequential, SSE answers)`);
console.log(`ping over HTTP keep-alive (client floor):    ${http.pingRate.toFixed(0)} calls/s`);
console.log(`HTTP / stdio: ${(http.rate / stdio).toFixed(2)}x`);
console.log(`idle session: ${http.perSession.toFixed(1)} KB RSS each (${SESSIONS} sessions: ${http.before} -> ${http.after} KB)`);
rmSync(ws, { recursive: true, force: true });
rmSync(cfg, { recursive: true, force: true });
