// Two builds' HTTP transport side by side: the same cheap calls over
// keep-alive to `vthost serve --http` of build A and of build B, runs
// alternating, each workload's figure the median over rounds of B's
// calls per second / A's, with each server's CPU per call (its threads'
// schedstat over the run), B's over A's paired by round, and the
// client's.  For a before/after of a
// change to the HTTP front; http_bench.mjs compares HTTP with stdio.
// Not a ctest test.
//
//   node tests/bench/http/http_ab.mjs A_VTHOST B_VTHOST CATALOG_DIR [N=3000] [ROUNDS=5]
//
// BENCH_CALLS (ping,search), BENCH_CLIENTS (1,8), BENCH_ERAS (2025,2026)
// narrow the run as in http_bench.mjs.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuNs, httpClient, median, message, startHttpServer } from "./mcp_wire.mjs";

const [binA, binB, catalog, nArg, rArg] = process.argv.slice(2);
if (!binA || !binB || !catalog) {
  console.error("usage: node http_ab.mjs A_VTHOST B_VTHOST CATALOG_DIR [N] [ROUNDS]");
  process.exit(2);
}
const N = Number(nArg ?? 3000);
const ROUNDS = Number(rArg ?? 5);
const list = (v, d) => (v ?? d).split(",");
const CALLS = list(process.env.BENCH_CALLS, "ping,search");
const CLIENTS = list(process.env.BENCH_CLIENTS, "1,8").map(Number);
const ERAS = list(process.env.BENCH_ERAS, "2025,2026");
// A server of `bin` in a scratch workspace and config of its own, its
// stderr (the access log) to a file.
async function server(bin) {
  const ws = mkdtempSync(join(tmpdir(), "vthost-hab-"));
  const cfg = join(ws, "cfg");
  mkdirSync(join(cfg, "vthost"), { recursive: true, mode: 0o700 });
  writeFileSync(join(cfg, "vthost", "http.toml"), "max_sessions_per_client = 40\n");
  writeFileSync(join(ws, "vtcode.toml"), '[permissions]\nallow = ["search_tools"]\n');
  const srv = await startHttpServer(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "--plugin-dir", catalog, "serve", "--http", "127.0.0.1:0"],
                                    { ...process.env, XDG_CONFIG_HOME: cfg }, join(ws, "server.log"), join(cfg, "vthost", "http-token"));
  return { ...srv, close: () => srv.close().then(() => rmSync(ws, { recursive: true, force: true })) };
}

async function run(clients, era, call, pid) {
  let id = 1;
  const c0 = cpuNs(pid);
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(clients.map(async (c) => {
    for (let i = 0; i < N; i++) await c.send(message(era, call, id++));
  }));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const calls = N * clients.length;
  const u = process.cpuUsage(u0);
  return { rate: calls / s, cpu: (cpuNs(pid) - c0) / 1e3 / calls, client: (u.user + u.system) / calls };
}

const srvs = [await server(binA), await server(binB)];
const pools = srvs.map(() => ({}));
for (const era of ERAS)
  for (let k = 0; k < 2; k++) {
    pools[k][era] = await Promise.all(Array.from({ length: Math.max(...CLIENTS) }, () => httpClient(srvs[k], era)));
    for (const c of pools[k][era]) for (let i = 0; i < 30; i++) await c.send(message(era, i % 2 ? "ping" : "search", 9000 + i));
  }
const rows = [];
for (const call of CALLS) for (const k of CLIENTS) for (const era of ERAS) rows.push({ call, k, era, r: [], c: [], a: [], b: [] });
for (let round = 0; round < ROUNDS; round++)
  for (const w of rows) {
    const go = (i) => run(pools[i][w.era].slice(0, w.k), w.era, w.call, srvs[i].p.pid);
    let a, b;
    if (round % 2 === 0) (a = await go(0)), (b = await go(1));
    else (b = await go(1)), (a = await go(0));
    w.r.push(b.rate / a.rate), w.c.push(b.cpu / a.cpu), w.a.push(a), w.b.push(b);
  }
console.log(`${N} calls per client per run, ${ROUNDS} rounds (paired, alternating); medians; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`);
console.log("workload                 clients  era   A calls/s  B calls/s   B/A   server CPU/call A    B    B/A   client CPU/call A    B");
const md = (v, f) => median(v.map(f));
for (const w of rows) {
  const name = w.call === "ping" ? (w.era === "2025" ? "ping" : "server/discover") : "tools/call search_tools";
  console.log(
    `${name.padEnd(25)}${String(w.k).padStart(7)}  ${w.era}  ${md(w.a, (x) => x.rate).toFixed(0).padStart(9)}  ${md(w.b, (x) => x.rate).toFixed(0).padStart(9)}  ${median(w.r).toFixed(2)}x` +
      `  ${md(w.a, (x) => x.cpu).toFixed(1).padStart(12)} us ${md(w.b, (x) => x.cpu).toFixed(1).padStart(5)} us  ${median(w.c).toFixed(2)}x  ${md(w.a, (x) => x.client).toFixed(1).padStart(12)} us ${md(w.b, (x) => x.client).toFixed(1).padStart(5)} us`,
  );
}
for (const k of [0, 1]) for (const era of ERAS) for (const c of pools[k][era]) c.close();
await Promise.all(srvs.map((s) => s.close()));
