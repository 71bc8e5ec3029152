// Both MCP eras over `vthost serve --http`: a request naming 2026-07-28
// in its _meta is served without a session; initialize keeps working for
// 2025 clients; server/discover is answered with or without a session;
// versions the server does not speak get a JSON-RPC error; loopback
// Origins on any port pass on a loopback listener; idle sessions make
// room for new ones instead of locking their client out.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startServer, connect, cleanup, post, initSession, INIT, sleep } from "./http_lib.mjs";

after(cleanup);

const srv = await startServer({ httpToml: "max_sessions_per_client = 4\n" });

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
};
const H26 = { "MCP-Protocol-Version": "2026-07-28" };
const modern = (id, method, params = {}) => ({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } });
const del = (sid) => fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": sid } });

test("server/discover without a session: a JSON-RPC answer, never an HTTP refusal", async () => {
  const r = await post(srv, modern(1, "server/discover"), { headers: H26 });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.id, 1);
  assert.ok(r.json.result.supportedVersions.includes("2026-07-28"), r.text);
  assert.equal(r.headers.get("mcp-session-id"), null, "the stateless era has no session");
  // a 2025 client's probe, without _meta and without a session: the
  // engine's JSON-RPC error, which such a client falls back on
  const old = await post(srv, { jsonrpc: "2.0", id: 2, method: "server/discover", params: {} });
  assert.equal(old.status, 200, old.text);
  assert.equal(old.json.id, 2);
  assert.equal(old.json.error.code, -32601, old.text); // what every SDK's fallback keys on
  // and within a 2025 session it is answered too
  const sid = await initSession(srv);
  const inSession = await post(srv, modern(3, "server/discover"), { session: sid, headers: H26 });
  assert.equal(inSession.status, 200, inSession.text);
  assert.ok(inSession.json.result.supportedVersions.includes("2026-07-28"));
  await del(sid);
});

test("a 2026-07-28 tools/list and tools/call run statelessly, with ttlMs", async () => {
  const list = await post(srv, modern(1, "tools/list"), { headers: H26 });
  assert.equal(list.status, 200, list.text);
  assert.ok(list.json.result.tools.some((t) => t.name === "exec_command"), list.text);
  assert.equal(typeof list.json.result.ttlMs, "number", list.text);
  const call = await post(srv, modern(2, "tools/call", { name: "exec_command", arguments: { cmd: "echo stateless-$((40+2)) > era.txt; cat era.txt" } }), {
    headers: { ...H26, Accept: "application/json" },
  });
  assert.equal(call.status, 200, call.text);
  assert.equal(call.json.id, 2);
  assert.match(call.json.result.structuredContent.output, /stateless-42/);
  assert.equal(call.json.result.resultType, "complete");
  assert.equal(call.headers.get("mcp-session-id"), null);
  assert.ok(existsSync(join(srv.ws, "era.txt")));
});

test("a 2026-07-28 call streamed as SSE when the client takes it", async () => {
  const r = await post(srv, modern("s1", "tools/call", { name: "exec_command", arguments: { cmd: "echo sse-era" } }), { headers: H26 });
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type"), /text\/event-stream/);
  const data = r.text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
  const answer = data.find((m) => m.id === "s1");
  assert.match(answer.result.structuredContent.output, /sse-era/, r.text);
});

test("versions: unknown in _meta, header and _meta apart, unknown header on a 2025 message", async () => {
  const bodyOnly = await post(srv, { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } });
  assert.equal(bodyOnly.json.id, 7, bodyOnly.text);
  assert.equal(bodyOnly.json.error.code, -32022, bodyOnly.text);
  assert.ok(bodyOnly.json.error.data.supported.includes("2026-07-28"));
  const apart = await post(srv, modern(8, "tools/list"), { headers: { "MCP-Protocol-Version": "2025-11-25" } });
  assert.equal(apart.json.id, 8, apart.text);
  assert.equal(apart.json.error.code, -32020, apart.text);
  const sid = await initSession(srv);
  const unknown = await post(srv, { jsonrpc: "2.0", id: 9, method: "ping" }, { session: sid, headers: { "MCP-Protocol-Version": "2099-01-01" } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.id, 9, unknown.text);
  assert.equal(unknown.json.error.code, -32022);
  assert.ok(unknown.json.error.data.supported.includes("2025-11-25"));
  await del(sid);
});

