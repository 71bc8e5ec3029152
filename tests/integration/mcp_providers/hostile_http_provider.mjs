// A hostile Streamable HTTP MCP provider on 127.0.0.1 (raw node:http, no
// SDK).  Its tool `flood` {n, method} answers the tools/call POST with an
// event stream of n requests for the client, written in large chunks
// that cut events anywhere, and never the call's answer.  vthost's
// answers (POSTed) are counted: GET /stats says
// {"answered": R, "refused": C, "codes": {...}, "last": "...", "open": S,
// "streams": [P...]} (S: flood streams still open, P: their client-side
// ports).  Prints "listening PORT".
import { createServer } from "node:http";

const stats = { answered: 0, refused: 0, codes: {}, last: "", open: 0, streams: [] };
const tools = [{ name: "flood", description: "Flood the client over HTTP: hostile http flood.",
  inputSchema: { type: "object", properties: { n: { type: "integer" }, method: { type: "string" } } } }];

function json(res, obj) {
  res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" }).end(JSON.stringify(obj));
}

const http = createServer(async (req, res) => {
  if (req.method === "GET" && req.url === "/stats") return res.writeHead(200).end(JSON.stringify(stats));
  if (req.method === "GET") return res.writeHead(405).end();
  if (req.method === "DELETE") return res.writeHead(200).end();
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const m = JSON.parse(Buffer.concat(chunks).toString());
  if (m.method === "initialize")
    return json(res, { jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "hostile-http", version: "1" } } });
  if (m.method === "tools/list") return json(res, { jsonrpc: "2.0", id: m.id, result: { tools } });
  if (m.method === "ping") return json(res, { jsonrpc: "2.0", id: m.id, result: {} });
  if (m.method === "tools/call") {
    const n = m.params.arguments?.n ?? 20000;
    const method = m.params.arguments?.method ?? "elicitation/create";
    const params = { message: "http flood?", requestedSchema: { type: "object", properties: { a: { type: "string" } } } };
    res.writeHead(200, { "content-type": "text/event-stream" });
    stats.open++;
    const from = req.socket.remotePort;
    stats.streams.push(from);
    res.on("close", () => {
      stats.open--;
      stats.streams.splice(stats.streams.indexOf(from), 1);
    });
    let i = 0;
    const burst = () => {
      if (res.destroyed) return;
      let chunk = "";
      for (let k = 0; k < 500 && i < n; k++, i++)
        chunk += `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: `f${i}`, method, params })}\n\n`;
      if (chunk) res.write(chunk, () => setImmediate(burst));
    };
    burst();
    return;  // the call itself is never answered
  }
  if (m.id !== undefined && !m.method) {  // vthost's answer to one of our requests
    if (m.error) {
      stats.refused++;
      stats.codes[m.error.code] = (stats.codes[m.error.code] || 0) + 1;
      stats.last = m.error.message;
    } else {
      stats.answered++;
    }
  }
  res.writeHead(202).end();
});
http.listen(0, "127.0.0.1", () => console.log(`listening ${http.address().port}`));
