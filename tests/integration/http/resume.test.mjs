// Resumable streams (Streamable HTTP 2025-11-25, "Resumability and
// Redelivery"): a POST's SSE stream and the GET stream open with a
// priming event (an id, `retry`, empty data), every event carries an id,
// and a client whose connection drops mid-call reconnects with GET and
// Last-Event-ID and gets what it missed -- the call's answer -- instead of
// a cancelled call.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, cleanup, post, INIT, sleep } from "./http_lib.mjs";

after(cleanup);

const init25 = { ...INIT, params: { ...INIT.params, protocolVersion: "2025-11-25" } };

async function session25(srv) {
  const r = await post(srv, init25);
  assert.equal(r.status, 200, r.text);
  const session = r.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session });
  return session;
}

// Parse the SSE events in `text`: [{id, retry, data, event}].
function events(text) {
  return text
    .split("\n\n")
    .filter((b) => b.trim() && !b.startsWith(":"))
    .map((b) => {
      const e = { data: null };
      for (const line of b.split("\n")) {
        const m = line.match(/^(id|retry|data|event): ?(.*)$/);
        if (m) e[m[1]] = m[2];
      }
      return e;
    });
}

// Read a streaming response until `until(text)` holds or ms pass.
async function readUntil(res, until, ms) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let text = "";
  const end = Date.now() + ms;
  while (!until(text) && Date.now() < end) {
    const r = await Promise.race([reader.read(), sleep(end - Date.now()).then(() => ({ timeout: true }))]);
    if (r.timeout || r.done) break;
    text += dec.decode(r.value, { stream: true });
  }
  return { text, reader };
}

const headers = (srv, session, extra = {}) => ({
  Authorization: `Bearer ${srv.token}`,
  "Mcp-Session-Id": session,
  "MCP-Protocol-Version": "2025-11-25",
  ...extra,
});

test("a call's stream opens with a priming event and resumes after a dropped connection", async () => {
  const srv = await startServer();
  const session = await session25(srv);
  const ac = new AbortController();
  const call = {
    jsonrpc: "2.0",
    id: 41,
    method: "tools/call",
    params: { name: "exec_command", arguments: { cmd: "sleep 2; echo RESUMED-$((40+2))", yield_time_ms: 20000 } },
  };
  const res = await fetch(srv.url, {
    method: "POST",
    headers: headers(srv, session, { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }),
    body: JSON.stringify(call),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /text\/event-stream/);
  const { text } = await readUntil(res, (t) => t.includes("\n\n"), 5000);
  const [prime] = events(text);
  assert.ok(prime?.id, `a priming event with an id: ${JSON.stringify(text)}`);
  assert.equal(prime.data, "", "the priming event's data is empty");
  assert.ok(Number(prime.retry) > 0, `a retry field: ${JSON.stringify(text)}`);
  ac.abort(); // the link drops mid-call
  await sleep(600);

  const again = await fetch(srv.url, {
    headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": prime.id }),
    signal: AbortSignal.timeout(15000),
  });
  assert.equal(again.status, 200, await again.clone().text().catch(() => ""));
  const body = await again.text(); // ends once the answer is out
  const evs = events(body).filter((e) => e.data);
  const answer = evs.map((e) => JSON.parse(e.data)).find((m) => m.id === 41);
  assert.ok(answer, `the call's answer was replayed: ${body}`);
  assert.match(JSON.stringify(answer.result), /RESUMED-42/, "the call ran to its end, not cancelled");
  for (const e of evs) assert.ok(e.id, "every event carries an id");

});

// A stream that has finished (its answer delivered) is still resumable
// within the window: the events kept are replayed and the stream ends
// cleanly.  A 404 there reads to a Streamable-HTTP client as "session
// gone", and it would start over.
test("resuming a finished stream replays what is kept and ends cleanly, not 404", async () => {
  const srv = await startServer();
  const session = await session25(srv);
  const call = { jsonrpc: "2.0", id: 51, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "echo DONE-$((50+1))" } } };
  const res = await fetch(srv.url, {
    method: "POST",
    headers: headers(srv, session, { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }),
    body: JSON.stringify(call),
    signal: AbortSignal.timeout(15000),
  });
  const evs = events(await res.text()); // the whole stream: it has finished
  const prime = evs[0];
  assert.ok(prime?.id && prime.data === "", `a priming event: ${JSON.stringify(evs)}`);
  assert.ok(evs.some((e) => e.data && JSON.parse(e.data).id === 51), "the answer came");
  for (const lastId of [prime.id, prime.id]) { // and again: the replay keeps the log
    const again = await fetch(srv.url, {
      headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": lastId }),
      signal: AbortSignal.timeout(5000),
    });
    const body = await again.text(); // ends by itself: the stream is over
    assert.equal(again.status, 200, body);
    assert.match(again.headers.get("content-type"), /text\/event-stream/);
    const replayed = events(body).filter((e) => e.data).map((e) => JSON.parse(e.data));
    const answer = replayed.find((m) => m.id === 51);
    assert.ok(answer, `the answer replayed: ${body}`);
    assert.match(JSON.stringify(answer.result), /DONE-51/);
  }
  // the last event's id: nothing after it, an empty stream that ends
  const lastEv = evs.filter((e) => e.id).at(-1);
  const tail = await fetch(srv.url, {
    headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": lastEv.id }),
    signal: AbortSignal.timeout(5000),
  });
  const tailBody = await tail.text();
  assert.equal(tail.status, 200, tailBody);
  assert.equal(events(tailBody).filter((e) => e.data).length, 0, tailBody);
  // the session lives on
  const ping = await post(srv, { jsonrpc: "2.0", id: 52, method: "ping" }, { session });
  assert.equal(ping.status, 200, ping.text);
  // a stream this session never had is still no stream of it
  const [no] = prime.id.split("-");
  const never = await fetch(srv.url, {
    headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": `${Number(no) + 50}-1` }),
    signal: AbortSignal.timeout(5000),
  });
  assert.equal(never.status, 404);
  await never.text();
});

