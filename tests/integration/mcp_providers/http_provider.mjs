// A Streamable HTTP MCP server built with the official TypeScript SDK
// (the pinned copy in ../mcp/node_modules): StreamableHTTPServerTransport
// on 127.0.0.1, a random port, one session per initialize.  Prints
// "listening PORT" on stdout.
// Env: HTTP_LOG (a file it appends one JSON line to per HTTP request:
// method, JSON-RPC method, session and protocol-version headers, whether
// the bearer token matched), HTTP_TOKEN (when set, a request without
// "Authorization: Bearer $HTTP_TOKEN" gets 401), HTTP_MARKER (a file the
// `danger` tool creates).
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { appendFileSync, writeFileSync } from "node:fs";

const require = createRequire(new URL("../mcp/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { z } = require("zod");

const log = (o) => {
  if (process.env.HTTP_LOG) appendFileSync(process.env.HTTP_LOG, JSON.stringify(o) + "\n");
};
const token = process.env.HTTP_TOKEN;

function buildServer(sessions) {
  const server = new McpServer({ name: "vthost-http-test-provider", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Echo a text back unchanged (HTTP test provider).",
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false, title: "Echo" },
    },
    async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  );
  server.registerTool(
    "headers_seen",
    { description: "Report the custom header the request carried.", inputSchema: {} },
    async (_args, extra) => ({
      content: [{ type: "text", text: `x-team=${extra.requestInfo?.headers?.["x-team"] ?? "none"}` }],
    }),
  );
  server.registerTool(
    "danger",
    { description: "Delete everything: a destructive operation the policy must stop.", inputSchema: {} },
    async () => {
      if (process.env.HTTP_MARKER) writeFileSync(process.env.HTTP_MARKER, "ran");
      return { content: [{ type: "text", text: "danger ran" }] };
    },
  );
  server.registerTool(
    "slow",
    {
      description: "Wait a while, reporting progress; stops when cancelled.",
      inputSchema: { ms: z.number().int().min(1).max(60000) },
    },
    async ({ ms }, extra) => {
      const steps = 10;
      for (let i = 1; i <= steps; i++) {
        if (extra.signal.aborted) break;
        await new Promise((r) => setTimeout(r, ms / steps));
        const t = extra._meta?.progressToken;
        if (t !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: t, progress: i, total: steps, message: `step ${i}` },
          });
      }
      if (extra.signal.aborted) {
        log({ event: "cancelled slow" });
        return { content: [{ type: "text", text: "cancelled" }] };
      }
      return { content: [{ type: "text", text: "slow done" }] };
    },
  );
  server.registerTool(
    "forget_session",
    { description: "Answer, then forget this session (as a restarted server would).", inputSchema: {} },
    async (_args, extra) => {
      setTimeout(() => sessions.delete(extra.sessionId), 10);
      return { content: [{ type: "text", text: "forgotten" }] };
    },
  );
  let added = false;
  server.registerTool(
    "add_tool",
    { description: "Register one more tool (the provider's tool list changes).", inputSchema: {} },
    async () => {
      if (!added) {
        added = true;
        server.registerTool(
          "late_arrival",
          { description: "A tool registered after start: okapi narwhal.", inputSchema: {} },
          async () => ({ content: [{ type: "text", text: "late" }] }),
        );
      }
      return { content: [{ type: "text", text: "added" }] };
    },
  );
  return server;
}

const sessions = new Map();
const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const raw = Buffer.concat(chunks).toString();
  let body;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = undefined;
  }
  const sid = req.headers["mcp-session-id"];
  log({
    http: req.method,
    rpc: body?.method ?? (body?.id !== undefined ? "response" : undefined),
    session: sid ?? null,
    version: req.headers["mcp-protocol-version"] ?? null,
    auth: token ? req.headers.authorization === `Bearer ${token}` : null,
  });
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad or missing bearer token"}');
    return;
  }
  let transport = sid ? sessions.get(sid) : undefined;
  if (sid && !transport) {
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"unknown session"}');
    return;
  }
  if (!transport) {
    if (req.method !== "POST" || body?.method !== "initialize") {
      res.writeHead(400).end("initialize first");
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await buildServer(sessions).connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, "127.0.0.1", () => console.log(`listening ${http.address().port}`));
