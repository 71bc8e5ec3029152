// Cheap MCP calls over HTTP keep-alive against the same calls over stdio,
// in both protocol eras, and the memory an idle HTTP session costs.  Not a
// ctest test: timings depend on the machine and its load.
//
//   node tests/bench/http/http_bench.mjs build/bin/vthost build/tests/plugins/catalog [N] [ROUNDS] [SESSIONS]
//
// Workloads: `ping` (2025; a 2026-07-28 client has no ping, its cheapest
// request is `server/discover`) and `tools/call search_tools`, with 1 and
// 8 clients, in the 2025-11-25 era (one session per client) and the
// 2026-07-28 era (stateless requests).  The yardstick of each is the same
// workload over stdio, the same era, one stdio server per client.  Each
// round runs every workload once over stdio and once over HTTP, the order
// alternating from round to round; the figure is the median over rounds
// of HTTP rate / stdio rate (>= 1: HTTP as fast as stdio).  The server's
// CPU per call (its threads' /proc/PID/task/TID/schedstat, nanoseconds)
// is printed beside it.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { INIT, cpuNs, httpClient, median, message, startHttpServer } from "./mcp_wire.mjs";

const [bin, catalog, nArg, rArg, sArg] = process.argv.slice(2);
if (!bin || !catalog) {
  console.error("usage: node http_bench.mjs VTHOST CATALOG_DIR [N] [ROUNDS] [SESSIONS]");
  process.exit(2);
}
const N = Number(nArg ?? 400); // calls per client per run
const ROUNDS = Number(rArg ?? 7);
const SESSIONS = Number(sArg ?? 200);
// BENCH_CALLS, BENCH_CLIENTS, BENCH_ERAS (comma lists) narrow the run to
// some workloads: one workload alone is what a profile of the server
// wants (`perf record -g -p PID` while it runs).
const list = (v, d) => (v ?? d).split(",");
const CALLS = list(process.env.BENCH_CALLS, "ping,search");
const CLIENTS = list(process.env.BENCH_CLIENTS, "1,8").map(Number);
const ERAS = list(process.env.BENCH_ERAS, "2025,2026");
const ws = mkdtempSync(join(tmpdir(), "vthost-hbench-"));
const cfg = mkdtempSync(join(tmpdir(), "vthost-hbench-cfg-"));
mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
writeFileSync(join(cfg, "vthost", "http.toml"), `max_sessions_per_client = ${SESSIONS + 20}\n`);
writeFileSync(join(ws, "vtcode.toml"), '[permissions]\nallow = ["search_tools"]\n');
const env = { ...process.env, XDG_CONFIG_HOME: cfg };
const base = ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "--plugin-dir", catalog, "serve"];

function rssKb(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
}

// One stdio server and a client on it.
async function stdioClient(era) {
  const p = spawn(bin, base, { stdio: ["pipe", "pipe", "ignore"], env });
  const rl = createInterface({ input: p.stdout });
  const waiters = [];
  // answers in order; a notification (tools/list_changed) is no answer
  rl.on("line", (l) => l.includes('"method"') || waiters.shift()?.(l));
  const rpc = (m) =>
    new Promise((r) => {
      waiters.push(r);
      p.stdin.write(JSON.stringify(m) + "\n");
    });
  if (era === "2025") {
    await rpc(INIT);
    p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }
  return {
    pid: p.pid,
    send: (m) => rpc(m).then((l) => {
      if (!l.includes('"result"')) throw new Error(`stdio: ${l}`);
    }),
    close: () => (p.stdin.end(), new Promise((r) => p.on("exit", r))),
  };
}

// The HTTP server, its access log in a file.
const httpServer = () =>
  startHttpServer(bin, [...base, "--http", "127.0.0.1:0"], env, join(cfg, "server.log"),
                  join(cfg, "vthost", "http-token"));

