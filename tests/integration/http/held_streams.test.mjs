// A stream held for a resume does not keep its session from making room.
// Clients that close without ending their session (most: the SDKs, the
// conformance runner) drop their GET stream; vthost holds such a stream
// for the resume window in case the client comes back.  At the
// per-client session limit the least recently used idle session is ended
// for a newcomer, and a session whose only remains are held streams is
// idle: the next client gets in at once, not a 429 for a minute.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, cleanup, post, INIT, sleep } from "./http_lib.mjs";

after(cleanup);

const init25 = { ...INIT, params: { ...INIT.params, protocolVersion: "2025-11-25" } };

// A 2025-11-25 session that opens its GET stream, reads the priming
// event and drops the connection, as a closing SDK client does.
async function abandonedSession(srv) {
  const r = await post(srv, init25);
  assert.equal(r.status, 200, r.text);
  const session = r.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session });
  const ac = new AbortController();
  const res = await fetch(srv.url, {
    headers: { Authorization: `Bearer ${srv.token}`, Accept: "text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const first = await res.body.getReader().read();
  assert.match(new TextDecoder().decode(first.value), /^id: \S+\nretry: \d+\ndata: \n\n/);
  ac.abort();
  return session;
}

test("sessions whose GET streams were dropped make room for the next client", async () => {
  const srv = await startServer(); // default limits: 16 sessions per client, 60 s resume window
  const sessions = [];
  for (let i = 0; i < 16; i++) sessions.push(await abandonedSession(srv));
  await sleep(500); // the server notices the dropped connections (it polls them)
  const r = await post(srv, init25);
  assert.equal(r.status, 200, `the 17th client was refused: ${r.text}`);
  // the least recently used one made room; it is gone (404), the newest is not
  const oldest = await post(srv, { jsonrpc: "2.0", id: 2, method: "ping" }, { session: sessions[0], headers: { "MCP-Protocol-Version": "2025-11-25" } });
  assert.equal(oldest.status, 404, oldest.text);
  const newest = await post(srv, { jsonrpc: "2.0", id: 3, method: "ping" }, { session: sessions[15], headers: { "MCP-Protocol-Version": "2025-11-25" } });
  assert.equal(newest.status, 200, newest.text);
});
