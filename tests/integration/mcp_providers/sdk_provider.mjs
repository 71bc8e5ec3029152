// A test MCP server built with the official TypeScript SDK (the pinned
// copy in ../mcp/node_modules), run by vthost as an [[mcp.providers]]
// stdio child.  Env: PROVIDER_LOG (a file it appends events to: start
// with its pid, cancellations), PROVIDER_MARKER (a file the `danger`
// tool creates).  `ask_name` elicits and `summarise` samples through
// vthost (each with its own fallback when refused); `client_caps` shows
// the client capabilities vthost declared.
import { createRequire } from "node:module";
import { appendFileSync, writeFileSync } from "node:fs";

const require = createRequire(new URL("../mcp/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");
const { ElicitResultSchema } = require("@modelcontextprotocol/sdk/types.js");

const log = (line) => {
  if (process.env.PROVIDER_LOG) appendFileSync(process.env.PROVIDER_LOG, line + "\n");
};
log(`start ${process.pid}`);

const server = new McpServer({ name: "vthost-test-provider", version: "1.0.0" });

server.registerTool(
  "echo",
  {
    description: "Echo a text back unchanged (test provider).",
    inputSchema: { text: z.string().describe("what to echo") },
    annotations: { readOnlyHint: true, openWorldHint: false, title: "Echo" },
  },
  async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
);

server.registerTool(
  "danger",
  {
    description: "Delete everything: a destructive operation the policy must stop.",
    inputSchema: {},
    annotations: { destructiveHint: true },
  },
  async () => {
    if (process.env.PROVIDER_MARKER) writeFileSync(process.env.PROVIDER_MARKER, "ran");
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
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
    }
    if (extra.signal.aborted) {
      log("cancelled slow");
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    return { content: [{ type: "text", text: "slow done" }] };
  },
);

server.registerTool(
  "crash",
  { description: "Exit the provider process in the middle of the call.", inputSchema: {} },
  async () => {
    setTimeout(() => process.exit(3), 10);
    return new Promise(() => {});
  },
);

server.registerTool(
  "big",
  {
    description: "Return a long text of n lines (output budget test).",
    inputSchema: { lines: z.number().int().min(1).max(1000000) },
  },
  async ({ lines }) => {
    const out = [];
    for (let i = 0; i < lines; i++) out.push(`line ${i} of the big provider output`);
    return { content: [{ type: "text", text: out.join("\n") }] };
  },
);

server.registerTool(
  "env_keys",
  { description: "List the names of the provider's environment variables.", inputSchema: {} },
  async () => ({
    content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }],
    structuredContent: { keys: Object.keys(process.env).sort() },
  }),
);

server.registerTool(
  "fails",
  { description: "A tool that reports an error result.", inputSchema: {} },
  async () => ({ isError: true, content: [{ type: "text", text: "the widget is broken" }] }),
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
        { description: "A tool registered after start: zebra giraffe.", inputSchema: {} },
        async () => ({ content: [{ type: "text", text: "late" }] }),
      );
    }
    return { content: [{ type: "text", text: "added" }] };
  },
);

const say = (text) => ({ content: [{ type: "text", text }] });

server.registerTool(
  "ask_name",
  {
    description: "Ask the user for a name through elicitation and greet them (falls back to a stranger).",
    // raw: send the request even when vthost did not declare elicitation
    inputSchema: { raw: z.boolean().optional() },
  },
  async ({ raw }, extra) => {
    const params = {
      message: "What name should the greeting use?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    };
    try {
      const r = raw
        ? await extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema)
        : await server.server.elicitInput(params, { relatedRequestId: extra.requestId });
      log(`elicit answered ${r.action}`);
      return say(r.action === "accept" ? `hello ${r.content.name}` : `elicitation ${r.action}`);
    } catch (e) {
      log(`elicit refused ${e.code ?? ""} ${e.message}`);
      return say(`fallback: hello stranger (${e.message})`);
    }
  },
);

server.registerTool(
  "summarise",
  {
    description: "Summarise a text with the client's model through sampling (falls back to its first words).",
    inputSchema: { text: z.string() },
  },
  async ({ text }, extra) => {
    try {
      const r = await server.server.createMessage(
        {
          messages: [{ role: "user", content: { type: "text", text: `Summarise: ${text}` } }],
          systemPrompt: "You summarise.",
          includeContext: "thisServer",
          maxTokens: 50,
        },
        { relatedRequestId: extra.requestId },
      );
      log(`sample answered ${r.model}`);
      return say(`summary: ${r.content.text} (model ${r.model})`);
    } catch (e) {
      log(`sample refused ${e.code ?? ""} ${e.message}`);
      return say(`fallback summary: ${text.split(" ").slice(0, 3).join(" ")} (${e.message})`);
    }
  },
);

server.registerTool(
  "client_caps",
  { description: "Show the client capabilities vthost declared to this provider.", inputSchema: {} },
  async () => say(JSON.stringify(server.server.getClientCapabilities() ?? {})),
);

await server.connect(new StdioServerTransport());