// `clients` each send N messages in turn; returns calls per second.
async function run(clients, era, call, pids) {
  let id = 1;
  const c0 = pids.reduce((a, p) => a + cpuNs(p), 0);
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < N; i++) await c.send(message(era, call, id++));
    }),
  );
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = (pids.reduce((a, p) => a + cpuNs(p), 0) - c0) / 1e3;
  const u = process.cpuUsage(u0);
  const calls = N * clients.length;
  return { rate: calls / s, cpuUs: cpu / calls, clientUs: (u.user + u.system) / calls };
}


const srv = await httpServer();
const pools = {}; // era -> { stdio: [...], http: [...] } of max(CLIENTS) clients
for (const era of ERAS) {
  const n = Math.max(...CLIENTS);
  pools[era] = {
    stdio: await Promise.all(Array.from({ length: n }, () => stdioClient(era))),
    http: await Promise.all(Array.from({ length: n }, () => httpClient(srv, era))),
  };
  // warm up every client
  for (const c of [...pools[era].stdio, ...pools[era].http])
    for (let i = 0; i < 30; i++) await c.send(message(era, i % 2 ? "ping" : "search", 9000 + i));
}

const workloads = [];
for (const call of CALLS)
  for (const k of CLIENTS) for (const era of ERAS) workloads.push({ call, k, era, ratios: [], st: [], ht: [], scpu: [], hcpu: [], sc: [], hc: [] });

for (let r = 0; r < ROUNDS; r++) {
  for (const w of workloads) {
    const s = pools[w.era].stdio.slice(0, w.k);
    const h = pools[w.era].http.slice(0, w.k);
    const doStdio = () => run(s, w.era, w.call, s.map((c) => c.pid));
    const doHttp = () => run(h, w.era, w.call, [srv.p.pid]);
    let a, b;
    if (r % 2 === 0) (a = await doStdio()), (b = await doHttp());
    else (b = await doHttp()), (a = await doStdio());
    w.ratios.push(b.rate / a.rate);
    w.st.push(a.rate), w.ht.push(b.rate), w.scpu.push(a.cpuUs), w.hcpu.push(b.cpuUs);
    w.sc.push(a.clientUs), w.hc.push(b.clientUs);
  }
}

const name = (w) => (w.call === "ping" ? (w.era === "2025" ? "ping" : "server/discover") : "tools/call search_tools");
console.log(`${N} calls per client per run, ${ROUNDS} rounds (paired, alternating); medians`);
console.log(
  "workload                          clients  era         stdio/s   HTTP/s  HTTP/stdio  server CPU/call stdio  HTTP   client CPU/call stdio  HTTP",
);
for (const w of workloads) {
  const era = w.era === "2025" ? "2025 sess" : "2026 stateless";
  console.log(
    `${name(w).padEnd(34)}${String(w.k).padStart(7)}  ${era.padEnd(14)}${median(w.st).toFixed(0).padStart(7)}  ${median(w.ht).toFixed(0).padStart(7)}  ${median(w.ratios).toFixed(2).padStart(9)}x  ${median(w.scpu).toFixed(0).padStart(15)} us ${median(w.hcpu).toFixed(0).padStart(4)} us` +
      `${median(w.sc).toFixed(0).padStart(20)} us ${median(w.hc).toFixed(0).padStart(4)} us`,
  );
}

for (const era of Object.keys(pools)) {
  for (const c of pools[era].http) c.close();
  await Promise.all(pools[era].stdio.map((c) => c.close()));
}

// memory per idle session
await new Promise((r) => setTimeout(r, 300));
const before = rssKb(srv.p.pid);
for (let i = 0; i < SESSIONS; i++) await httpClient(srv, "2025").then((c) => c.close());
await new Promise((r) => setTimeout(r, 300));
const after = rssKb(srv.p.pid);
console.log(`idle session: ${((after - before) / SESSIONS).toFixed(1)} KB RSS each (${SESSIONS} sessions: ${before} -> ${after} KB)`);
await srv.close();
rmSync(ws, { recursive: true, force: true });
rmSync(cfg, { recursive: true, force: true });
