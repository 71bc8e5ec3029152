// What the HTTP benchmarks share: the workloads' messages in both protocol
// eras, a `vthost serve --http` started with its access log in a file, a
// raw keep-alive client, a process's CPU time and a median.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, readdirSync } from "node:fs";
import net from "node:net";

export const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
const SEARCH = { name: "search_tools", arguments: { query: "github pull request", limit: 3, detail_level: "name" } };

// The message of workload `call` ("ping" or "search") in `era`, id `id`;
// a 2026-07-28 client has no ping, its cheapest request is server/discover.
export function message(era, call, id) {
  if (era === "2025")
    return call === "ping"
      ? { jsonrpc: "2.0", id, method: "ping" }
      : { jsonrpc: "2.0", id, method: "tools/call", params: SEARCH };
  return call === "ping"
    ? { jsonrpc: "2.0", id, method: "server/discover", params: { _meta: META } }
    : { jsonrpc: "2.0", id, method: "tools/call", params: { ...SEARCH, _meta: META } };
}
export const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
};

// The CPU time of process `pid`'s threads alive now, in nanoseconds
// (/proc/PID/task/TID/schedstat: exact, where /proc/PID/stat's ticks are
// 10 ms, three or four of them in a one-client run).
// A thread that ends between two readings takes its time with it: for
// servers whose threads outlive a run (keep-alive connections, kept
// workers).
export function cpuNs(pid) {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      /* ended while read */
    }
  }
  return ns;
}

export const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// `vthost ARGS` (ending in `serve --http 127.0.0.1:0`) with its stderr,
// the access log, in the file `log`: read by the clients, a line per
// request would wake them once per call and bill the transport for the
// bench's own reading.  Resolves once it listens, with its URL and the
// bearer token read from `tokenFile`.
export async function startHttpServer(bin, args, env, log, tokenFile) {
  const fd = openSync(log, "w");
  const p = spawn(bin, args, { stdio: ["ignore", "ignore", fd], env });
  closeSync(fd);
  let err = "";
  while (!/listening on (\S+),/.test(err)) {
    if (p.exitCode !== null) throw new Error(`${bin} serve --http exited: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
    err = readFileSync(log, "utf8");
  }
  const url = new URL(err.match(/listening on (\S+),/)[1]);
  const token = readFileSync(tokenFile, "utf8").trim();
  return { p, url, token, close: () => (p.kill("SIGTERM"), new Promise((r) => p.on("exit", r))) };
}

// A client on its own keep-alive connection to `srv`, writing each request
// whole and reading its response to the end (Content-Length or the last
// chunk): as light as a stdio line reader, so the figure is the
// transport's, not an HTTP client library's.  A 2025-era client opens a
// session first.
export async function httpClient(srv, era) {
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
