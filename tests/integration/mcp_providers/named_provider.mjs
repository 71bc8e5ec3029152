// A raw MCP provider for the catalog tests: it sleeps DELAY_MS before it
// answers initialize (a slow start), and lists tools whose names clients
// cannot call as they are (a hyphen, a dot, a letter outside ASCII, 70
// characters, and two names that map to one).  Every tools/call appends
// the name it received to NAMES_LOG.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const delay = Number(process.env.DELAY_MS || 0);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
export const names = ["get-sum", "a.b", "caf\u00e9", "t".repeat(70), "same-name", "same.name", "plain_tool"];
const tools = names.map((name) => ({
  name,
  description: `Tool ${name} of the named provider: marmoset.`,
  inputSchema: { type: "object", properties: {} },
}));

const rl = createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method === "initialize") {
    await new Promise((r) => setTimeout(r, delay));
    send({
      jsonrpc: "2.0",
      id: m.id,
      result: {
        protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "named", version: "1" },
      },
    });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools } });
  } else if (m.method === "tools/call") {
    if (process.env.NAMES_LOG) appendFileSync(process.env.NAMES_LOG, JSON.stringify(m.params.name) + "\n");
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `called ${m.params.name}` }] } });
  } else if (m.id !== undefined && m.method) {
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  }
});
