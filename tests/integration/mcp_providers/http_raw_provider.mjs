// A raw Streamable HTTP MCP provider for failure injection: JSON-RPC by
// hand on node's http module, no SDK, so it can break the transport on
// purpose.  127.0.0.1, a random port; prints "listening PORT".
// Tools (tools/call): ok, hang (never answers), garbage (a 200 body that
// is not JSON), sse_garbage (an event whose data is not JSON), http500
// (HTTP 500), huge (a 3 MB body), drop_session (answers, then forgets
// every session: the next request gets 404), sse_ok (the answer as an
// event stream, after a progress notification), sse_resume (an event
// stream with event ids and `retry: 700` that drops before the answer;
// the answer comes on a GET with Last-Event-ID, which is logged with the
// time since the drop).
// Env RAW_LOG: a file it appends one JSON line to per HTTP request.
import { createServer } from "node:http";
import { appendFileSync } from "node:fs";

const log = (o) => {
  if (process.env.RAW_LOG) appendFileSync(process.env.RAW_LOG, JSON.stringify(o) + "\n");
};
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
});
const tools = [
  tool("ok", "Answer fine (raw HTTP provider)."),
  tool("hang", "Never answer the request."),
  tool("garbage", "Answer with a body that is not JSON."),
  tool("sse_garbage", "Answer with an event stream whose event is not JSON."),
  tool("http500", "Answer with HTTP 500 internal explosion."),
  tool("huge", "Answer with one huge body."),
  tool("drop_session", "Answer, then forget the session like a restarted server."),
  tool("sse_ok", "Answer on an event stream after a progress notification."),
  tool("sse_resume", "Answer on a resumed event stream after the first one drops."),
];
const dropped = new Map(); // last event id -> { answer, at }
const live = new Set();
let next = 0;
const json = (res, status, obj, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(obj));
};
const result = (id, r) => ({ jsonrpc: "2.0", id, result: r });

createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  let m;
  try {
    m = JSON.parse(Buffer.concat(chunks).toString() || "null");
  } catch {
    m = null;
  }
  const sid = req.headers["mcp-session-id"];
  const lastId = req.headers["last-event-id"];
  const d = lastId && dropped.get(lastId);
  log({ http: req.method, rpc: m?.method ?? null, session: sid ?? null, tool: m?.params?.name ?? null,
    lastEventId: lastId ?? null, sinceDropMs: d ? Date.now() - d.at : null });
  if (req.method === "GET" && d) {
    dropped.delete(lastId);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(`id: ${lastId.replace(/-0$/, "-1")}\ndata: ${JSON.stringify(d.answer)}\n\n`);
    return res.end();
  }
  if (req.method === "GET") return res.writeHead(405, { allow: "POST, DELETE" }).end();
  if (req.method === "DELETE") {
    live.delete(sid);
    return res.writeHead(200).end();
  }
  if (m?.method === "initialize") {
    const s = `raw-${++next}`;
    live.add(s);
    return json(res, 200, result(m.id, {
      protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "raw-http", version: "1" },
    }), { "mcp-session-id": s });
  }
  if (!live.has(sid)) return json(res, 404, { error: "unknown session" });
  if (m?.id === undefined) return res.writeHead(202).end();  // notifications, answers
  if (m.method === "ping") return json(res, 200, result(m.id, {}));
  if (m.method === "tools/list") return json(res, 200, result(m.id, { tools }));
  if (m.method !== "tools/call") return json(res, 200, { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } });
  const name = m.params.name;
  const text = (t) => result(m.id, { content: [{ type: "text", text: t }] });
  if (name === "ok") return json(res, 200, text("raw http ok"));
  if (name === "hang") return;  // the request stays open
  if (name === "garbage") return res.writeHead(200, { "content-type": "application/json" }).end("this is {not json");
  if (name === "http500") return res.writeHead(500, { "content-type": "text/plain" }).end("internal explosion");
  if (name === "huge") return json(res, 200, text("x".repeat(3 << 20)));
  if (name === "drop_session") {
    json(res, 200, text("dropped"));
    live.clear();
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if (name === "sse_resume") {
    const id = `r${++next}-0`;
    res.write(`id: ${id}\nretry: 700\ndata: \n\n`);
    setTimeout(() => {
      dropped.set(id, { answer: text("raw resumed ok"), at: Date.now() });
      res.socket.destroy(); // the link drops before the answer
    }, 50);
    return;
  }
  if (name === "sse_garbage") {
    res.write("data: {this is not json\n\n");
    return;  // the stream stays open: vthost must not wait for it
  }
  // sse_ok: a comment, a progress notification split over two data lines, CRLF line ends
  const token = m.params._meta?.progressToken;
  res.write(": keep-alive\r\n\r\n");
  if (token !== undefined)
    res.write(`event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress",\r\ndata: "params":{"progressToken":${token},"progress":1,"total":2,"message":"half"}}\r\n\r\n`);
  setTimeout(() => {
    res.write(`data: ${JSON.stringify(text("raw sse ok"))}\n\n`);
    res.end();
  }, 50);
}).listen(0, "127.0.0.1", function () {
  console.log(`listening ${this.address().port}`);
});
