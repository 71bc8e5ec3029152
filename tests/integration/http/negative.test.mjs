// What `vthost serve --http` refuses, with raw requests: missing and
// wrong tokens, a foreign Origin, unknown, missing and ended sessions,
// another client's session, an unsupported protocol version, oversized
// bodies, too many sessions or calls, slow clients, an unreadable token
// file, and listening beyond loopback without TLS.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { startServer, cleanup, post, initSession, INIT, bin, sleep, scratchDir, waitFor } from "./http_lib.mjs";

after(cleanup);

const srv = await startServer({
  httpToml: `allowed_origins = ["https://chat.example"]
max_sessions_per_client = 3
max_body_bytes = 65536
request_timeout_seconds = 2
connection_timeout_seconds = 2
`,
});

test("no token: 401 with WWW-Authenticate, nothing created", async () => {
  const r = await post(srv, INIT, { token: null });
  assert.equal(r.status, 401);
  assert.match(r.headers.get("www-authenticate"), /^Bearer /);
  assert.equal(r.headers.get("mcp-session-id"), null);
});

test("a wrong token or another scheme: 401 invalid_token / invalid_request", async () => {
  const r = await post(srv, INIT, { token: srv.token.slice(0, -1) + (srv.token.endsWith("0") ? "1" : "0") });
  assert.equal(r.status, 401);
  assert.match(r.headers.get("www-authenticate"), /error="invalid_token"/);
  const basic = await post(srv, INIT, { token: null, headers: { Authorization: `Basic ${srv.token}` } });
  assert.equal(basic.status, 401);
  assert.match(basic.headers.get("www-authenticate"), /error="invalid_request"/);
  // the wrong token is not echoed anywhere
  assert.doesNotMatch(r.text + basic.text, new RegExp(srv.token.slice(0, 16)));
});

test("a browser Origin not allowed: 403 (DNS rebinding); an allowed one passes", async () => {
  const bad = await post(srv, INIT, { headers: { Origin: "http://evil.example" } });
  assert.equal(bad.status, 403);
  assert.equal(bad.headers.get("mcp-session-id"), null);
  const ok = await post(srv, INIT, { headers: { Origin: "https://chat.example" } });
  assert.equal(ok.status, 200);
  await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": ok.headers.get("mcp-session-id") } });
});

test("sessions: required after initialize, unknown is 404, DELETE ends one", async () => {
  const none = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" });
  assert.equal(none.status, 400);
  const unknown = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { session: "0".repeat(32) });
  assert.equal(unknown.status, 404);
  const sid = await initSession(srv);
  const ok = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { session: sid });
  assert.equal(ok.status, 200);
  assert.ok(ok.json.result.tools.length >= 4);
  const del = await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid } });
  assert.equal(del.status, 200);
  const after = await post(srv, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { session: sid });
  assert.equal(after.status, 404);
});

test("an unsupported MCP-Protocol-Version is 400", async () => {
  const sid = await initSession(srv);
  const r = await post(srv, { jsonrpc: "2.0", id: 2, method: "ping" }, { session: sid, headers: { "MCP-Protocol-Version": "1999-01-01" } });
  assert.equal(r.status, 400);
  const ok = await post(srv, { jsonrpc: "2.0", id: 3, method: "ping" }, { session: sid, headers: { "MCP-Protocol-Version": "2025-06-18" } });
  assert.equal(ok.status, 200);
  await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid } });
});

test("an oversized body is 413 and runs nothing", async () => {
  const sid = await initSession(srv);
  const big = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "touch big-ran; echo " + "x".repeat(70000) } } };
  const r = await post(srv, big, { session: sid });
  assert.equal(r.status, 413);
  assert.match(r.json.error.message, /max_body_bytes/);
  const { existsSync } = await import("node:fs");
  assert.ok(!existsSync(join(srv.ws, "big-ran")));
  await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid } });
});

test("too many sessions for one client, every one in use: 429 with Retry-After", async () => {
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await initSession(srv));
  // a GET stream open on each: none of them is idle, none can make room
  const streams = [];
  for (const sid of ids) {
    const ac = new AbortController();
    const res = await fetch(srv.url, { headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid, Accept: "text/event-stream" }, signal: ac.signal });
    assert.equal(res.status, 200);
    streams.push(ac);
  }
  const r = await post(srv, INIT);
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers.get("retry-after")) > 0);
  for (const ac of streams) ac.abort();
  for (const sid of ids)
    await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid } });
  assert.equal((await post(srv, INIT)).status, 200);
});