// A request answered with JSON gave its client no event id, so nothing of
// it can be resumed: it keeps no log, and a run of such answers (pings,
// tools/list) does not push a finished call's log out of the session's
// keep, whose room is HTTP_SSE_MAX_HELD (16) logs.
test("JSON answers after a finished call leave its stream resumable", async () => {
  const srv = await startServer();
  const session = await session25(srv);
  const call = { jsonrpc: "2.0", id: 61, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "echo KEPT-$((60+1))" } } };
  const res = await fetch(srv.url, {
    method: "POST",
    headers: headers(srv, session, { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }),
    body: JSON.stringify(call),
    signal: AbortSignal.timeout(15000),
  });
  const [prime] = events(await res.text());
  assert.ok(prime?.id && prime.data === "", "a priming event");
  for (let i = 0; i < 40; i++) {
    const r = await post(srv, { jsonrpc: "2.0", id: 100 + i, method: "ping" }, { session });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-type"), /application\/json/);
  }
  const again = await fetch(srv.url, {
    headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": prime.id }),
    signal: AbortSignal.timeout(5000),
  });
  const body = await again.text();
  assert.equal(again.status, 200, body);
  const answer = events(body).filter((e) => e.data).map((e) => JSON.parse(e.data)).find((m) => m.id === 61);
  assert.ok(answer, `the call's answer is replayed after 40 JSON answers: ${JSON.stringify(body)}`);
  assert.match(JSON.stringify(answer.result), /KEPT-61/);
});

