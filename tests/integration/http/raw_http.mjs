// Raw HTTP/1.1 over a TCP socket, for the tests that need what fetch
// hides: headers sent without their body, bytes trickled one at a time,
// an interim `100 Continue`, connections held open by the hundred.  And
// the server process's resident memory and descriptors, from /proc.
import net from "node:net";
import { readdirSync, readFileSync } from "node:fs";

// A connection to srv, from `from` (a loopback address: 127.0.0.2, ...)
// when given; resolves once connected.  sock.got collects what the
// server sent, sock.closedAt is set (Date.now()) when it ended.
export function open(srv, from) {
  const { hostname, port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port), ...(from ? { localAddress: from } : {}) });
    sock.got = "";
    sock.closedAt = 0;
    sock.setEncoding("latin1");
    sock.on("data", (d) => (sock.got += d));
    sock.on("error", () => {}); // a reset is what some tests expect
    sock.on("close", () => (sock.closedAt = Date.now()));
    sock.once("connect", () => resolve(sock));
    sock.once("error", reject);
  });
}

// The head of a request: "METHOD PATH" and a header object.
export function head(method, path, headers = {}) {
  let h = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
  for (const [k, v] of Object.entries(headers)) h += `${k}: ${v}\r\n`;
  return h + "\r\n";
}

// The first final (non-1xx) status the server sent on sock, waiting up to
// ms; { status, interim: [1xx statuses before it], text } or status 0
// when none came (the connection closed or the time ran out).
export async function finalStatus(sock, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const heads = [...sock.got.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n/g)].map((m) => Number(m[1]));
    const final = heads.find((s) => s >= 200);
    if (final) return { status: final, interim: heads.filter((s) => s < 200), text: sock.got };
    if (sock.closedAt || Date.now() > end) return { status: 0, interim: heads, text: sock.got };
    await new Promise((r) => setTimeout(r, 10));
  }
}

// Write `total` bytes of body in 64 KiB pieces, as fast as the socket
// takes them, until done or the connection ends; resolves to the bytes
// written.
export async function pour(sock, total) {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  while (sent < total && !sock.closedAt && !sock.destroyed) {
    const n = Math.min(piece.length, total - sent);
    const more = sock.write(piece.subarray(0, n));
    sent += n;
    if (!more)
      await new Promise((r) => {
        const t = setInterval(() => (sock.closedAt || sock.destroyed) && done(), 20);
        const done = () => (clearInterval(t), r());
        sock.once("drain", done);
      });
  }
  return sent;
}

// VmRSS of a process, in KiB.
export function rssKiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return m ? Number(m[1]) : 0;
}

// How many descriptors a process holds.
export function fdCount(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}