test("a slow-loris client is cut off and does not hold up others", async () => {
  const { port, hostname } = new URL(srv.url);
  const sock = net.connect(Number(port), hostname);
  await new Promise((r) => sock.on("connect", r));
  let closed = false;
  sock.on("close", () => (closed = true));
  sock.on("error", () => {});
  sock.write("POST /mcp HTTP/1.1\r\nHost: x\r\n");
  // others are served meanwhile
  const h = await fetch(`${srv.base}/healthz`);
  assert.equal(h.status, 200);
  // silent past connection_timeout_seconds: closed by the server
  const t0 = Date.now();
  while (!closed && Date.now() - t0 < 8000) await sleep(100);
  assert.ok(closed, "the silent connection was closed");
  sock.destroy();
});

test("a body trickling in past request_timeout_seconds is cut off (408 in the log)", async () => {
  const { port, hostname } = new URL(srv.url);
  const sock = net.connect(Number(port), hostname);
  await new Promise((r) => sock.on("connect", r));
  let closed = false;
  let reply = "";
  sock.on("data", (d) => (reply += d));
  sock.on("close", () => (closed = true));
  sock.on("error", () => {});
  sock.write(`POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
  const t0 = Date.now();
  // one byte a second: never silent long enough for the idle timeout
  while (!closed && Date.now() - t0 < 10000) {
    sock.write("{");
    await sleep(1000);
  }
  assert.ok(closed, "the trickling request was cut off");
  assert.ok(Date.now() - t0 < 8000, `cut after ${Date.now() - t0} ms`);
  assert.doesNotMatch(reply, /200 OK/);
  const end = Date.now() + 3000;
  while (!/"status":408/.test(srv.stderr()) && Date.now() < end) await sleep(50);
  assert.match(srv.stderr(), /"status":408/);
  sock.destroy();
});

test("the access log names sessions, tools and decisions, never tokens", async () => {
  // lines are written within 10 ms of their requests' ends
  await waitFor(() => [401, 413, 429].every((c) => srv.stderr().includes(`"status":${c}`)), 3000, "the access lines");
  const err = srv.stderr();
  assert.match(err, /vthost access: \{.*"status":401/);
  assert.match(err, /"status":413/);
  assert.match(err, /"status":429/);
  const shown = err.indexOf(srv.token);
  assert.equal(err.indexOf(srv.token, shown + 1), -1, "the token appears only where it was shown once");
  assert.doesNotMatch(err, /Bearer [0-9a-f]{20}/);
});

test("a token file readable by others is refused; one given with --token-file is used", async () => {
  const dir = scratchDir("vthost-tok-");
  const f = join(dir, "tok");
  writeFileSync(f, "s3cret-token-of-the-test-0123456789\n");
  chmodSync(f, 0o644);
  const r = spawnSync(bin, ["serve", "--http", "127.0.0.1:0", "--token-file", f], { encoding: "utf8", timeout: 10000, cwd: dir });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /readable by others.*chmod 600/);
  chmodSync(f, 0o600);
  const s = await startServer({ tokenFile: f });
  assert.equal(s.token, "s3cret-token-of-the-test-0123456789");
  assert.equal((await post(s, INIT)).status, 200);
  assert.equal((await post(s, INIT, { token: srv.token })).status, 401);
  assert.doesNotMatch(s.stderr(), /s3cret-token/);
});

test("listening beyond loopback without TLS is refused before binding", () => {
  const dir = scratchDir("vthost-nl-");
  const r = spawnSync(bin, ["serve", "--http", "0.0.0.0:0"], { encoding: "utf8", timeout: 10000, cwd: dir, env: { ...process.env, XDG_CONFIG_HOME: dir } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0:0 without TLS/);
  assert.doesNotMatch(r.stderr, /serving MCP/);
});

test("healthz needs no token; other paths are 404", async () => {
  assert.equal((await fetch(`${srv.base}/healthz`)).status, 200);
  assert.equal((await fetch(`${srv.base}/other`)).status, 404);
});