test("the GET stream is primed too, and a foreign Last-Event-ID is refused clearly", async () => {
  const srv = await startServer();
  const session = await session25(srv);
  const ac = new AbortController();
  const res = await fetch(srv.url, { headers: headers(srv, session, { Accept: "text/event-stream" }), signal: ac.signal });
  assert.equal(res.status, 200);
  const { text } = await readUntil(res, (t) => t.includes("\n\n"), 5000);
  const [prime] = events(text);
  assert.ok(prime?.id && prime.data === "" && Number(prime.retry) > 0, JSON.stringify(text));
  ac.abort();
  await sleep(500);
  // A new GET without Last-Event-ID still gets a stream (the held one gives way).
  const ac2 = new AbortController();
  const fresh = await fetch(srv.url, { headers: headers(srv, session, { Accept: "text/event-stream" }), signal: ac2.signal });
  assert.equal(fresh.status, 200);
  ac2.abort();
  const bad = await fetch(srv.url, {
    headers: headers(srv, session, { Accept: "text/event-stream", "Last-Event-ID": "not-ours" }),
    signal: AbortSignal.timeout(5000),
  });
  assert.equal(bad.status, 404);
  assert.match(await bad.text(), /Last-Event-ID/);
});

test("clients of 2025-06-18 get no priming event (their SDKs cannot read empty data)", async () => {
  const srv = await startServer();
  const r = await post(srv, INIT); // 2025-06-18
  const session = r.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { session });
  const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "echo OLD" } } };
  const res = await fetch(srv.url, {
    method: "POST",
    headers: { ...headers(srv, session, { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }), "MCP-Protocol-Version": "2025-06-18" },
    body: JSON.stringify(call),
    signal: AbortSignal.timeout(10000),
  });
  const evs = events(await res.text());
  assert.ok(evs.length >= 1);
  assert.ok(evs.every((e) => e.data), "no empty-data event");
});

// A TCP relay to srv that cuts the connection of the first tools/call
// once its answer has begun with a priming event (`retry:`) -- the link
// dropping mid-call, as a flaky network would.
async function cuttingRelay(srv) {
  const net = await import("node:net");
  const { hostname, port } = new URL(srv.url);
  let cut = 0;
  const relay = net.createServer((down) => {
    const up = net.connect(Number(port), hostname);
    let req = "", resp = ""; // the connection's current request and its answer so far
    down.on("data", (d) => {
      const t = d.toString("latin1");
      if (/^(GET|POST|DELETE) /.test(t)) (req = t), (resp = "");
      else req += t;
      up.write(d);
    });
    up.on("data", (d) => {
      resp += d.toString("latin1");
      down.write(d);
      if (!cut && req.includes('"tools/call"') && /\nretry: \d+\n/.test(resp)) {
        cut++;
        setTimeout(() => (down.destroy(), up.destroy()), 100);
      }
    });
    const end = () => (down.destroy(), up.destroy());
    down.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
  });
  await new Promise((r) => relay.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${relay.address().port}/mcp`, cuts: () => cut, close: () => relay.close() };
}

test("the official SDK client finishes a call across a dropped link, resuming with Last-Event-ID", async () => {
  const { sdk } = await import("./http_lib.mjs");
  const srv = await startServer();
  const relay = await cuttingRelay(srv);
  const { Client } = await sdk("client/index.js");
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(new URL(relay.url), {
    requestInit: { headers: { Authorization: `Bearer ${srv.token}` } },
  });
  const client = new Client({ name: "resume-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  assert.equal(transport.protocolVersion, "2025-11-25");
  const r = await client.callTool(
    { name: "exec_command", arguments: { cmd: "sleep 2; echo SURVIVED-$((6*7))", yield_time_ms: 20000 } },
    undefined,
    { timeout: 30000 },
  );
  assert.equal(relay.cuts(), 1, "the link was cut once, mid-call");
  assert.match(JSON.stringify(r), /SURVIVED-42/);
  // the access log line is written once the response is complete on the
  // server's side, which may be just after the client has read it
  const logged = () => /"method":"GET","path":"\/mcp","status":200/.test(srv.stderr());
  for (let i = 0; i < 40 && !logged(); i++) await sleep(50);
  const resumed = logged();
  assert.ok(resumed, "a GET resumed the stream");
  await client.close();
  relay.close();
});
