// A minimal raw MCP provider for the benchmarks: MANY_TOOLS tools
// (default 1000) listed 100 per tools/list page, and `echo`.
import { createInterface } from "node:readline";

const n = Number(process.env.MANY_TOOLS || 1000);
const words = ["repository", "issue", "pull", "request", "branch", "commit", "review", "label",
  "milestone", "release", "deploy", "ticket", "sprint", "metric", "alert", "dashboard", "query",
  "table", "bucket", "object", "queue", "message", "secret", "token", "user", "group"];
const tools = [{ name: "echo", description: "Echo a text back.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }];
for (let i = 0; i < n; i++) {
  const a = words[i % words.length], b = words[(i * 7) % words.length], c = words[(i * 13) % words.length];
  tools.push({
    name: `${a}_${b}_${i}`,
    description: `Manage the ${a} ${b} of the ${c} service (tool ${i}).`,
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
  });
}
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "many", version: "1" } } });
  else if (m.method === "tools/list") {
    const start = Number(m.params?.cursor || 0);
    const page = tools.slice(start, start + 100);
    const next = start + 100 < tools.length ? String(start + 100) : undefined;
    send({ jsonrpc: "2.0", id: m.id, result: next ? { tools: page, nextCursor: next } : { tools: page } });
  } else if (m.method === "tools/call")
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: String(m.params.arguments?.text ?? "") }] } });
  else if (m.method === "ping") send({ jsonrpc: "2.0", id: m.id, result: {} });
});
