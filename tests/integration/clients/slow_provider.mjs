// An MCP provider that takes its time to start (SLOW_START_MS, default
// 3000) and has a tool whose name no client can call as it is: `get-sum`.
// Newline-delimited JSON-RPC by hand, so it needs no package.
import { createInterface } from "node:readline";

const delay = Number(process.env.SLOW_START_MS ?? 3000);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const tools = [
  {
    name: "get-sum",
    description: "Add two numbers (slow provider).",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
];

function answer(msg) {
  if (msg.id === undefined) return;
  switch (msg.method) {
    case "initialize":
      return send({
        jsonrpc: "2.0",
        id: msg.id,
        result: {
          protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "slow-provider", version: "1.0.0" },
        },
      });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: msg.id, result: { tools } });
    case "tools/call": {
      const { a, b } = msg.params?.arguments ?? {};
      return send({
        jsonrpc: "2.0",
        id: msg.id,
        result: { content: [{ type: "text", text: `The sum of ${a} and ${b} is ${a + b}.` }] },
      });
    }
    case "ping":
      return send({ jsonrpc: "2.0", id: msg.id, result: {} });
    default:
      return send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  }
}

// Nothing is read before the delay: the client's initialize waits in the pipe.
setTimeout(() => {
  const rl = createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    if (!line.trim()) return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    answer(msg);
  });
  rl.on("close", () => process.exit(0));
}, delay);
