// Resident memory of `vthost serve --http` under large request bodies:
// C clients, each on a keep-alive connection of its own (a thread of its
// own in the server, so up to C of glibc's per-thread arenas), POST a ping padded to about 3.5 MiB for SECONDS; the
// server's RSS is sampled every 5 s and printed, then once more after 10 s
// of quiet.  Not a ctest test: figures depend on the machine.
//   node tests/bench/http/body_rss.mjs build/bin/vthost [SECONDS] [C]
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import http from "node:http";

const [bin, secArg, cArg] = process.argv.slice(2);
if (!bin) {
  console.error("usage: node body_rss.mjs VTHOST [SECONDS] [C]");
  process.exit(2);
}
const SECONDS = Number(secArg ?? 120);
const C = Number(cArg ?? 8);
const ws = mkdtempSync(join(tmpdir(), "vthost-rss-"));
const cfg = mkdtempSync(join(tmpdir(), "vthost-rss-cfg-"));
mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
const rssKb = (pid) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const p = spawn(bin, ["--workspace", ws, "serve", "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, XDG_CONFIG_HOME: cfg } });
let err = "";
p.stderr.on("data", (d) => (err += d));
while (!/listening on (\S+),/.test(err)) await sleep(20);
const url = new URL(err.match(/listening on (\S+),/)[1]);
const token = readFileSync(join(cfg, "vthost", "http-token"), "utf8").trim();

function request(body, sid, agent) {
  return new Promise((resolve) => {
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Length": Buffer.byteLength(body) };
    if (sid) headers["Mcp-Session-Id"] = sid;
    const req = http.request({ host: url.hostname, port: url.port, path: "/mcp", method: "POST", headers, agent: agent ?? false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.headers["mcp-session-id"]));
    });
    req.on("error", () => resolve(null));
    req.end(body);
  });
}

const sid = await request(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "rss", version: "1" } } }));
await request('{"jsonrpc":"2.0","method":"notifications/initialized"}', sid);
const pad = "x".repeat(3.5 * 1024 * 1024);
const start = rssKb(p.pid);
let n = 0, stop = false;
const end = Date.now() + SECONDS * 1000;
const workers = Array.from({ length: C }, async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (!stop) {
    // sizes vary so that the allocator sees many (as real clients send)
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++n, method: "ping", params: { pad: pad.slice(0, pad.length - ((n * 7919) % (1024 * 1024))) } });
    await request(body, sid, agent);
  }
  agent.destroy();
});
console.log(`t=0s rss=${(start / 1024).toFixed(1)} MiB`);
let peak = start;
while (Date.now() < end) {
  await sleep(5000);
  const r = rssKb(p.pid);
  peak = Math.max(peak, r);
  console.log(`t=${Math.round(SECONDS - (end - Date.now()) / 1000)}s rss=${(r / 1024).toFixed(1)} MiB requests=${n}`);
}
stop = true;
await Promise.all(workers);
await sleep(10000);
const quiet = rssKb(p.pid);
console.log(`${n} requests of ~3 MiB by ${C} clients in ${SECONDS}s: RSS ${(start / 1024).toFixed(1)} -> peak ${(peak / 1024).toFixed(1)} -> ${(quiet / 1024).toFixed(1)} MiB 10 s after (quiet/start ${(quiet / start).toFixed(1)}x)`);
p.kill("SIGTERM");
await new Promise((r) => p.on("exit", r));
rmSync(ws, { recursive: true, force: true });
rmSync(cfg, { recursive: true, force: true });
