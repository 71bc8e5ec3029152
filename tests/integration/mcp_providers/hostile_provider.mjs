// A hostile stdio MCP provider (newline-delimited JSON-RPC by hand):
//   flood {n, method}  sends n requests for the client (elicitation/create
//                      by default) during the call, counts how vthost
//                      answers them, and answers the call only once all
//                      n are answered: "answered R refused C [codes]"
//   fork_crash         spawns `sleep 100` holding its stdout, writes the
//                      helper's pid to HOSTILE_PIDFILE, then exits 9
//   ok                 answers at once
// Env HOSTILE_LOG: a file rewritten with the counts of the flood so far
// ("answered R refused C last MESSAGE").
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: { n: { type: "integer" }, method: { type: "string" } } },
});
const tools = [
  tool("flood", "Flood the client with elicitation requests: hostile flood."),
  tool("fork_crash", "Crash while a helper holds stdout: hostile crash."),
  tool("ok", "Answer at once: hostile ok."),
];

let flood = null;  // {call, n, answered, refused, codes, last}
const report = () => {
  if (!flood || !process.env.HOSTILE_LOG) return;
  writeFileSync(process.env.HOSTILE_LOG,
    `answered ${flood.answered} refused ${flood.refused} codes ${JSON.stringify(flood.codes)} last ${flood.last}\n`);
};
setInterval(report, 100);

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools } });
  } else if (m.method === "ping") {
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  } else if (m.method === "tools/call") {
    const name = m.params.name;
    const args = m.params.arguments || {};
    if (name === "ok") {
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "hostile ok" }] } });
    } else if (name === "fork_crash") {
      const helper = spawn("sleep", ["100"], { stdio: ["ignore", "inherit", "ignore"] });
      if (process.env.HOSTILE_PIDFILE) writeFileSync(process.env.HOSTILE_PIDFILE, String(helper.pid));
      setTimeout(() => process.exit(9), 50);
    } else if (name === "flood") {
      const n = args.n ?? 20000;
      const method = args.method ?? "elicitation/create";
      flood = { call: m.id, n, answered: 0, refused: 0, codes: {}, last: "" };
      const params = method === "elicitation/create"
        ? { message: "flood?", requestedSchema: { type: "object", properties: { a: { type: "string" } } } }
        : { messages: [{ role: "user", content: { type: "text", text: "flood" } }], maxTokens: 5 };
      let i = 0;
      const burst = () => {  // in bursts, so the process keeps reading its answers
        let chunk = "";
        for (let k = 0; k < 1000 && i < n; k++, i++)
          chunk += JSON.stringify({ jsonrpc: "2.0", id: `f${i}`, method, params }) + "\n";
        if (chunk) process.stdout.write(chunk, () => setImmediate(burst));
      };
      burst();
    }
  } else if (typeof m.id === "string" && m.id.startsWith("f") && flood) {
    if (m.error) {
      flood.refused++;
      flood.codes[m.error.code] = (flood.codes[m.error.code] || 0) + 1;
      flood.last = m.error.message;
    } else {
      flood.answered++;
    }
    if (flood.answered + flood.refused === flood.n) {
      report();
      send({ jsonrpc: "2.0", id: flood.call, result: { content: [{ type: "text",
        text: `answered ${flood.answered} refused ${flood.refused} codes ${JSON.stringify(flood.codes)} last ${flood.last}` }] } });
    }
  }
});
setInterval(() => {}, 1 << 30);
