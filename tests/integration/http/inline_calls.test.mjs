// A read-only tool's call from a client that can be asked nothing runs on
// its connection's thread and its SSE answer goes out whole; a client
// that can be asked still gets the call's approval on the call's stream
// while the call waits for it, and a client that cannot is never left
// waiting.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, connect, initSession, post, sdk, cleanup, waitFor, ALLOW_ALL } from "./http_lib.mjs";

after(cleanup);

const SEARCH = { name: "search_tools", arguments: { query: "run a shell command", limit: 2 } };
const call = (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: SEARCH });
const H25 = { "MCP-Protocol-Version": "2025-11-25" };

test("a cheap call's SSE answer is one response with a Content-Length, priming event first", async () => {
  const srv = await startServer();
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const r0 = await post(srv, init);
  const session = r0.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session, headers: H25 });
  for (let id = 2; id < 5; id++) {
    const r = await post(srv, call(id), { session, headers: H25 });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-type"), /^text\/event-stream/);
    assert.equal(Number(r.headers.get("content-length")), Buffer.byteLength(r.text), "sent whole, not chunked");
    const events = r.text.split("\n\n").filter((e) => e);
    assert.match(events[0], /^id: \d+-0\nretry: \d+\ndata: $/, "the priming event comes first");
    assert.match(events[1], /^id: \d+-1\nevent: message\ndata: /);
    const msg = JSON.parse(events[1].split("data: ")[1]);
    assert.equal(msg.id, id);
    assert.ok(msg.result.content[0].text.length > 0);
  }
  // the access log still names the tool and its decision (its lines are
  // written within 10 ms of the request's end)
  await waitFor(() => /"rpc":"tools\/call","tool":"search_tools","decision":"allow"/.test(srv.stderr()), 3000, "the access line");
});

test("a read-only tool that needs approval asks a client that declared elicitation, on the call's stream", async () => {
  const srv = await startServer({ toml: `${ALLOW_ALL}ask = ["search_tools"]\n` });
  const { ElicitRequestSchema } = await sdk("types.js");
  const c = await connect(srv, { capabilities: { elicitation: {} } });
  const asked = [];
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: "approve" } };
  });
  const r = await c.callTool(SEARCH);
  assert.equal(asked.length, 1, "the approval reached the client while the call waited");
  assert.match(asked[0], /search_tools/);
  assert.notEqual(r.isError, true, JSON.stringify(r));
});

test("the same call from a client that can be asked nothing is answered at once, never left waiting", async () => {
  const srv = await startServer({ toml: `${ALLOW_ALL}ask = ["search_tools"]\n` });
  const session = await initSession(srv);
  const t0 = Date.now();
  const r = await post(srv, call(7), { session });
  assert.equal(r.status, 200, r.text);
  assert.ok(Date.now() - t0 < 5000, `answered after ${Date.now() - t0} ms`);
  const data = r.text.split("\n").find((l) => l.startsWith("data: {"));
  const msg = JSON.parse(data.slice(6));
  assert.equal(msg.id, 7);
  assert.equal(msg.result.isError, true, "not approved: nobody could be asked");
});
