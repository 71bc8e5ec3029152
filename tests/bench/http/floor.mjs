// The transport's own share of http_bench.mjs's figure: the same clients
// and messages against servers that do no work (floor_echo.c, a canned
// answer of the size vthost's is), over loopback TCP with HTTP/1.1 framing
// and over a pipe.  The HTTP/pipe ratio printed is what a server with no
// per-call cost of its own would reach: a row of http_bench.mjs near it
// is at the transport's floor, whatever the server does.  Not a ctest
// test: timings depend on the machine and its load.
//
//   gcc -O2 -pthread tests/bench/http/floor_echo.c -o /tmp/floor_echo
//   node tests/bench/http/floor.mjs /tmp/floor_echo [N=1000] [ROUNDS=9]
//
// BENCH_CALLS, BENCH_CLIENTS and BENCH_ERAS narrow the run as in
// http_bench.mjs.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { httpClient, median, message } from "./mcp_wire.mjs";

const [echo, nArg, rArg] = process.argv.slice(2);
if (!echo) {
  console.error("usage: node floor.mjs FLOOR_ECHO [N] [ROUNDS]");
  process.exit(2);
}
const N = Number(nArg ?? 1000);
const ROUNDS = Number(rArg ?? 9);
const list = (v, d) => (v ?? d).split(",");
const CALLS = list(process.env.BENCH_CALLS, "ping,search");
const CLIENTS = list(process.env.BENCH_CLIENTS, "1,8").map(Number);
const ERAS = list(process.env.BENCH_ERAS, "2025,2026");
// The size of vthost's answer body to each workload (ping 2025, discover
// 2026, a search_tools call's SSE answer).
const bytes = (era, call) => (call === "search" ? 900 : era === "2025" ? 40 : 820);

function pipeClient(size) {
  const p = spawn(echo, ["pipe", String(size)], { stdio: ["pipe", "pipe", "ignore"] });
  const rl = createInterface({ input: p.stdout });
  const waiters = [];
  rl.on("line", (l) => l.includes('"method"') || waiters.shift()?.(l));
  return {
    send: (m) =>
      new Promise((r, j) => {
        waiters.push((l) => (l.includes('"result"') ? r(l) : j(new Error(l))));
        p.stdin.write(JSON.stringify(m) + "\n");
      }),
    close: () => (p.stdin.end(), new Promise((r) => p.on("exit", r))),
  };
}

async function tcpServer(size) {
  const p = spawn(echo, ["tcp", String(size)], { stdio: ["ignore", "pipe", "ignore"] });
  const port = await new Promise((r) => p.stdout.once("data", (d) => r(Number(String(d).trim()))));
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), token: "0".repeat(43), close: () => p.kill() };
}

async function run(clients, era, call) {
  let id = 1;
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(clients.map(async (c) => {
    for (let i = 0; i < N; i++) await c.send(message(era, call, id++));
  }));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const u = process.cpuUsage(u0);
  const calls = N * clients.length;
  return { rate: calls / s, client: (u.user + u.system) / calls };
}

console.log(`${N} calls per client per run, ${ROUNDS} rounds (paired, alternating); medians`);
console.log("workload (null server)            clients  era   answer   pipe/s   HTTP/s  HTTP/pipe  client CPU/call pipe  HTTP");
for (const call of CALLS)
  for (const k of CLIENTS)
    for (const era of ERAS) {
      const size = bytes(era, call);
      const srv = await tcpServer(size);
      const pipes = Array.from({ length: k }, () => pipeClient(size));
      const https = await Promise.all(Array.from({ length: k }, () => httpClient(srv, era)));
      for (const c of [...pipes, ...https]) for (let i = 0; i < 30; i++) await c.send(message(era, call, 9000 + i));
      const ratios = [], pr = [], hr = [], pc = [], hc = [];
      for (let r = 0; r < ROUNDS; r++) {
        let a, b;
        if (r % 2 === 0) (a = await run(pipes, era, call)), (b = await run(https, era, call));
        else (b = await run(https, era, call)), (a = await run(pipes, era, call));
        ratios.push(b.rate / a.rate), pr.push(a.rate), hr.push(b.rate), pc.push(a.client), hc.push(b.client);
      }
      const name = call === "ping" ? (era === "2025" ? "ping" : "server/discover") : "tools/call search_tools";
      console.log(
        `${name.padEnd(34)}${String(k).padStart(7)}  ${era}  ${String(size).padStart(5)} B` +
          `${median(pr).toFixed(0).padStart(9)}${median(hr).toFixed(0).padStart(9)}${median(ratios).toFixed(2).padStart(10)}x` +
          `${median(pc).toFixed(0).padStart(18)} us ${median(hc).toFixed(0).padStart(4)} us`,
      );
      for (const c of https) c.close();
      await Promise.all(pipes.map((c) => c.close()));
      srv.close();
    }
