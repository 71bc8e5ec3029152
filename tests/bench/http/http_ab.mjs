// Two builds' HTTP transport side by side: the same cheap calls over
// keep-alive to `vthost serve --http` of build A and of build B, runs
// alternating, each workload's figure the median over rounds of B's
// calls per second / A's, with each server's CPU per call (user + system
// from /proc over the run) and the client's.  For a before/after of a
// change to the HTTP front; http_bench.mjs compares HTTP with stdio.
// Not a ctest test.
//
//   node tests/bench/http/http_ab.mjs A_VTHOST B_VTHOST CATALOG_DIR [N=3000] [ROUNDS=5]
//
// BENCH_CALLS (ping,search), BENCH_CLIENTS (1,8), BENCH_ERAS (2025,2026)
// narrow the run as in http_bench.mjs.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
const SEARCH = { name: "search_tools", arguments: { query: "github pull request", limit: 3, detail_level: "name" } };
function message(era, call, id) {
  if (era === "2025")
    return call === "ping" ? { jsonrpc: "2.0", id, method: "ping" } : { jsonrpc: "2.0", id, method: "tools/call", params: SEARCH };
  return call === "ping"
    ? { jsonrpc: "2.0", id, method: "server/discover", params: { _meta: META } }
    : { jsonrpc: "2.0", id, method: "tools/call", params: { ...SEARCH, _meta: META } };
}
const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } };
const cpuTicks = (pid) => {
  const v = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = v.slice(v.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
};

// A server of `bin` in a scratch workspace and config of its own, its
// stderr (the access log) to a file.
async function server(bin) {
  const ws = mkdtempSync(join(tmpdir(), "vthost-hab-"));
  const cfg = join(ws, "cfg");
  mkdirSync(join(cfg, "vthost"), { recursive: true, mode: 0o700 });
  writeFileSync(join(cfg, "vthost", "http.toml"), "max_sessions_per_client = 40\n");
  writeFileSync(join(ws, "vtcode.toml"), '[permissions]\nallow = ["search_tools"]\n');
  const log = join(ws, "server.log");
  const fd = openSync(log, "w");
  const args = ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "--plugin-dir", catalog, "serve", "--http", "127.0.0.1:0"];
  const p = spawn(bin, args, { stdio: ["ignore", "ignore", fd], env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  closeSync(fd);
  let err = "";
  while (!/listening on (\S+),/.test(err)) {
    if (p.exitCode !== null) throw new Error(`${bin} exited: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
    err = readFileSync(log, "utf8");
  }
  const url = new URL(err.match(/listening on (\S+),/)[1]);
  const token = readFileSync(join(cfg, "vthost", "http-token"), "utf8").trim();
  return { p, url, token, close: () => (p.kill("SIGTERM"), new Promise((r) => p.on("exit", r)).then(() => rmSync(ws, { recursive: true, force: true }))) };
}

// As http_bench.mjs's client: one keep-alive connection, each request
// written whole, its response read to the end.
async function client(srv, era) {
  const sock = net.connect(Number(srv.url.port), srv.url.hostname);
  sock.setNoDelay(true);
  await new Promise((r, j) => sock.once("connect", r).once("error", j));
  let buf = "";
  let waiter = null;
  const complete = () => {
    const h = buf.indexOf("\r\n\r\n");
    if (h < 0) return -1;
    const cl = buf.slice(0, h).match(/\r\ncontent-length: *(\d+)/i);
    if (cl) return buf.length >= h + 4 + Number(cl[1]) ? h + 4 + Number(cl[1]) : -1;
    const end = buf.indexOf("\r\n0\r\n\r\n", h);
    return end < 0 ? -1 : end + 7;
  };
  sock.setEncoding("latin1");
  sock.on("data", (d) => {
    buf += d;
    const n = waiter ? complete() : -1;
    if (n >= 0) {
      const text = buf.slice(0, n);
      buf = buf.slice(n);
      const w = waiter;
      waiter = null;
      w(text);
    }
  });
  let sid = null;
  const post = (m) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(m);
      let head =
        `POST ${srv.url.pathname} HTTP/1.1\r\nHost: ${srv.url.host}\r\nAuthorization: Bearer ${srv.token}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
      if (era === "2026") head += `MCP-Protocol-Version: ${MODERN}\r\n`;
      else if (sid) head += `Mcp-Session-Id: ${sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n`;
      waiter = (text) => {
        if (Number(text.slice(9, 12)) >= 300) return reject(new Error(text));
        const s = !sid && text.slice(0, text.indexOf("\r\n\r\n")).match(/\r\nmcp-session-id: *([0-9a-f]+)/i);
        if (s) sid = s[1];
        if (m.id !== undefined && !text.includes('"result"')) return reject(new Error(`no result: ${text}`));
        resolve(text);
      };
      sock.write(head + "\r\n" + body);
    });
  if (era === "2025") {
    await post(INIT);
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return { send: post, close: () => sock.destroy() };
}

async function run(clients, era, call, pid) {
  let id = 1;
  const c0 = cpuTicks(pid);
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(clients.map(async (c) => {
    for (let i = 0; i < N; i++) await c.send(message(era, call, id++));
  }));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const calls = N * clients.length;
  const u = process.cpuUsage(u0);
  return { rate: calls / s, cpu: ((cpuTicks(pid) - c0) * 1e4) / calls, client: (u.user + u.system) / calls };
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const srvs = [await server(binA), await server(binB)];
const pools = srvs.map(() => ({}));
for (const era of ERAS)
  for (let k = 0; k < 2; k++) {
    pools[k][era] = await Promise.all(Array.from({ length: Math.max(...CLIENTS) }, () => client(srvs[k], era)));
    for (const c of pools[k][era]) for (let i = 0; i < 30; i++) await c.send(message(era, i % 2 ? "ping" : "search", 9000 + i));
  }
const rows = [];
for (const call of CALLS) for (const k of CLIENTS) for (const era of ERAS) rows.push({ call, k, era, r: [], a: [], b: [] });
for (let round = 0; round < ROUNDS; round++)
  for (const w of rows) {
    const go = (i) => run(pools[i][w.era].slice(0, w.k), w.era, w.call, srvs[i].p.pid);
    let a, b;
    if (round % 2 === 0) (a = await go(0)), (b = await go(1));
    else (b = await go(1)), (a = await go(0));
    w.r.push(b.rate / a.rate), w.a.push(a), w.b.push(b);
  }
console.log(`${N} calls per client per run, ${ROUNDS} rounds (paired, alternating); medians; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`);
console.log("workload                 clients  era   A calls/s  B calls/s   B/A   server CPU/call A    B   client CPU/call A    B");
const md = (v, f) => median(v.map(f));
for (const w of rows) {
  const name = w.call === "ping" ? (w.era === "2025" ? "ping" : "server/discover") : "tools/call search_tools";
  console.log(
    `${name.padEnd(25)}${String(w.k).padStart(7)}  ${w.era}  ${md(w.a, (x) => x.rate).toFixed(0).padStart(9)}  ${md(w.b, (x) => x.rate).toFixed(0).padStart(9)}  ${median(w.r).toFixed(2)}x` +
      `  ${md(w.a, (x) => x.cpu).toFixed(1).padStart(12)} us ${md(w.b, (x) => x.cpu).toFixed(1).padStart(5)} us  ${md(w.a, (x) => x.client).toFixed(1).padStart(12)} us ${md(w.b, (x) => x.client).toFixed(1).padStart(5)} us`,
  );
}
for (const k of [0, 1]) for (const era of ERAS) for (const c of pools[k][era]) c.close();
await Promise.all(srvs.map((s) => s.close()));
