// Every request gets an answer: bodies the HTTP layer took but the
// engine refused (trailing bytes, `01`, `1.`), ids that are neither
// string nor number, media types that only begin like JSON, and a prompt
// for a client that takes only JSON answers.  Each of these once went
// unanswered (the request hung), was taken as a notification (202) or
// passed as JSON.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, cleanup, initSession, post, INIT, ALLOW_ALL } from "./http_lib.mjs";

after(cleanup);

const init25 = { ...INIT, params: { ...INIT.params, protocolVersion: "2025-11-25" } };

// A POST with a time limit: a hung request fails the test instead of it.
async function postRaw(srv, session, raw, { ctype = "application/json", accept = "application/json, text/event-stream" } = {}) {
  const res = await fetch(srv.url, {
    method: "POST",
    headers: { Authorization: `Bearer ${srv.token}`, "Content-Type": ctype, Accept: accept, "Mcp-Session-Id": session },
    body: raw,
    signal: AbortSignal.timeout(8000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}

test("bodies the engine would refuse get a parse error, never silence", async () => {
  const srv = await startServer();
  const session = await initSession(srv);
  for (const raw of [
    '{"jsonrpc":"2.0","id":1,"method":"ping"} x',
    '{"jsonrpc":"2.0","id":01,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}\u0000',
  ]) {
    const r = await postRaw(srv, session, raw);
    assert.equal(r.status, 400, `${JSON.stringify(raw)}: ${r.text}`);
    assert.equal(r.json?.error?.code, -32700, r.text);
    assert.equal(r.json.id, null);
  }
  // whitespace after the message is fine
  const ok = await postRaw(srv, session, '{"jsonrpc":"2.0","id":7,"method":"ping"}\r\n ');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.id, 7);
});

test("a request whose id is null or true is an Invalid Request, not a notification", async () => {
  const srv = await startServer();
  const session = await initSession(srv);
  for (const id of [null, true, { a: 1 }]) {
    const r = await postRaw(srv, session, JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    assert.equal(r.status, 400, `id ${JSON.stringify(id)}: ${r.status} ${r.text}`);
    assert.equal(r.json?.error?.code, -32600);
    assert.match(r.json.error.message, /"id" must be a string or a number/);
  }
});

test("media types are parsed whole: application/jsonfoo is not JSON, parameters are", async () => {
  const srv = await startServer();
  const session = await initSession(srv);
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
  for (const ctype of ["application/jsonfoo", "application/json-seq", "text/plain"]) {
    const r = await postRaw(srv, session, ping, { ctype });
    assert.equal(r.status, 415, `${ctype}: ${r.status} ${r.text}`);
  }
  for (const ctype of ["application/json; charset=utf-8", "Application/JSON", "application/json ;charset=UTF-8"]) {
    const r = await postRaw(srv, session, ping, { ctype });
    assert.equal(r.status, 200, `${ctype}: ${r.status} ${r.text}`);
  }
  // An Accept range with q=0 refuses that type; a GET needs the SSE type.
  const get = await fetch(srv.url, {
    headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": session, Accept: "text/event-streamx, text/event-stream;q=0" },
    signal: AbortSignal.timeout(5000),
  });
  assert.equal(get.status, 406);
  await get.text();
});

test("a client that declares elicitation but takes only JSON gets its call refused, not hung", async () => {
  const srv = await startServer({ toml: "" }); // no allow rules: exec_command asks
  const init = { ...init25, params: { ...init25.params, capabilities: { elicitation: {} } } };
  const r0 = await post(srv, init);
  const session = r0.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session });
  const call = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "echo ASKED" } } };
  const t0 = Date.now();
  const r = await postRaw(srv, session, JSON.stringify(call), { accept: "application/json" });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.id, 9);
  assert.equal(r.json.result?.isError, true, r.text);
  assert.doesNotMatch(r.text, /ASKED\\n/);
  assert.ok(Date.now() - t0 < 6000, "answered at once");
});

test("a cancelled call's SSE stream ends", async () => {
  const srv = await startServer();
  const r0 = await post(srv, init25);
  const session = r0.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session });
  const h = { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": session, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const call = { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "sleep 30", yield_time_ms: 30000 } } };
  const t0 = Date.now();
  const res = await fetch(srv.url, { method: "POST", headers: h, body: JSON.stringify(call), signal: AbortSignal.timeout(20000) });
  assert.match(res.headers.get("content-type"), /text\/event-stream/);
  const body = res.text();
  await new Promise((r) => setTimeout(r, 800));
  const c = await post(srv, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 11, reason: "test" } }, { session });
  assert.equal(c.status, 202);
  await body; // the stream ends (a timeout rejects)
  assert.ok(Date.now() - t0 < 15000, "ended long before the command would have");
});

test("a session's empty spool view goes with the session", async () => {
  const { readdirSync, existsSync } = await import("node:fs");
  const { join } = await import("node:path");
  const srv = await startServer();
  const dir = join(srv.ws, ".vtcode/context/tool_outputs");
  for (let i = 0; i < 3; i++) {
    const session = await initSession(srv);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "true" } } };
    const r = await postRaw(srv, session, JSON.stringify(call), { accept: "application/json" });
    assert.equal(r.status, 200, r.text);
    const views = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith("c-")) : [];
    if (i === 0 && views.length === 0) return; // no sandbox mount namespace here: no views made
    const del = await fetch(srv.url, { method: "DELETE", headers: { Authorization: `Bearer ${srv.token}`, "Mcp-Session-Id": session } });
    assert.equal(del.status, 200);
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith("c-")), [], "no empty view left behind");
});

test("calls in flight when the server gets SIGTERM are answered, 20 of 20", async () => {
  const srv = await startServer({ httpToml: "shutdown_grace_seconds = 2\nmax_sessions_per_client = 32\n" });
  const calls = [];
  for (let i = 0; i < 20; i++) {
    const session = await initSession(srv);
    // a command that ignores SIGTERM, with a child that does too
    const call = { jsonrpc: "2.0", id: 500 + i, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "trap '' TERM; sleep 60 & wait", yield_time_ms: 30000 } } };
    calls.push(
      fetch(srv.url, {
        method: "POST",
        headers: { Authorization: `Bearer ${srv.token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": session },
        body: JSON.stringify(call),
        signal: AbortSignal.timeout(30000),
      }).then((r) => r.text(), (e) => `failed: ${e.message}`),
    );
  }
  await new Promise((r) => setTimeout(r, 1500));
  srv.child.kill("SIGTERM");
  const outs = await Promise.all(calls);
  const answered = outs.filter((o, i) => new RegExp(`"id":${500 + i},"(error|result)"`).test(o));
  assert.equal(answered.length, 20, outs.filter((o, i) => !answered.includes(o)).join("\n---\n"));
  assert.equal((await srv.exited).code, 0);
});