test("initialize still negotiates 2025-11-25 and 2025-06-18", async () => {
  for (const v of ["2025-11-25", "2025-06-18"]) {
    const r = await post(srv, { ...INIT, params: { ...INIT.params, protocolVersion: v } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.protocolVersion, v);
    const sid = r.headers.get("mcp-session-id");
    assert.match(sid, /^[0-9a-f]{32}$/);
    await del(sid);
  }
});

test("a loopback Origin on another port passes; a foreign one does not", async () => {
  for (const origin of ["http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]:9", "http://localhost"]) {
    const r = await post(srv, modern(1, "server/discover"), { headers: { ...H26, Origin: origin } });
    assert.equal(r.status, 200, `${origin}: ${r.text}`);
  }
  for (const origin of ["http://evil.example", "http://localhost.evil.example:80", "https://localhost:6274", "http://127.0.0.1:80/x", "null"]) {
    const r = await post(srv, modern(1, "server/discover"), { headers: { ...H26, Origin: origin } });
    assert.equal(r.status, 403, origin);
  }
});

test("sessions never lock their client out: the least recently used idle one makes room", async () => {
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push(await initSession(srv));
  // the first is used again: the second is now the least recently used
  assert.equal((await post(srv, { jsonrpc: "2.0", id: 2, method: "ping" }, { session: ids[0] })).status, 200);
  const fifth = await post(srv, INIT);
  assert.equal(fifth.status, 200, fifth.text);
  const gone = await post(srv, { jsonrpc: "2.0", id: 3, method: "ping" }, { session: ids[1] });
  assert.equal(gone.status, 404, "the evicted session is gone: its client re-initialises");
  assert.equal(gone.headers.get("retry-after"), null);
  for (const sid of [ids[0], ids[2], ids[3]])
    assert.equal((await post(srv, { jsonrpc: "2.0", id: 4, method: "ping" }, { session: sid })).status, 200);
  for (const sid of [...ids, fifth.headers.get("mcp-session-id")]) await del(sid);
});

test("300 abandoned sessions, then a new SDK client still works", async () => {
  for (let i = 0; i < 300; i++) await initSession(srv);
  const c = await connect(srv);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "echo after-300" } });
  assert.match(r.structuredContent.output, /after-300/);
});

test("an idle session ends after idle_timeout_seconds; one whose commands live on stays", async () => {
  const s2 = await startServer({ httpToml: "idle_timeout_seconds = 1\nidle_timeout_with_commands_seconds = 60\n" });
  const plain = await initSession(s2);
  const busy = await initSession(s2);
  const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "sleep 30", yield_time_ms: 200 } } };
  const r = await post(s2, call, { session: busy, headers: { Accept: "application/json" } });
  assert.ok(r.json.result.structuredContent.session_id !== undefined, r.text);
  await sleep(3500);
  const gone = await post(s2, { jsonrpc: "2.0", id: 3, method: "ping" }, { session: plain });
  assert.equal(gone.status, 404, "the idle session without commands expired");
  const kept = await post(s2, { jsonrpc: "2.0", id: 4, method: "ping" }, { session: busy });
  assert.equal(kept.status, 200, "the session holding a running command is kept");
});

test("stateless requests are held to the client's limits: 429 with Retry-After while they are all busy", async () => {
  const s3 = await startServer({ httpToml: "max_sessions_per_client = 1\nmax_calls_per_session = 1\n" });
  const slow = post(s3, modern(1, "tools/call", { name: "exec_command", arguments: { cmd: "sleep 2; echo slow-done", yield_time_ms: 10000 } }), { headers: { ...H26, Accept: "application/json" } });
  await sleep(500);
  const busy = await post(s3, modern(2, "tools/list"), { headers: H26 });
  assert.equal(busy.status, 429, busy.text);
  assert.ok(Number(busy.headers.get("retry-after")) > 0);
  assert.match((await slow).json.result.structuredContent.output, /slow-done/);
  const after = await post(s3, modern(3, "tools/list"), { headers: H26 });
  assert.equal(after.status, 200, after.text);
});

test("a stateless request's slot is free once its answer is read: back-to-back requests at a limit of one", async () => {
  const s4 = await startServer({ httpToml: "max_sessions_per_client = 1\nmax_calls_per_session = 1\n" });
  // Each request is sent the moment the previous answer has been read: a
  // slot released only after the answer's bytes have left would refuse
  // some of them with 429.
  for (let i = 0; i < 60; i++) {
    const json = i % 3 === 2;
    const r = await post(s4, modern(10 + i, i % 3 ? "tools/call" : "tools/list",
      i % 3 ? { name: "search_tools", arguments: { query: "file" } } : {}),
      { headers: json ? { ...H26, Accept: "application/json" } : H26 });
    assert.equal(r.status, 200, `request ${i}: ${r.text}`);
  }
});
