// A raw MCP provider for failure injection: newline-delimited JSON-RPC by
// hand, no SDK, so it can break the protocol on purpose.
//   RAW_MODE=hang_init  never answers initialize
//   RAW_MODE=exit_init  exits before answering
// Tools: ok, hang (never answers), garbage (a line that is not JSON),
// huge (one 3 MB message), crash (exits), and page2_tool on a second
// tools/list page.  Env RAW_LOG: a file it appends "start PID" to.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const mode = process.env.RAW_MODE || "";
if (process.env.RAW_LOG) appendFileSync(process.env.RAW_LOG, `start ${process.pid}\n`);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
});
const page1 = [
  tool("ok", "Answer fine (raw provider)."),
  tool("hang", "Never answer."),
  tool("garbage", "Answer with a line that is not JSON."),
  tool("huge", "Answer with one huge message."),
  tool("crash", "Exit the process."),
  tool("odd.name/with spaces", "A name with characters outside the allowed set: quokka."),
  tool("a_very_long_tool_name_that_goes_on_and_on_past_the_limit_of_sixty_four", "A long name: wombat."),
  tool("a_very_long_tool_name_that_goes_on_and_on_past_the_limit_of_sixty_four_too", "Another long name: wombat."),
  {
    name: "anyof",
    description: "A schema beyond vthost's validator subset.",
    inputSchema: {
      type: "object",
      properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } },
      required: ["v"],
    },
  },
];
const page2 = [tool("page2_tool", "Only on the second page: pangolin armadillo.")];

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method === "initialize") {
    if (mode === "hang_init") return;
    if (mode === "exit_init") process.exit(7);
    send({
      jsonrpc: "2.0",
      id: m.id,
      result: {
        protocolVersion: m.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "raw", version: "1" },
      },
    });
  } else if (m.method === "tools/list") {
    const second = m.params?.cursor === "page-2";
    // RAW_MODE=tasks: one tool that must run as an MCP task, one that may
    if (mode === "tasks" && !second && !page1.some((t) => t.name === "needs_task"))
      page1.push({ ...tool("needs_task", "Runs only as an MCP task."), execution: { taskSupport: "required" } },
                 { ...tool("task_optional", "May run as an MCP task."), execution: { taskSupport: "optional" } });
    send({
      jsonrpc: "2.0",
      id: m.id,
      result: second ? { tools: page2 } : { tools: page1, nextCursor: "page-2" },
    });
  } else if (m.method === "ping") {
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  } else if (m.method === "tools/call") {
    const name = m.params.name;
    if (name === "ok" || name === "page2_tool" || name === "task_optional" || name.startsWith("odd") || name.startsWith("a_very"))
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `raw ${name}` }] } });
    else if (name === "anyof")
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `v=${JSON.stringify(m.params.arguments.v)}` }] } });
    else if (name === "hang") {
      // stop reading too: a provider stuck for good
      if (m.params.arguments?.forever !== false) rl.close();
    } else if (name === "garbage") process.stdout.write("this is {not json\n");
    else if (name === "huge")
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "x".repeat(3 << 20) }] } });
    else if (name === "crash") process.exit(9);
  }
});
// keep running even when stdin is closed by rl.close() (the hang case)
setInterval(() => {}, 1 << 30);
