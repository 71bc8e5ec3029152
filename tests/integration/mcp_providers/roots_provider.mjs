// A provider that asks its client for roots, as the reference filesystem
// server does when started without a directory: roots/list right after
// initialization.  Its tool `roots_seen` answers with what it got (the
// roots, or the error), once the answer has come.
import { createRequire } from "node:module";

const require = createRequire(new URL("../mcp/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");

const server = new McpServer({ name: "vthost-roots-provider", version: "1.0.0" });
let seen;
const got = new Promise((resolve) => (seen = resolve));
server.server.oninitialized = () => {
  server.server
    .listRoots()
    .then((r) => seen({ declared: server.server.getClientCapabilities()?.roots ?? null, roots: r.roots }))
    .catch((e) => seen({ declared: server.server.getClientCapabilities()?.roots ?? null, error: String(e.message ?? e) }));
};

server.registerTool(
  "roots_seen",
  { description: "Show the workspace roots this provider was given by its client.", inputSchema: {} },
  async () => ({ content: [{ type: "text", text: JSON.stringify(await got) }] }),
);

await server.connect(new StdioServerTransport());
