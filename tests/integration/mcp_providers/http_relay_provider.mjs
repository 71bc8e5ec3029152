// A small Streamable HTTP MCP server (official SDK, stateful sessions)
// whose tool elicits: over HTTP the provider's request arrives on the
// stream of the tools/call it belongs to.  ask_elsewhere elicits on the
// session's GET stream instead (no related request, as a server that
// elicits outside the call's stream does) and whatever vthost declared.
// Prints "listening PORT".
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

const require = createRequire(new URL("../mcp/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { ElicitResultSchema } = require("@modelcontextprotocol/sdk/types.js");

function build() {
  const server = new McpServer({ name: "vthost-http-relay-provider", version: "1.0.0" });
  server.registerTool(
    "ask_name",
    { description: "Ask the user for a name through elicitation (HTTP).", inputSchema: {} },
    async (_args, extra) => {
      try {
        const r = await server.server.elicitInput(
          { message: "Name, over HTTP?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
          { relatedRequestId: extra.requestId },
        );
        return { content: [{ type: "text", text: `hello ${r.content?.name} (${r.action})` }] };
      } catch (e) {
        return { content: [{ type: "text", text: `fallback: hello stranger (${e.message})` }] };
      }
    },
  );
  server.registerTool(
    "ask_elsewhere",
    { description: "Ask for a name on the GET stream (HTTP).", inputSchema: {} },
    async () => {
      try {
        const r = await server.server.request(
          { method: "elicitation/create",
            params: { message: "Name, asked on the GET stream?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
          ElicitResultSchema,
          { timeout: 120000 },
        );
        return { content: [{ type: "text", text: `hello ${r.content?.name} (${r.action})` }] };
      } catch (e) {
        return { content: [{ type: "text", text: `fallback: hello stranger (${e.message})` }] };
      }
    },
  );
  return server;
}

const sessions = new Map();
const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString();
  const body = text ? JSON.parse(text) : undefined;
  const sid = req.headers["mcp-session-id"];
  let transport = sid ? sessions.get(sid) : undefined;
  if (sid && !transport) return res.writeHead(404).end();
  if (!transport) {
    if (req.method !== "POST" || body?.method !== "initialize") return res.writeHead(400).end();
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    await build().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, "127.0.0.1", () => console.log(`listening ${http.address().port}`));
