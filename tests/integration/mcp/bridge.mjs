// A stdio-to-Streamable-HTTP bridge built on the MCP SDK: each HTTP
// session gets its own `vthost serve` child, and messages pass through
// unchanged in both directions.  The conformance suite speaks only
// Streamable HTTP, hence this bridge.
//
//   node bridge.mjs VTHOST_BIN [vthost args...]   prints "URL <url>"
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

function isResponse(m) {
  return m && m.id !== undefined && (m.result !== undefined || m.error !== undefined);
}

// One HTTP session wired to one vthost child.
async function openSession(command, args, env, sessions) {
  const stdio = new StdioClientTransport({ command, args, env, stderr: "inherit" });
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, http),
  });
  // Notifications about a request travel on that request's stream:
  // progress by its token, anything else with the latest open request.
  const byToken = new Map();
  const open = [];
  http.onmessage = (msg) => {
    if (msg.method && msg.id !== undefined) {
      open.push(msg.id);
      const tok = msg.params?._meta?.progressToken;
      if (tok !== undefined) byToken.set(tok, msg.id);
    }
    stdio.send(msg).catch(() => {});
  };
  stdio.onmessage = (msg) => {
    if (isResponse(msg)) {
      const i = open.indexOf(msg.id);
      if (i >= 0) open.splice(i, 1);
      for (const [t, id] of byToken) if (id === msg.id) byToken.delete(t);
      http.send(msg).catch(() => {});
      return;
    }
    let related;
    if (msg.method === "notifications/progress") related = byToken.get(msg.params?.progressToken);
    else if (!msg.id && open.length) related = open[open.length - 1];
    http.send(msg, related !== undefined ? { relatedRequestId: related } : undefined).catch(() => {});
  };
  let closing = false;
  const closeBoth = () => {
    if (closing) return;
    closing = true;
    if (http.sessionId) sessions.delete(http.sessionId);
    stdio.close().catch(() => {});
    http.close().catch(() => {});
  };
  stdio.onclose = closeBoth;
  http.onclose = closeBoth;
  await stdio.start();
  await http.start();
  return { http, close: closeBoth };
}

export async function startBridge(command, args, env = process.env) {
  const sessions = new Map();
  const all = [];
  const server = createServer(async (req, res) => {
    try {
      let body;
      if (req.method === "POST") {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          body = JSON.parse(text);
        } catch {
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
          return;
        }
      }
      const sid = req.headers["mcp-session-id"];
      let http = sid ? sessions.get(sid) : undefined;
      if (!http) {
        if (sid || req.method !== "POST") {
          res.writeHead(404).end("unknown session");
          return;
        }
        const s = await openSession(command, args, env, sessions);
        all.push(s);
        http = s.http;
      }
      await http.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  return {
    url,
    async close() {
      for (const s of all) s.close();
      await new Promise((r) => server.close(r));
      server.closeAllConnections?.();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, ...args] = process.argv.slice(2);
  const b = await startBridge(command, args);
  console.log(`URL ${b.url}`);
  const stop = () => b.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
